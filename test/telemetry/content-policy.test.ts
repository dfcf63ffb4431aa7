import { describe, expect, it } from "vitest";
import { createContentPolicy } from "../../src/telemetry/content-policy.ts";

describe("createContentPolicy", () => {
  it("carries a text through the redact hook, then capped at maxLength with an ellipsis; redacted() keeps it whole", () => {
    const policy = createContentPolicy({ captureContent: true, redact: (t) => t.toUpperCase(), maxLength: 5 });
    expect(policy.text("abcdefgh")).toBe("ABCD…");
    expect(policy.text("abc")).toBe("ABC");
    expect(policy.redacted("abcdefgh")).toBe("ABCDEFGH");
  });

  it("makes a record without content when capture is off, without calling the hook", () => {
    let calls = 0;
    const policy = createContentPolicy({ captureContent: false, redact: (t) => (calls++, t), maxLength: 10 });
    expect(policy.record("span", "/r", () => policy.text("secret"), () => "none")).toBe("none");
    expect(calls).toBe(0);
  });

  it("makes the record without content, and says which sink and route, when the hook throws; other errors propagate", () => {
    const told: unknown[] = [];
    const policy = createContentPolicy({
      captureContent: true,
      redact: (t) => {
        if (t === "secret") throw new Error("no");
        return t;
      },
      maxLength: 10,
      onWithheld: (sink, route, error) => told.push([sink, route, (error as Error).message]),
    });
    expect(policy.record("flagged", "/r", () => `with ${policy.text("secret")}`, () => "without")).toBe("without");
    expect(told).toEqual([["flagged", "/r", "no"]]);
    expect(policy.record("flagged", "/r", () => policy.text("fine"), () => "without")).toBe("fine");
    expect(() =>
      policy.record("span", "/r", () => {
        throw new Error("not the hook's");
      }, () => "without"),
    ).toThrow("not the hook's");
    expect(told).toHaveLength(1);
  });
});
