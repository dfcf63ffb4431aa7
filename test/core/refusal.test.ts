import { describe, expect, it } from "vitest";
import { splitClaims } from "../../src/core/claims/index.ts";
import { claimConsistency } from "../../src/core/entropy/claim-consistency.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import { isRefusalAnswer, isRefusalSentence } from "../../src/core/refusal.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { meaningBackend, yearKey } from "../helpers/meaning-backend.ts";
import { factsBackend } from "./facts-backend.ts";

/** Each segment of an answer as "claim" or its skip reason. */
const kinds = (text: string): string[] => splitClaims(text, testAnalyzer()).map((s) => (s.kind === "claim" ? "claim" : s.reason));

// Regression: claims and semantic entropy had a detector each, and these were refusals for claims
// but answers for entropy (its patterns knew no "I'm not able to", no curly apostrophes, no "the
// documents do not mention"), so a set of such samples was measured instead of abstained.
const DISAGREED = ["I'm not able to answer that.", "I’m sorry, I don’t know.", "The documents do not mention the fee."];

describe("one refusal detector for claims, semantic entropy and claim consistency", () => {
  it.each(DISAGREED)("%j is a refusal sentence, a skipped claim and a refusing sample", (text) => {
    expect(isRefusalSentence(text)).toBe(true);
    expect(kinds(text)).toEqual(["refusal"]);
    expect(isRefusalAnswer(text)).toBe(true);
  });

  it("abstains on a set of samples that all refuse", async () => {
    const r = await semanticEntropy({ question: "What is the fee?", samples: DISAGREED, backend: meaningBackend(yearKey) });
    expect(r.abstained).toBe(true);
    expect(r.clusters).toHaveLength(1);
    expect(r.clusters[0]?.refusal).toBe(true);
  });

  it("sends none of them to be judged in claim consistency", async () => {
    const backend = factsBackend();
    const claims = [{ index: 0, text: "The fee is 5 euros.", start: 0, end: 19 }];
    const r = await claimConsistency({ question: "What is the fee?", claims, samples: DISAGREED, backend, analyzer: testAnalyzer(), options: { threshold: 0.5, unstableShare: 0.5, tokenBudget: 400 } });
    expect(backend.calls).toHaveLength(0);
    expect(r.summary.distinct).toBe(0);
  });
});

describe("isRefusalAnswer: a whole sample", () => {
  it.each([
    ["a refusal of several sentences", "I'm sorry. I don't know. The documents do not say."],
    ["a refusal, then courtesy", "I cannot answer that. Please ask the support team."],
    ["a refusal whose topic follows 'about'", "I have no information about the warranty."],
    ["an uncertain sentence that names its topic", "I’m not sure what the fee is."],
    ["surrounding whitespace", "  I don't know.  "],
  ])("refuses: %s", (_what, text) => {
    expect(isRefusalAnswer(text)).toBe(true);
  });

  it.each([
    ["a hedge that names something", "I'm not sure, but I believe it is Canberra."],
    ["a refusal, then a guess in the same sentence", "I don't know, maybe 1998."],
    ["a refusal, then an estimate", "I can't say for certain. It was about five years ago."],
    ["a refusal, then a number", "The documents do not mention it. The fee is 5 euros."],
    ["a statement first", "The fee is 5 euros. I don't know more."],
    ["more than 25 words", `I don't know${" and I cannot say".repeat(6)}.`],
    ["an empty sample", "   "],
  ])("answers: %s", (_what, text) => {
    expect(isRefusalAnswer(text)).toBe(false);
  });
});

describe("isRefusalAnswer: cost on crafted samples", () => {
  const at = (n: number) => ({ n, maxN: n, repeats: 25 });
  it.each<readonly [string, (n: number) => string]>([
    ["a refusal, then 'might' and a whitespace run", (n) => `I don't know, might${" ".repeat(n)}x`],
    ["a refusal, then 'about a' and a whitespace run", (n) => `I don't know about a${" ".repeat(n)}x`],
    ["one long word", (n) => "x".repeat(n)],
    ["a refusal, then sentence ends with no space", (n) => `I don't know${".".repeat(n)}`],
  ])("%s grows linearly", (what, make) => {
    expectLinear(what, measureGrowth(make, isRefusalAnswer, at(25_000)));
  });
});
