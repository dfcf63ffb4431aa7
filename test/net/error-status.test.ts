/**
 * The HTTP status an error is answered with follows its code (one table for the collector and the
 * review page): a refusal the client can fix is its 4xx, anything else a 500.
 */
import { describe, expect, it } from "vitest";
import { OtlpDecodeError } from "../../src/collector/otlp.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { GROUNDWATCH_ERROR_CODES } from "../../src/errors/groundwatch-error.ts";
import { HTTP_STATUS_BY_ERROR_CODE, httpStatusOf } from "../../src/net/error-status.ts";
import { HttpError } from "../../src/net/http-error.ts";
import { BodyTooLargeError } from "../../src/net/read-capped.ts";
import { ChatHttpError } from "../../src/nli/judge/chat.ts";
import { ReviewSessionError } from "../../src/review/session.ts";

describe("HTTP status by error code", () => {
  it.each(Object.keys(GROUNDWATCH_ERROR_CODES))("%s has a status", (code) => {
    const status = HTTP_STATUS_BY_ERROR_CODE[code as keyof typeof HTTP_STATUS_BY_ERROR_CODE];
    expect(status === "own" || (Number.isInteger(status) && status >= 400 && status <= 599)).toBe(true);
  });

  it("maps no code that does not exist", () => {
    expect(Object.keys(HTTP_STATUS_BY_ERROR_CODE).sort()).toEqual(Object.keys(GROUNDWATCH_ERROR_CODES).sort());
  });

  it("answers a client's error with its 4xx, and the server's own with 500", () => {
    expect(httpStatusOf(new HttpError(415, "send application/json"))).toBe(415);
    expect(httpStatusOf(new OtlpDecodeError("not OTLP"))).toBe(400);
    expect(httpStatusOf(new ReviewSessionError("unknown_answer", "no such answer"))).toBe(404);
    expect(httpStatusOf(new ReviewSessionError("no_label", "give a label"))).toBe(400);
    expect(httpStatusOf(new ConfigError("threshold", 2, "a number"))).toBe(500);
    expect(httpStatusOf(new BodyTooLargeError(10))).toBe(500);
    expect(httpStatusOf(new ChatHttpError("judge answered HTTP 401", 401))).toBe(500);
  });

  it("says nothing of an error that is not groundwatch's (the handler decides)", () => {
    expect(httpStatusOf(Object.assign(new Error("x"), { status: 404 }))).toBeUndefined();
    expect(httpStatusOf(undefined)).toBeUndefined();
  });
});
