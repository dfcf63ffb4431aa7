import { describe, expect, it } from "vitest";
import { bearerToken, tokenMatcher } from "../../src/net/bearer.ts";

describe("bearerToken", () => {
  it("reads the token after the Bearer scheme, in any case, past spaces and tabs", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer \t abc")).toBe("abc");
    expect(bearerToken("BEARER abc \t")).toBe("abc");
  });

  it("reads nothing from another scheme, no header, or a separator wider than a space or tab", () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken("Bearerabc")).toBeUndefined();
    expect(bearerToken("Bearer\u00a0abc")).toBeUndefined();
    expect(bearerToken("Bearer\nabc")).toBeUndefined();
  });
});

describe("tokenMatcher", () => {
  it("accepts the token only, whatever the length of what is given", () => {
    const matches = tokenMatcher("a-token-of-enough-length");
    expect(matches("a-token-of-enough-length")).toBe(true);
    expect(matches("a-token-of-enough-lengtH")).toBe(false);
    expect(matches("short")).toBe(false);
    expect(matches("")).toBe(false);
    expect(matches(undefined)).toBe(false);
  });
});
