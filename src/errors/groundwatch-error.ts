/**
 * The one base of every error groundwatch throws, and its codes. A caller maps an error by its `code`
 * (the CLI to an exit code, an HTTP handler to a status), not by a list of classes; each class keeps
 * its name, its message and its own fields, and `instanceof` still works. The codes are declared once,
 * here, each with what it means; a table keyed by `GroundwatchErrorCode` must answer every one of them.
 *
 * This folder sits below every other part of src/ (core and the leaves net and runtime included) and
 * imports nothing, so every part can reach it (docs/architecture.md).
 */

/** Every code, with what it means (and the class that carries it). */
export const GROUNDWATCH_ERROR_CODES = {
  config: "a configuration value is missing or invalid: the message names the field and the value (ConfigError)",
  onnx_runtime_missing: "the onnx backend was asked for and onnxruntime-node is not installed (OnnxRuntimeMissingError, a ConfigError)",
  usage: "a command's flags or arguments are wrong (UsageError)",
  help_requested: "a command was given --help: print its help (HelpRequested)",
  http: "a request an HTTP handler refuses, with the status it answers (HttpError)",
  otlp_decode: "an OTLP export request that cannot be decoded (OtlpDecodeError)",
  listen: "a listener could not bind its port (ListenError)",
  review_unknown_answer: "a review request names an answer the spools do not hold (ReviewSessionError)",
  review_no_label: "a review request to label an answer without a label (ReviewSessionError)",
  spool_file_refused: "a review spool file that is not a regular file, or is over its size cap: nothing was written (SpoolFileRefused)",
  non_retryable: "a remote call that another attempt will not fix (NonRetryable)",
  retry_later: "a remote call to try again after the wait the server named (RetryLater)",
  headers_timeout: "a server sent no response headers in time (HeadersTimeoutError)",
  total_timeout: "a remote request, headers and body, took longer than its bound: it was aborted (TotalTimeoutError)",
  body_too_large: "a remote reply larger than its cap: the request was aborted (BodyTooLargeError)",
  body_idle_timeout: "a remote reply stopped arriving: the request was aborted (BodyIdleTimeoutError)",
  chat_http: "a chat completions endpoint answered a client error (ChatHttpError)",
  judge_reply: "a judge's reply that cannot be read as its recipe's answer: unparseable, refused, filtered, truncated or empty (JudgeReplyError); never read as a score",
  hub: "the model hub refused, failed, or answered something groundwatch will not write (HubError)",
  pool: "the worker pool gave up on a job: timeout, crash, unavailable or closed (PoolError)",
  job_aborted: "a worker's job was cancelled or its worker is closing (JobAbortedError)",
  native_gate_closed: "a native call refused: the worker running it is shutting down (NativeGateClosedError)",
  backend_reply: "an entailment backend's reply broke the port's contract: the wrong number of results, or a probability not in [0, 1] (BackendReplyError)",
  batcher_closed: "the onnx inference batcher is closed (BatcherClosedError)",
} as const;

export type GroundwatchErrorCode = keyof typeof GROUNDWATCH_ERROR_CODES;

/** Marks a GroundwatchError across copies of this module (the ESM and CommonJS builds in one process), as undici's errors do. */
const BRAND = Symbol.for("groundwatch.error");

/**
 * The base of every groundwatch error. A subclass declares its code as it declares its name:
 * `override readonly code = "hub";`.
 */
export abstract class GroundwatchError extends Error {
  abstract readonly code: GroundwatchErrorCode;

  get [BRAND](): true {
    return true;
  }
}

/** Whether `code` is one of groundwatch's error codes. */
export function isGroundwatchErrorCode(code: unknown): code is GroundwatchErrorCode {
  return typeof code === "string" && Object.hasOwn(GROUNDWATCH_ERROR_CODES, code);
}

/** Whether `error` is a groundwatch error (with `code`, when given). */
export function isGroundwatchError(error: unknown): error is GroundwatchError;
export function isGroundwatchError<C extends GroundwatchErrorCode>(error: unknown, code: C): error is GroundwatchError & { readonly code: C };
export function isGroundwatchError(error: unknown, code?: GroundwatchErrorCode): error is GroundwatchError {
  if (!(error instanceof Error) || (error as unknown as Record<symbol, unknown>)[BRAND] !== true) return false;
  const own = (error as { code?: unknown }).code;
  return code === undefined ? isGroundwatchErrorCode(own) : own === code;
}
