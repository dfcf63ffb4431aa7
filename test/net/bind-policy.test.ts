import { describe, expect, it } from "vitest";
import { MIN_TOKEN_LENGTH, bindRefusal, isLoopbackBind } from "../../src/net/bind-policy.ts";

const LONG = "x".repeat(MIN_TOKEN_LENGTH);
const SHORT = "x".repeat(MIN_TOKEN_LENGTH - 1);

describe("the bind policy", () => {
  it("allows a loopback address without a token", () => {
    for (const host of ["127.0.0.1", "::1", "localhost"]) {
      expect(isLoopbackBind(host)).toBe(true);
      expect(bindRefusal(host, undefined)).toBeUndefined();
    }
  });

  it("needs a token on any other address", () => {
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com"]) {
      expect(isLoopbackBind(host)).toBe(false);
      expect(bindRefusal(host, undefined)).toBe("token_required");
      expect(bindRefusal(host, LONG)).toBeUndefined();
    }
  });

  it("refuses a short token on every address, loopback too", () => {
    expect(bindRefusal("127.0.0.1", SHORT)).toBe("token_too_short");
    expect(bindRefusal("0.0.0.0", SHORT)).toBe("token_too_short");
    expect(bindRefusal("127.0.0.1", "")).toBe("token_too_short");
  });
});
