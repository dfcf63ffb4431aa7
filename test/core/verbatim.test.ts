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
  it("normalise a sentence by NFKC, case, whitespace, surrounding quotes and final punctuation only", () => {
    expect(normaliseSentence("  “The  Sky\nis GREEN.”  ")).toBe("the sky is green");
    expect(normaliseSentence("The sky is green!?")).toBe("the sky is green");
    expect(normaliseSentence("Ｔｈｅ ｓｋｙ ｉｓ ｇｒｅｅｎ．")).toBe("the sky is green");
    // Punctuation inside the sentence stays: "3.5" is not "35".
    expect(normaliseSentence("The fee is 3.5%.")).toBe("the fee is 3.5%");
    expect(normaliseSentence(" \"'. ")).toBe("");
  });

  it("are supported by a window holding them as a whole sentence, with no model call for that window", async () => {
    const backend = createFakeBackend();
    const context = "The museum opens at nine. Entry costs ten euros.";
    const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: "the museum  opens at nine", context });
    expect(result.verdict).toBe("grounded");
    expect(result.claims[0]).toMatchObject({ verdict: "supported", score: 1, notes: [VERBATIM_NOTE] });
    expect(backend.calls.flat()).toHaveLength(0);
    expect(result.entailmentCalls).toBe(0);
    expect(result.callsSaved).toEqual({ verbatim: 1, cache: 0 });
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
  });
});
