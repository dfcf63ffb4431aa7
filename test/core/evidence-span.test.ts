import { describe, expect, it } from "vitest";
import type { ContextWindow } from "../../src/core/context.ts";
import { buildWindows, contentTerms } from "../../src/core/context.ts";
import { contradictingSentence, supportingSentence } from "../../src/core/evidence-span.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

/** The document as one window (a budget it fits in). */
function windowOf(doc: string): ContextWindow {
  const [w] = buildWindows(doc, testAnalyzer(), { tokenBudget: 8192 });
  if (!w) throw new Error("no window");
  return w;
}

const termsOf = (text: string): string[] => contentTerms(testAnalyzer().analyze(text).tokens);

describe("the sentence shown as a claim's evidence", () => {
  it("supporting: the window's sentence sharing the most of the claim's content words, not the window's first", () => {
    const doc = "Our bookshop was founded in 1990 by two brothers. We ship to every country in Europe. Returns are accepted within 30 days of delivery.";
    const span = supportingSentence(windowOf(doc), termsOf("Returns are accepted within 30 days."));
    expect(span.text).toBe("Returns are accepted within 30 days of delivery.");
    expect(doc.slice(span.start, span.end)).toBe(span.text);
  });

  it("supporting: on a tie, the earliest sentence", () => {
    const doc = "The museum opens daily. The museum closes at six. The museum opens at nine.";
    expect(supportingSentence(windowOf(doc), termsOf("The museum is large.")).text).toBe("The museum opens daily.");
  });

  it("supporting: the whole window when it lists no sentences", () => {
    const w: ContextWindow = { id: 0, doc: 0, start: 0, end: 11, text: "Some text.", tokens: 3, terms: [], sentences: [] };
    expect(supportingSentence(w, ["text"])).toEqual({ start: 0, end: 11, text: "Some text." });
  });

  it("contradicting: the sentence holding the conflicting quantity, past one that shares more words without a conflict", () => {
    const doc = "Returns of unused items are accepted at every store. Shipping is free. Returns are accepted within 30 days.";
    const claim = "Returns of unused items are accepted within 90 days.";
    const span = contradictingSentence(windowOf(doc), claim, termsOf(claim), testAnalyzer());
    expect(span.text).toBe("Returns are accepted within 30 days.");
    expect(doc.slice(span.start, span.end)).toBe(span.text);
  });

  it("contradicting: the sentence with the window's number that conflicts with the claim's, as matchQuantity over the window names it, before a sentence sharing more words", () => {
    const doc = "Sales were $1.5bn in 2021. In the fourth quarter of 2022 the company reported a decline in sales.";
    const claim = "The company reported sales of $5bn in 2024.";
    // The claim's first number, $5bn, conflicts with the window's $1.5bn (the number the offline backend's note names).
    expect(contradictingSentence(windowOf(doc), claim, termsOf(claim), testAnalyzer()).text).toBe("Sales were $1.5bn in 2021.");
  });

  it("contradicting: the sentence with the negation the claim lacks", () => {
    const doc = "The policy covers theft of the bicycle. Water damage to the bicycle is not covered by the policy.";
    const claim = "The policy covers water damage to the bicycle.";
    expect(contradictingSentence(windowOf(doc), claim, termsOf(claim), testAnalyzer()).text).toBe("Water damage to the bicycle is not covered by the policy.");
  });

  it("contradicting: the best supporting sentence when no sentence conflicts", () => {
    const doc = "Opening hours vary. The museum opens at nine.";
    const claim = "The museum opens early.";
    expect(contradictingSentence(windowOf(doc), claim, termsOf(claim), testAnalyzer()).text).toBe("The museum opens at nine.");
  });

  it("is read as offsets into the caller's document: evidence is the sentence, its window the context the backend judged", async () => {
    const docs = ["Nothing relevant is here about cats.", "Entry costs ten euros for adults. Children enter free. The museum opens at nine."];
    const scorer = createGroundednessScorer(createFakeBackend(), testAnalyzer(), { threshold: 0.5, topK: 2, tokenBudget: 400 });
    const result = await scorer.score({ answer: "The museum opens at nine.", context: docs });
    const ev = result.claims[0]?.evidence;
    expect(ev).toEqual({ doc: 1, start: docs[1]?.indexOf("The museum"), end: docs[1]?.length, text: "The museum opens at nine.", window: { start: 0, end: docs[1]?.length } });
  });

  it("a contradicted claim's contradicting evidence is the conflicting sentence of its window", async () => {
    const doc = "The shop sells cakes and pies. The shop NOT-bread opens at eight. The shop closes at six.";
    const scorer = createGroundednessScorer(createFakeBackend(), testAnalyzer(), { threshold: 0.5, topK: 2, tokenBudget: 400 });
    const result = await scorer.score({ answer: "The shop sells bread.", context: doc });
    const claim = result.claims[0];
    expect(claim?.verdict).toBe("contradicted");
    // Its nearest support shares the most words; what contradicts it is the sentence with the negation.
    expect(claim?.evidence?.text).toBe("The shop sells cakes and pies.");
    expect(claim?.contradictingEvidence).toMatchObject({ text: "The shop NOT-bread opens at eight.", window: { start: 0, end: doc.length } });
  });
});

describe("choosing the sentence grows linearly", () => {
  // No analysis cache: each run analyses the window afresh, as a new document would be.
  const analyzer = createTextAnalyzer({ cacheBytes: 0 });
  const OPTIONS = { n: 40, repeats: 9 };
  const window = (n: number): ContextWindow => {
    const doc = Array.from({ length: n }, (_, i) => `Parcel ${i} ships within ${i + 2} days and costs ${i + 3} euros.`).join(" ");
    const [w] = buildWindows(doc, analyzer, { tokenBudget: 1_000_000 });
    if (!w) throw new Error("no window");
    return w;
  };
  const claim = "Parcels ship within 90 days and cost 5 euros.";

  it("supporting, in the window's sentences", () => {
    const terms = contentTerms(analyzer.analyze(claim).tokens);
    expectLinear("supportingSentence over a window of n sentences", measureGrowth(window, (w) => supportingSentence(w, terms), OPTIONS));
  });

  it("contradicting, in the window's sentences", () => {
    const terms = contentTerms(analyzer.analyze(claim).tokens);
    expectLinear("contradictingSentence over a window of n sentences", measureGrowth(window, (w) => contradictingSentence(w, claim, terms, analyzer), OPTIONS));
  });

  it("contradicting, in the claim's numbers", () => {
    const w = window(20);
    const make = (n: number): { text: string; terms: string[] } => {
      const text = `Parcels ship within ${Array.from({ length: n }, (_, i) => `${i + 100} days`).join(", ")}.`;
      return { text, terms: contentTerms(analyzer.analyze(text).tokens) };
    };
    // At most 320 against 2,560 numbers: at 640 against 5,120 the larger claim took 660 fresh pages a
    // run, the smaller none, and read ×16.6 on a loaded machine (two suites at once) from page faults alone.
    expectLinear("contradictingSentence for a claim of n numbers", measureGrowth(make, (c) => contradictingSentence(w, c.text, c.terms, analyzer), { ...OPTIONS, maxN: 320 }));
  });
});
