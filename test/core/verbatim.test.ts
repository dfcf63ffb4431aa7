import { describe, expect, it } from "vitest";
import type { ContextWindow } from "../../src/core/context.ts";
import { buildWindows } from "../../src/core/context.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { GroundednessSettings } from "../../src/core/result.ts";
import { VERBATIM_NOTE, createVerbatimMatcher, normaliseSentence } from "../../src/core/verbatim.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 2, tokenBudget: 40 };

describe("verbatim claims", () => {
  it("normalise a sentence by NFC, width, case, whitespace, surrounding quotes and one final full stop only", () => {
    expect(normaliseSentence("  “The  Sky\nis green.”  ")).toBe("the sky is green");
    expect(normaliseSentence("“It rained”.")).toBe("it rained");
    expect(normaliseSentence("Ｔｈｅ ｓｋｙ ｉｓ ｇｒｅｅｎ．")).toBe("the sky is green");
    // Punctuation inside the sentence stays: "3.5" is not "35".
    expect(normaliseSentence("The fee is 3.5%.")).toBe("the fee is 3.5%");
    expect(normaliseSentence(" \"'. ")).toBe("");
  });

  it("keep what changes a sentence's meaning: powers, subscripts, number forms, questions, ellipses and words in capitals", () => {
    expect(normaliseSentence("The dose is 10⁵ units.")).toBe("the dose is 10⁵ units");
    expect(normaliseSentence("Take 1½ tablets.")).toBe("take 1½ tablets");
    expect(normaliseSentence("The sky is green!?")).toBe("the sky is green!?");
    expect(normaliseSentence("The sky is green?")).toBe("the sky is green?");
    expect(normaliseSentence("It will be approved…")).toBe("it will be approved…");
    expect(normaliseSentence("It will be approved...")).toBe("it will be approved...");
    expect(normaliseSentence("Approved by US regulators.")).toBe("approved by US regulators");
    // One capital starts a sentence: "A" and "I" are lower-cased.
    expect(normaliseSentence("A dog barks.")).toBe("a dog barks");
  });

  it("are supported by a window holding them as a whole sentence, with no model call for that window", async () => {
    const backend = createFakeBackend();
    const context = "The museum opens at nine. Entry costs ten euros.";
    const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: "the museum  opens at nine", context });
    expect(result.verdict).toBe("grounded");
    expect(result.claims[0]).toMatchObject({ verdict: "supported", score: 1, notes: [VERBATIM_NOTE] });
    expect(backend.calls.flat()).toHaveLength(0);
    expect(result.entailmentCalls).toBe(0);
    expect(result.callsSaved).toEqual({ verbatim: 1, cache: 0, triage: 0 });
  });

  it("are not a sentence that only holds them: a negated or embedded sentence goes to the model", async () => {
    const backend = createFakeBackend({ classify: (pairs) => Promise.resolve(pairs.map(() => ({ entailment: 0.02, neutral: 0.08, contradiction: 0.9 }))) });
    const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: "The sky is green.", context: "It is not true that the sky is green. Grass is green." });
    expect(backend.calls.flat().map((p) => p.hypothesis)).toContain("The sky is green.");
    expect(result.claims[0]?.verdict).toBe("contradicted");
    expect(result.claims[0]?.notes).not.toContain(VERBATIM_NOTE);
    expect(result).not.toHaveProperty("callsSaved");
  });

  it("are not matched against the part of a sentence cut at the token budget", () => {
    const long = `The sky is green ${"and the rest of a very long run-on sentence ".repeat(6)}indeed.`;
    const windows = buildWindows(long, testAnalyzer(), { tokenBudget: 16 });
    expect(windows[0]?.sentences[0]?.part).toBe(true);
    const first = windows[0];
    if (!first) throw new Error("no window");
    const piece = first.sentences[0];
    const pieceText = piece ? long.slice(piece.start, piece.end) : "";
    expect(createVerbatimMatcher().states(first, pieceText)).toBe(false);
  });

  it("are looked up in time linear in the window's text", () => {
    const sentence = "Refunds are available within thirty days of delivery. ";
    const make = (n: number): ContextWindow => {
      const text = sentence.repeat(Math.max(1, Math.floor(n / sentence.length)));
      const sentences = [];
      for (let at = 0; at < text.length; at += sentence.length) sentences.push({ start: at, end: at + sentence.length, terms: [] });
      return { id: 0, doc: 0, start: 0, end: text.length, text, tokens: 0, terms: [], sentences };
    };
    expectLinear("verbatim lookup over a window's sentences", measureGrowth(make, (w) => createVerbatimMatcher().states(w, "A claim not in the window."), { n: 12_500, maxN: 12_500 }));
    const spaced = (n: number): string => `"${" \u201C".repeat(n)}x${". \u201D".repeat(n)}`;
    // Two-byte text: 1,250 repeats against 10,000 (80 KB) stays under V8's 128 KiB large-object size.
    expectLinear("normalising quotes, spaces and final punctuation", measureGrowth(spaced, (t) => normaliseSentence(t), { n: 1250, maxN: 1250 }));
    // Words of capitals, one-letter words, full-width forms and marks: the width and case passes are one pass each.
    // 11 characters a repeat, and an array slot per character in the case pass: 120 against 960 repeats (≈ 10,600 slots) stays under the large-object size.
    const words = (n: number): string => `${"US ａ Ｂ e\u0301 ".repeat(n)}${"X".repeat(n)}y`;
    expectLinear("folding width and case", measureGrowth(words, (t) => normaliseSentence(t), { n: 120, maxN: 120 }));
  });

  // redteam-4 M5: each context sentence and claim differ in meaning, and were decided "verbatim" (entailment 1, no model call).
  const MEANING_CHANGED: ReadonlyArray<readonly [string, string, string]> = [
    ["a power is not its digits", "The maximum daily dose is 10⁵ units.", "The maximum daily dose is 105 units."],
    ["a cube is not its digits", "The tank holds 2³ cubic metres.", "The tank holds 23 cubic metres."],
    ["a question does not state its assertion", "The drug is safe for children?", "The drug is safe for children."],
    ["a sentence that trails off (…) is not the assertion", "The merger will be approved…", "The merger will be approved."],
    ["a sentence that trails off (...) is not the assertion", "The merger will be approved...", "The merger will be approved."],
    ["a word in capitals is not the lower-case word", "The merger was approved by US regulators.", "The merger was approved by us regulators."],
    // Folds that keep the meaning but are not width: decided by the model, the safe side ("1½" under NFKC is "11⁄2").
    ["a mixed number is not its compatibility digits", "Take 1½ tablets.", "Take 11⁄2 tablets."],
    ["a vulgar fraction is not spelled out", "Add ½ cup of sugar.", "Add 1⁄2 cup of sugar."],
    ["a Roman numeral character is not letters", "Chapter Ⅻ covers refunds.", "Chapter XII covers refunds."],
    ["a subscript is not a digit", "The plant emits CO₂ at night.", "The plant emits CO2 at night."],
  ];

  // What is verbatim still is, with no model call.
  const STILL_VERBATIM: ReadonlyArray<readonly [string, string, string]> = [
    ["the same power", "The maximum daily dose is 10⁵ units.", "the maximum daily dose is 10⁵ units"],
    ["full-width digits and sign", "The deposit is ＄５００.", "The deposit is $500."],
    ["a quoted sentence with its capitals", "“The merger was approved by US regulators.”", "The merger was approved by US regulators"],
    ["the same trailing-off sentence", "The merger will be approved…", "The merger will be approved…"],
  ];

  describe("a claim whose meaning differs from the sentence goes to the model", () => {
    it.each(MEANING_CHANGED)("%s", async (_case, sentence, claim) => {
      const backend = createFakeBackend();
      const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: claim, context: `The office closes at five. ${sentence}` });
      expect(backend.calls.flat().map((p) => p.hypothesis)).toContain(claim);
      expect(result.callsSaved?.verbatim ?? 0).toBe(0);
      expect(result.claims[0]?.notes ?? []).not.toContain(VERBATIM_NOTE);
    });
  });

  describe("a claim the sentence states word for word is still decided without the model", () => {
    it.each(STILL_VERBATIM)("%s", async (_case, sentence, claim) => {
      const backend = createFakeBackend();
      const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: claim, context: `The office closes at five. ${sentence}` });
      expect(result.claims).toHaveLength(1);
      expect(result.claims[0]).toMatchObject({ verdict: "supported", score: 1, notes: [VERBATIM_NOTE] });
      expect(backend.calls.flat()).toHaveLength(0);
      expect(result.callsSaved).toEqual({ verbatim: 1, cache: 0, triage: 0 });
    });
  });
});
