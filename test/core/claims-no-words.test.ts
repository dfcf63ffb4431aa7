import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnswerSegment } from "../../src/core/claims/index.ts";
import { splitClaims } from "../../src/core/claims/index.ts";
import type { Scorer } from "../../src/scoring/scorer.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const split = (text: string): AnswerSegment[] => splitClaims(text, testAnalyzer());
const kinds = (text: string): string[] => split(text).map((s) => (s.kind === "claim" ? "claim" : s.reason));

const CONTEXT = "The store opens at 9 am.";
const MB = 1_000_000;
/** `unit` repeated to about one megabyte. */
const megabyte = (unit: string): string => unit.repeat(Math.ceil(MB / unit.length));

describe("splitClaims: text with no words", () => {
  it.each([
    ["emoji", "😀😀😀 🎉 👍🏽 🇺🇸."],
    ["emoji joined by zero-width joiners", "👩\u200d👩\u200d👧 👩\u200d👩\u200d👧"],
    ["lone combining marks", "\u0301\u0301\u0301 \u0302\u0303"],
    ["letters buried under stacked combining marks", "a\u0301\u0302\u0303 Z\u0336\u0335\u0334."],
    ["digits of other scripts and numeric symbols", "٣٤٥ ١٢ ½ Ⅻ ①"],
  ])("skips %s as no_content", (_, text) => {
    expect(kinds(text)).toEqual(["no_content"]);
  });

  it.each([
    ["a number inside a sentence with words", "The fee is 30 dollars."],
    ["a bare year (an answer to 'when?')", "1990."],
    ["digits only", "14085 73274 82539 51542."],
    ["amounts", "$5 €3 100%."],
    ["keycap emoji, read as their digits", "1\ufe0f\u20e3 2\ufe0f\u20e3"],
    ["a spelled-out number", "nine"],
    ["Cyrillic prose with a number", "Магазин открывается в 9 утра."],
    ["Japanese prose with a number", "店は午前9時に開きます。"],
    ["Vietnamese in decomposed form (two marks on a letter)", "Vie\u0323\u0302t Nam co\u0301 54 da\u0302n to\u0323\u0302c."],
    ["accented Latin letters", "Der Laden öffnet um neun Uhr."],
  ])("keeps %s as a claim", (_, text) => {
    expect(kinds(text)).toEqual(["claim"]);
  });
});

describe("scoring text with no words (offline backend)", () => {
  let scorer: Scorer;
  beforeAll(async () => {
    scorer = await createScorer({ backend: "offline" }, { analyzer: testAnalyzer() });
  });
  afterAll(async () => {
    await scorer.close();
  });

  // Regression: a digit-only answer the evidence does not state scored grounded 0.769.
  it("finds an answer of numbers the evidence does not state unsupported, naming them", async () => {
    const r = await scorer.score({ answer: "14085 73274 82539 51542.", context: CONTEXT });
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims[0]?.verdict).toBe("unsupported");
    expect(r.claims[0]?.notes).toContain('"14085" not in evidence');
  });

  it("supports a bare number the evidence states", async () => {
    const r = await scorer.score({ answer: "1962.", context: "The bridge opened in 1962 after six years of work." });
    expect(r.verdict).toBe("grounded");
  });

  it("returns unscorable no_checkable_claims for an answer of emoji only", async () => {
    const r = await scorer.score({ answer: "😀😀😀 🎉 👍🏽.", context: CONTEXT });
    expect(r).toMatchObject({ verdict: "unscorable", score: null, reason: "no_checkable_claims" });
    expect(r.skipped.map((s) => s.reason)).toEqual(["no_content"]);
  });

  // Regression: 1 MB of digits scored grounded 0.925, and 1 MB of emoji and combining marks 0.9998.
  it.each([
    ["digits", megabyte("14085 73274 ")],
    ["unspaced digits", megabyte("1408573274")],
    ["emoji with combining marks and a number", megabyte("😀\u0301 🎉\u200d 12 ")],
  ])(
    "finds a megabyte of %s ungrounded",
    async (_, answer) => {
      const r = await scorer.score({ answer, context: CONTEXT });
      expect(r.verdict).toBe("ungrounded");
      expect(r.score).toBeLessThan(0.2);
    },
    10_000,
  );

  it.each([
    ["emoji", megabyte("😀")],
    ["spaced emoji with joiners and skin tones", megabyte("👩\u200d👩\u200d👧 👍🏽 ")],
    ["combining marks", megabyte("\u0301")],
    ["letters under stacked combining marks", megabyte("a\u0301\u0302\u0303 ")],
    ["emoji with combining marks", megabyte("😀\u0301 🎉\u200d ")],
  ])(
    "never scores a megabyte of %s as grounded",
    async (_, answer) => {
      const r = await scorer.score({ answer, context: CONTEXT });
      expect(r).toMatchObject({ verdict: "unscorable", reason: "no_checkable_claims", claims: [] });
    },
    10_000,
  );
});
