import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { markRanges, mergeRanges, removeRanges } from "../../src/sdk/guard-correction.ts";
import { DEFAULT_GUARD_REPLACEMENT, GUARD_DEFAULTS, resolveGuardOptions } from "../../src/sdk/guard-options.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const ANSWER = "Returns are accepted within 30 days. Shipping is free over $20. Refunds take 10 days.";
/** "Shipping is free over $20." and "Refunds take 10 days.", as the scorer's claim offsets give them. */
const SHIPPING = { start: 37, end: 63 };
const REFUNDS = { start: 64, end: 85 };

describe("guard correction", () => {
  it("removes a claim in the middle with the space after it", () => {
    expect(removeRanges(ANSWER, [SHIPPING])).toBe("Returns are accepted within 30 days. Refunds take 10 days.");
  });

  it("removes the last claims without leaving a trailing space, whatever their order", () => {
    expect(removeRanges(ANSWER, [REFUNDS, SHIPPING])).toBe("Returns are accepted within 30 days.");
  });

  it("keeps the line breaks between claims it removes", () => {
    expect(removeRanges("First fact.\nSecond fact.\nThird fact.", [{ start: 12, end: 24 }])).toBe("First fact.\n\nThird fact.");
    expect(removeRanges("First fact. Second fact.\nThird fact.", [{ start: 12, end: 24 }])).toBe("First fact.\nThird fact.");
  });

  it("marks claims with the configured marker", () => {
    expect(markRanges(ANSWER, [SHIPPING], "[unverified: ", "]")).toBe("Returns are accepted within 30 days. [unverified: Shipping is free over $20.] Refunds take 10 days.");
    expect(markRanges(ANSWER, [REFUNDS, SHIPPING], "~~", "~~")).toBe("Returns are accepted within 30 days. ~~Shipping is free over $20.~~ ~~Refunds take 10 days.~~");
  });

  it("merges overlapping and touching ranges and drops empty or out-of-range ones", () => {
    expect(mergeRanges([{ start: 5, end: 9 }, { start: 0, end: 3 }, { start: 3, end: 4 }, { start: 8, end: 12 }, { start: 20, end: 20 }, { start: -4, end: 1 }, { start: 14, end: 99 }], 16)).toEqual([
      { start: 0, end: 4 },
      { start: 5, end: 12 },
      { start: 14, end: 16 },
    ]);
  });

  it("is linear in the answer: removing and marking every other sentence costs the same per character at N and 4N", () => {
    const make = (n: number): { answer: string; ranges: Array<{ start: number; end: number }> } => {
      const sentence = "The plan costs 10 dollars a month.   ";
      const ranges: Array<{ start: number; end: number }> = [];
      for (let i = 0; i < n; i += 2) ranges.push({ start: i * sentence.length, end: i * sentence.length + sentence.length - 3 });
      return { answer: sentence.repeat(n).trimEnd(), ranges };
    };
    // At most 512 sentences (19 KB) against 2,048 (76 KB): both under the 128 KiB past which an allocation
    // takes fresh pages from the kernel (the ratio then followed the load: x9.0 in a CI run beside helpers).
    expectLinear("removeRanges", measureGrowth(make, ({ answer, ranges }) => removeRanges(answer, ranges).length, { n: 128, factor: 4, maxN: 512 }));
    expectLinear("markRanges", measureGrowth(make, ({ answer, ranges }) => markRanges(answer, ranges, "[", "]").length, { n: 128, factor: 4, maxN: 512 }));
  });
});

describe("resolveGuardOptions", () => {
  it("fails closed and blocks by default, within 200 ms", () => {
    expect(resolveGuardOptions(undefined)).toEqual({ budgetMs: 200, onFail: "block", action: "block", replacement: DEFAULT_GUARD_REPLACEMENT, correction: "remove", marker: { open: "[unverified: ", close: "]" } });
  });

  it("resolves a call's options over the monitor's defaults, field by field", () => {
    const monitorDefaults = resolveGuardOptions({ budgetMs: 500, action: "correct", marker: { open: "<<" } });
    expect(resolveGuardOptions({ onFail: "pass", marker: { close: ">>" } }, monitorDefaults)).toEqual({ ...GUARD_DEFAULTS, budgetMs: 500, onFail: "pass", action: "correct", marker: { open: "<<", close: ">>" } });
  });

  it.each([
    [{ budgetMs: 0 }, "guard.budgetMs"],
    [{ budgetMs: 1.5 }, "guard.budgetMs"],
    [{ onFail: "open" }, "guard.onFail"],
    [{ action: "rewrite" }, "guard.action"],
    [{ replacement: "" }, "guard.replacement"],
    [{ correction: "redact" }, "guard.correction"],
    [{ marker: "**" }, "guard.marker"],
    [{ marker: { open: "x".repeat(101) } }, "guard.marker.open"],
  ])("throws a ConfigError naming the field for %j", (options, field) => {
    let error: unknown;
    try {
      resolveGuardOptions(options as never);
    } catch (e) {
      error = e;
    }
    expect(isConfigError(error) && error.field).toBe(field);
  });
});
