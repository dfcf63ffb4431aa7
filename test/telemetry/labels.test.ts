import { describe, expect, it } from "vitest";
import { sanitizeLabel } from "../../src/telemetry/labels.ts";

const ESC = "\u001b";

describe("sanitizeLabel", () => {
  it("passes route templates and ordinary names through unchanged", () => {
    for (const route of ["/api/v1/answers/:id", "GET /search/{query}", "checkout-service", "Grüße 東京"]) expect(sanitizeLabel(route)).toBe(route);
  });

  it("removes escape sequences with an OSC's payload, and control and bidi characters", () => {
    expect(sanitizeLabel(`/pay${ESC}]8;;http://evil${ESC}\\ments${ESC}[2J`)).toBe("/payments");
    expect(sanitizeLabel("/admin\u202e/txt.exe\u0000")).toBe("/admin/txt.exe");
  });

  it("keeps the words around a tab or line break apart", () => {
    expect(sanitizeLabel("GET\t/a\n/b")).toBe("GET /a /b");
  });

  it("trims, and gives the fallback for a value with nothing visible", () => {
    expect(sanitizeLabel("  /x  ")).toBe("/x");
    expect(sanitizeLabel(`${ESC}[31m\u0007\t `)).toBe("unknown");
    expect(sanitizeLabel("", "none")).toBe("none");
  });

  it("cuts at `max` characters, never inside a surrogate pair", () => {
    expect(sanitizeLabel("x".repeat(300))).toHaveLength(200);
    expect(sanitizeLabel("abcdef", "unknown", 3)).toBe("abc");
    expect(sanitizeLabel("ab😀", "unknown", 3)).toBe("ab");
  });
});
