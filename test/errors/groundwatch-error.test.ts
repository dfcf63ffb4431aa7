/**
 * Every error groundwatch throws is a GroundwatchError with its code, and keeps its class, name and
 * message; isGroundwatchError tells them from other errors by the base, never by a `code` alone.
 */
import { describe, expect, it } from "vitest";
import { ListenError } from "../../src/collector/http.ts";
import { OtlpDecodeError } from "../../src/collector/otlp.ts";
import { ConfigError, isConfigError } from "../../src/config/errors.ts";
import { GROUNDWATCH_ERROR_CODES, GroundwatchError, isGroundwatchError, isGroundwatchErrorCode } from "../../src/errors/groundwatch-error.ts";
import type { GroundwatchErrorCode } from "../../src/errors/groundwatch-error.ts";
import { UsageError, parseFlags } from "../../src/cli/shared/command.ts";
import { BackendReplyError } from "../../src/core/checked-backend.ts";
import { HeadersTimeoutError, TotalTimeoutError } from "../../src/net/bounded-fetch.ts";
import { HttpError } from "../../src/net/http-error.ts";
import { BodyIdleTimeoutError, BodyTooLargeError } from "../../src/net/read-capped.ts";
import { NonRetryable, RetryLater } from "../../src/net/retry.ts";
import { HubError } from "../../src/nli/hub/errors.ts";
import { ChatHttpError } from "../../src/nli/judge/chat.ts";
import { JudgeReplyError } from "../../src/nli/judge/reply-error.ts";
import { BatcherClosedError } from "../../src/workers/batcher.ts";
import { OnnxRuntimeMissingError } from "../../src/nli/onnx/runtime.ts";
import { ReviewSessionError } from "../../src/review/session.ts";
import { SpoolFileRefused } from "../../src/review/spool-fs.ts";
import { NativeGateClosedError } from "../../src/workers/native-gate.ts";
import { PoolError } from "../../src/workers/pool-types.ts";
import { JobAbortedError } from "../../src/workers/serve-worker.ts";

/** The error parseFlags throws for --help (its class is not exported). */
function helpRequested(): unknown {
  try {
    parseFlags(["--help"], {});
  } catch (error) {
    return error;
  }
  throw new Error("parseFlags did not throw for --help");
}

/** One instance of every error class in src/, with the code, name and message it must have. */
const ERRORS: ReadonlyArray<{ error: unknown; code: GroundwatchErrorCode; name: string; message: string }> = [
  { error: new ConfigError("threshold", 2, "a number from 0 to 1"), code: "config", name: "ConfigError", message: "invalid threshold: 2 (a number from 0 to 1)" },
  { error: new OnnxRuntimeMissingError(), code: "onnx_runtime_missing", name: "ConfigError", message: 'invalid backend: "onnx" (the onnx backend needs onnxruntime-node' },
  { error: new UsageError("--rate must be a number"), code: "usage", name: "UsageError", message: "--rate must be a number" },
  { error: helpRequested(), code: "help_requested", name: "Error", message: "" },
  { error: new HttpError(413, "too big"), code: "http", name: "HttpError", message: "too big" },
  { error: new OtlpDecodeError("not OTLP"), code: "otlp_decode", name: "OtlpDecodeError", message: "not OTLP" },
  { error: new ListenError("port 1 on 127.0.0.1 is already in use", "EADDRINUSE"), code: "listen", name: "ListenError", message: "port 1 on 127.0.0.1 is already in use" },
  { error: new ReviewSessionError("unknown_answer", "no answer a9"), code: "review_unknown_answer", name: "ReviewSessionError", message: "no answer a9" },
  { error: new ReviewSessionError("no_label", "give a label"), code: "review_no_label", name: "ReviewSessionError", message: "give a label" },
  { error: new SpoolFileRefused("/s/x.jsonl", "not_regular"), code: "spool_file_refused", name: "SpoolFileRefused", message: "/s/x.jsonl is not a regular file" },
  { error: new NonRetryable("not JSON"), code: "non_retryable", name: "NonRetryable", message: "not JSON" },
  { error: new RetryLater("HTTP 429", 1000), code: "retry_later", name: "RetryLater", message: "HTTP 429" },
  { error: new HeadersTimeoutError("http://x/", 50), code: "headers_timeout", name: "HeadersTimeoutError", message: "no answer within 50 ms" },
  { error: new TotalTimeoutError("http://x/", 60), code: "total_timeout", name: "TotalTimeoutError", message: "no complete reply within 60 ms" },
  { error: new BackendReplyError("fake backend returned 0 results for 1 pairs"), code: "backend_reply", name: "BackendReplyError", message: "fake backend returned 0 results for 1 pairs" },
  { error: new BodyTooLargeError(10), code: "body_too_large", name: "BodyTooLargeError", message: "the reply is larger than 10 bytes; the request was aborted" },
  { error: new BodyIdleTimeoutError(20), code: "body_idle_timeout", name: "BodyIdleTimeoutError", message: "the reply stalled: no data for 20 ms; the request was aborted" },
  { error: new ChatHttpError("judge answered HTTP 401", 401), code: "chat_http", name: "ChatHttpError", message: "judge answered HTTP 401" },
  { error: new JudgeReplyError("unparseable", "judge reply unparseable (lynx): JSON without SCORE"), code: "judge_reply", name: "JudgeReplyError", message: "judge reply unparseable (lynx): JSON without SCORE" },
  { error: new HubError("the hub refused"), code: "hub", name: "HubError", message: "the hub refused" },
  { error: new PoolError("timeout", "ran past 5 ms"), code: "pool", name: "PoolError", message: "ran past 5 ms" },
  { error: new JobAbortedError("closing"), code: "job_aborted", name: "JobAbortedError", message: "the worker is closing" },
  { error: new NativeGateClosedError(), code: "native_gate_closed", name: "NativeGateClosedError", message: "the worker running this model is shutting down" },
  { error: new BatcherClosedError(), code: "batcher_closed", name: "BatcherClosedError", message: "onnx backend: the inference batcher is closed" },
];

describe("GroundwatchError", () => {
  it.each(ERRORS.map((e) => [e.code, e] as const))("%s: a GroundwatchError with its code, its name and its message", (code, { error, name, message }) => {
    expect(error).toBeInstanceOf(GroundwatchError);
    expect(error).toBeInstanceOf(Error);
    expect(isGroundwatchError(error)).toBe(true);
    expect(isGroundwatchError(error, code)).toBe(true);
    expect((error as Error).name).toBe(name);
    expect((error as Error).message.startsWith(message)).toBe(true);
  });

  it("has an error for every code, and every code is documented", () => {
    expect(new Set(ERRORS.map((e) => e.code))).toEqual(new Set(Object.keys(GROUNDWATCH_ERROR_CODES)));
    for (const meaning of Object.values(GROUNDWATCH_ERROR_CODES)) expect(meaning.length).toBeGreaterThan(20);
  });

  it("keeps the subclasses' own tests working: instanceof their bases, ConfigError's guard", () => {
    expect(new HubError("x")).toBeInstanceOf(NonRetryable);
    expect(new BodyTooLargeError(1)).toBeInstanceOf(NonRetryable);
    expect(new OnnxRuntimeMissingError()).toBeInstanceOf(ConfigError);
    expect(isConfigError(new OnnxRuntimeMissingError())).toBe(true);
    expect(isGroundwatchError(new OnnxRuntimeMissingError(), "config")).toBe(false);
  });

  it("a ListenError keeps the system's code apart from its own", () => {
    expect(new ListenError("busy", "EADDRINUSE")).toMatchObject({ code: "listen", systemCode: "EADDRINUSE" });
  });

  it("tells other errors apart, a `code` that happens to match included", () => {
    expect(isGroundwatchError(new Error("x"))).toBe(false);
    expect(isGroundwatchError(Object.assign(new Error("x"), { code: "config" }))).toBe(false);
    expect(isGroundwatchError({ code: "config", message: "x" })).toBe(false);
    expect(isGroundwatchError(undefined)).toBe(false);
    expect(isGroundwatchError("config")).toBe(false);
    expect(isGroundwatchError(new UsageError("x"), "config")).toBe(false);
  });

  it("knows its codes, and only its own", () => {
    expect(isGroundwatchErrorCode("body_too_large")).toBe(true);
    expect(isGroundwatchErrorCode("EADDRINUSE")).toBe(false);
    expect(isGroundwatchErrorCode("toString")).toBe(false);
    expect(isGroundwatchErrorCode(undefined)).toBe(false);
  });
});
