import type { GroundwatchErrorCode } from "../../errors/groundwatch-error.ts";
import { isGroundwatchError } from "../../errors/groundwatch-error.ts";

/** Process exit codes shared by every command; listed in each command's --help. */
export const EXIT = {
  ok: 0,
  /** Something failed while running (a backend could not load, an output could not be written). */
  failure: 1,
  /** Bad flags or configuration. */
  usage: 2,
  /** An input row is malformed and --skip-invalid was not given. */
  invalidInput: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code a command ends with when its body throws an error with each code: bad flags and
 * configuration (a missing onnxruntime-node included) exit 2, --help exits 0, every other failure 1.
 * Keyed by every code, so a new code does not compile without its exit code.
 */
export const EXIT_BY_ERROR_CODE: Readonly<Record<GroundwatchErrorCode, ExitCode>> = {
  config: EXIT.usage,
  onnx_runtime_missing: EXIT.usage,
  usage: EXIT.usage,
  help_requested: EXIT.ok,
  http: EXIT.failure,
  otlp_decode: EXIT.failure,
  listen: EXIT.failure,
  review_unknown_answer: EXIT.failure,
  review_no_label: EXIT.failure,
  spool_file_refused: EXIT.failure,
  non_retryable: EXIT.failure,
  retry_later: EXIT.failure,
  headers_timeout: EXIT.failure,
  total_timeout: EXIT.failure,
  backend_reply: EXIT.failure,
  body_too_large: EXIT.failure,
  body_idle_timeout: EXIT.failure,
  chat_http: EXIT.failure,
  judge_reply: EXIT.failure,
  hub: EXIT.failure,
  pool: EXIT.failure,
  job_aborted: EXIT.failure,
  native_gate_closed: EXIT.failure,
  batcher_closed: EXIT.failure,
};

/** The exit code for an error a command threw: by its code, and 1 for anything that is not a groundwatch error. */
export function exitCodeOf(error: unknown): ExitCode {
  return isGroundwatchError(error) ? EXIT_BY_ERROR_CODE[error.code] : EXIT.failure;
}
