/**
 * Numbers bound to what they are about, on the offline backend: a price is not matched to the
 * number of a duration, a count to the count of another noun, or a claim's amount to an amount of
 * another document about another thing; a difference or ratio of two stated amounts is stated.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Quantity } from "../../src/core/quantities.ts";
import { extractQuantities } from "../../src/core/quantities.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { MAX_ARITHMETIC_OPERANDS, aboutAnotherThing, sentenceSubject, statedByArithmetic } from "../../src/nli/offline/quantity-binding.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const backend = createOfflineBackend({ analyzer: testAnalyzer() });
afterAll(() => backend.close());
const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: backend.recommendedThreshold ?? 0.5, topK: 3, tokenBudget: 400 });

const verdictOf = async (answer: string, context: string | string[]): Promise<string | undefined> => (await scorer.score({ answer, context })).claims[0]?.verdict;

const subjectOf = (text: string): string[] => {
  const doc = testAnalyzer().analyze(text);
  return [...sentenceSubject(doc.tokens, extractQuantities(doc))];
};

const quantities = (text: string): Quantity[] => extractQuantities(testAnalyzer().analyze(text));
const first = (text: string): Quantity => {
  const [q] = quantities(text);
  if (!q) throw new Error(`no quantity in ${text}`);
  return q;
};

describe("a number bound to its unit (scored)", () => {
  const evidence = "The pharmacy charges $10 for a 30-day supply.";

  it("contradicts a price that only matches the number of a duration (regression: '$30' was matched by '30-day')", async () => {
    expect(await verdictOf("The pharmacy charges $30 for a 30-day supply.", evidence)).toBe("contradicted");
    expect(await verdictOf("A 30-day supply costs $30.", evidence)).toBe("contradicted");
  });

  it("supports the price the evidence states", async () => {
    expect(await verdictOf("The pharmacy charges $10 for a 30-day supply.", evidence)).toBe("supported");
    expect(await verdictOf("A 30-day supply is $10 at the pharmacy.", evidence)).toBe("supported");
  });
});

describe("a count bound to its noun (scored)", () => {
  const evidence = "The clinic has 3 doctors and 9 nurses.";

  it("contradicts a count of nurses that is the count of doctors (regression: grounded at 0.78)", async () => {
    expect(await verdictOf("The clinic has 3 nurses.", evidence)).toBe("contradicted");
  });

  it("supports the count of the same noun", async () => {
    expect(await verdictOf("The clinic has 9 nurses.", evidence)).toBe("supported");
  });
});

describe("numbers compared only with evidence about the claim's subject", () => {
  const documents = ["Physiotherapy costs $40 per visit on the Standard plan.", "An emergency visit costs $350 on the Standard plan."];

  it("reads a sentence's subject before its verb or number, past a fronted phrase", () => {
    expect(subjectOf("On the Standard plan, physiotherapy is $40 a visit.")).toEqual(["physiotherapy"]);
    expect(subjectOf("An emergency visit costs $350 on the Standard plan.")).toEqual(["emergency", "visit", "cost"]);
    expect(subjectOf("It costs $5.")).toEqual([]);
  });

  it("finds a sentence about another thing only when each side names a subject the other lacks", () => {
    const claimLemmas = new Set(["standard", "plan", "physiotherapy", "visit"]);
    const emergency = { lemmas: new Set(["emergency", "visit", "cost", "standard", "plan"]), subject: new Set(["emergency", "visit", "cost"]) };
    expect(aboutAnotherThing(new Set(["physiotherapy"]), claimLemmas, emergency)).toBe(true);
    expect(aboutAnotherThing(new Set(["visit"]), claimLemmas, emergency)).toBe(false);
    expect(aboutAnotherThing(new Set(), claimLemmas, emergency)).toBe(false);
  });

  it("does not contradict a right answer with another document's amount for another thing (regression: contradicted by $350)", async () => {
    const r = await scorer.score({ answer: "On the Standard plan, physiotherapy is $40 a visit.", context: documents });
    expect(r.claims[0]?.verdict).toBe("supported");
    expect(r.verdict).toBe("grounded");
  });

  it("still contradicts a wrong amount for the same subject", async () => {
    expect(await verdictOf("On the Standard plan, physiotherapy is $50 a visit.", documents)).toBe("contradicted");
  });
});

describe("amounts worked out from two stated ones", () => {
  const prices = "The Basic plan costs $10 per month. The Pro plan costs $25 per month.";

  it("supports a difference of two stated amounts and does not support another (regression: '$15 more' was contradicted by $10)", async () => {
    expect(await verdictOf("The Pro plan costs $15 more than Basic.", prices)).toBe("supported");
    expect(await verdictOf("The Pro plan costs $20 more than Basic.", prices)).not.toBe("supported");
  });

  it("supports a difference of amounts stated in two documents (regression: contradicted by the $10 of one of them)", async () => {
    const documents = ["The Basic plan costs $10 per month.", "The Pro plan costs $25 per month."];
    expect(await verdictOf("The Pro plan costs $15 more than Basic.", documents)).toBe("supported");
    expect(await verdictOf("The Pro plan costs $20 more than Basic.", documents)).not.toBe("supported");
  });

  it("supports a ratio of two stated amounts and not another", async () => {
    const doubled = "The Basic plan costs $10 per month. The Pro plan costs $20 per month.";
    expect(await verdictOf("The Pro plan costs twice as much as the Basic plan.", doubled)).toBe("supported");
    expect(await verdictOf("The Pro plan costs three times as much as the Basic plan.", doubled)).not.toBe("supported");
  });

  it("works out differences, ratios and sums of amounts of one kind and unit", () => {
    const evidence = quantities("Basic is $10, Pro is $25, and setup takes 15 days.");
    expect(statedByArithmetic(first("$15 more than Basic"), evidence)?.map((e) => e.text)).toEqual(["$10", "$25"]);
    expect(statedByArithmetic(first("$35 in total"), evidence)?.map((e) => e.text)).toEqual(["$10", "$25"]);
    expect(statedByArithmetic(first("2.5 times as much"), evidence)?.map((e) => e.text)).toEqual(["$10", "$25"]);
    // 15 days is not $15; a plain amount is never worked out.
    expect(statedByArithmetic(first("$5 more than Basic"), evidence)).toBeUndefined();
    expect(statedByArithmetic(first("It costs $15."), evidence)).toBeUndefined();
  });

  it("considers at most MAX_ARITHMETIC_OPERANDS amounts", () => {
    const many = quantities(Array.from({ length: MAX_ARITHMETIC_OPERANDS + 2 }, (_, i) => `$${1000 * (i + 1)}`).join(", "));
    // $1,000 is the difference of the first two amounts; the first and the last differ by $25,000,
    // but the last lies past the cap, so that difference is not found.
    expect(statedByArithmetic(first("$1000 more than that"), many)).toBeDefined();
    expect(statedByArithmetic(first(`$${1000 * (MAX_ARITHMETIC_OPERANDS + 1)} more than that`), many)).toBeUndefined();
    expect(statedByArithmetic(first(`$${1000 * (MAX_ARITHMETIC_OPERANDS - 1)} more than that`), many)).toBeDefined();
  });

  it("grows linearly with the number of amounts in the evidence", () => {
    const claim = first("$1 more than Basic");
    const growth = measureGrowth(
      (n) => Array.from({ length: n }, (_, i): Quantity => ({ value: 10 * (i + 1) * (i + 1), kind: "money", unit: "usd", text: "$", start: 0, end: 1 })),
      (evidence) => statedByArithmetic(claim, evidence),
      { n: 256, maxN: 4096 },
    );
    expectLinear("a difference against N amounts", growth);
  });
});

describe("number words with units (scored)", () => {
  it("supports 'a dozen' by 12 and contradicts it by 10", async () => {
    expect(await verdictOf("Each carton holds a dozen eggs.", "Each carton holds 12 eggs.")).toBe("supported");
    expect(await verdictOf("Each carton holds a dozen eggs.", "Each carton holds 10 eggs.")).toBe("contradicted");
  });

  it("supports 'within a week' by 7 days", async () => {
    expect(await verdictOf("Refunds are processed within a week.", "Refunds are processed within 7 days.")).toBe("supported");
  });

  it("does not support 24/7 by office hours, and supports it by 24 hours a day, 7 days a week", async () => {
    expect(await verdictOf("Our support team is available 24/7.", "Our support team is available 9 am to 5 pm.")).not.toBe("supported");
    expect(await verdictOf("Our support team is available 24/7.", "Our support team is available 24 hours a day, 7 days a week.")).toBe("supported");
  });
});
