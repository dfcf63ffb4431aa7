/**
 * The HTTP status every groundwatch error is answered with, by its code: the one table both HTTP
 * handlers (the collector's, the review page's) read. A refusal the client can fix is a 4xx; any other
 * error is the server's own (500, "internal error", its message kept out of the answer). Keyed by
 * every code, so a new code does not compile without its status.
 */
import type { GroundwatchErrorCode } from "../errors/groundwatch-error.ts";
import { isGroundwatchError } from "../errors/groundwatch-error.ts";

/** A status, or "own": the error carries the status it is answered with (HttpError's `status`). */
export type ErrorStatus = number | "own";

export const HTTP_STATUS_BY_ERROR_CODE: Readonly<Record<GroundwatchErrorCode, ErrorStatus>> = {
  http: "own",
  otlp_decode: 400,
  review_unknown_answer: 404,
  review_no_label: 400,
  config: 500,
  onnx_runtime_missing: 500,
  usage: 500,
  help_requested: 500,
  listen: 500,
  spool_file_refused: 500,
  non_retryable: 500,
  retry_later: 500,
  headers_timeout: 500,
  total_timeout: 500,
  backend_reply: 500,
  body_too_large: 500,
  body_idle_timeout: 500,
  // An endpoint's refusal of groundwatch's own call is not the client's error.
  chat_http: 500,
  judge_reply: 500,
  hub: 500,
  pool: 500,
  job_aborted: 500,
  native_gate_closed: 500,
  batcher_closed: 500,
};

/** The status an HTTP handler answers `error` with, by its code; undefined when it is not a groundwatch error. */
export function httpStatusOf(error: unknown): number | undefined {
  if (!isGroundwatchError(error)) return undefined;
  const status = HTTP_STATUS_BY_ERROR_CODE[error.code];
  if (status !== "own") return status;
  const own = (error as { status?: unknown }).status;
  return typeof own === "number" ? own : 500;
}
