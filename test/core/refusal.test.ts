import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { devDir, loadDevSets } from "../../scripts/devsets.ts";
import { splitClaims } from "../../src/core/claims/index.ts";
import { claimConsistency } from "../../src/core/entropy/claim-consistency.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import { isRefusalAnswer, isRefusalSentence, matchRefusal, plainApostrophes, REFUSALS } from "../../src/core/refusal.ts";
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
  const at = (n: number) => ({ n, maxN: n });
  it.each<readonly [string, (n: number) => string]>([
    ["a refusal, then 'might' and a whitespace run", (n) => `I don't know, might${" ".repeat(n)}x`],
    ["a refusal, then 'about a' and a whitespace run", (n) => `I don't know about a${" ".repeat(n)}x`],
    ["one long word", (n) => "x".repeat(n)],
    ["a refusal, then sentence ends with no space", (n) => `I don't know${".".repeat(n)}`],
  ])("%s grows linearly", (what, make) => {
    expectLinear(what, measureGrowth(make, isRefusalAnswer, at(12_500)));
  });
});

describe("refusal patterns tried one by one, each only after its opening matched", () => {
  // The patterns were one alternation; compiling it cost ~150 ms at first use. Tried in order, each
  // only on a sentence that starts with its opening, they must match exactly what the alternation did.
  const alternation = new RegExp(`^(?:${REFUSALS.map(([opening, rest]) => opening + rest).join("|")})`, "i");
  /** A sentence and every suffix of it from a word start (up to the 12th word), the way openers are set aside. */
  const variants = (text: string): string[] => {
    const words = plainApostrophes(text.trim()).split(" ");
    return words.slice(0, 12).map((_, i) => words.slice(i).join(" "));
  };
  const disagreements = (texts: readonly string[]): string[] => texts.flatMap(variants).filter((v) => matchRefusal(v) !== alternation.exec(v)?.[0]);

  it("match what the single alternation matched on refusals, near misses and the examples' answers and samples", () => {
    const texts = [...DISAGREED, "I cannot answer that. Please ask the support team.", "I only have the 2019 report.", "The information you are looking for is not available in the documents."];
    for (const file of readdirSync("examples").filter((f) => f.endsWith(".jsonl"))) {
      for (const line of readFileSync(join("examples", file), "utf8").split("\n").filter((l) => l.trim() !== "")) {
        const row = JSON.parse(line) as { answer?: unknown; samples?: unknown };
        if (typeof row.answer === "string") texts.push(...row.answer.split(/(?<=[.!?])\s+/));
        if (Array.isArray(row.samples)) texts.push(...row.samples.filter((x): x is string => typeof x === "string"));
      }
    }
    expect(texts.filter((t) => matchRefusal(plainApostrophes(t)) !== undefined).length).toBeGreaterThan(3);
    expect(disagreements(texts)).toEqual([]);
  });

  it.skipIf(!existsSync(devDir()))("match what the single alternation matched on every claim of the dev sets (skipped where they are absent)", () => {
    const claims = [...loadDevSets().values()].flatMap((rows) => rows.map((r) => r.claim));
    expect(claims.length).toBeGreaterThan(1000);
    expect(disagreements(claims)).toEqual([]);
  });
});
