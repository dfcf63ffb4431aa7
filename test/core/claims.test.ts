import { describe, expect, it } from "vitest";
import type { AnswerSegment } from "../../src/core/claims/index.ts";
import { splitClaims } from "../../src/core/claims/index.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const split = (text: string): AnswerSegment[] => splitClaims(text, testAnalyzer());
const claimTexts = (text: string): string[] => split(text).filter((s) => s.kind === "claim").map((s) => s.text);

describe("splitClaims", () => {
  it("keeps abbreviations and decimals inside one sentence", () => {
    expect(claimTexts("Dr. Smith paid $1.6 billion on Jan. 5, 2021. The U.S. office closed.")).toEqual([
      "Dr. Smith paid $1.6 billion on Jan. 5, 2021.",
      "The U.S. office closed.",
    ]);
  });

  it("splits bullets and numbered list items into separate claims without their markers", () => {
    const text = "Premium includes:\n- 24/7 phone support\n- Unlimited storage\n1. Setup takes two days.\n2) Billing is monthly.";
    expect(claimTexts(text)).toEqual(["24/7 phone support", "Unlimited storage", "Setup takes two days.", "Billing is monthly."]);
  });

  it("ends a list item at its line even without punctuation", () => {
    expect(claimTexts("- A dedicated manager for every customer\nIt costs $30 a month.")).toEqual([
      "A dedicated manager for every customer",
      "It costs $30 a month.",
    ]);
  });

  it("joins a hard-wrapped paragraph line back into its sentence", () => {
    expect(claimTexts("The tower was built\nfrom 1887 to 1889.")).toEqual(["The tower was built\nfrom 1887 to 1889."]);
  });

  it("keeps a quotation with inner full stops in one claim", () => {
    expect(claimTexts('He said "Stop. Now." and left the room.')).toEqual(['He said "Stop. Now." and left the room.']);
  });

  it("splits two independent clauses joined by a coordinating conjunction", () => {
    expect(claimTexts("The tower was built in 1889, but it was painted in 1900.")).toEqual(["The tower was built in 1889", "it was painted in 1900."]);
    expect(claimTexts("Paris is the capital of France; Berlin is the capital of Germany.")).toEqual([
      "Paris is the capital of France",
      "Berlin is the capital of Germany.",
    ]);
  });

  // Regression: a coordinated noun phrase with a relative clause ("cars and trucks that run …")
  // was cut into two claims, the second a fragment with no main verb.
  it("does not split a coordinated noun phrase followed by a relative clause", () => {
    expect(claimTexts("The company makes cars and trucks that run on hydrogen.")).toEqual(["The company makes cars and trucks that run on hydrogen."]);
    expect(claimTexts("The film is a comedy and drama that was released in 2010.")).toEqual(["The film is a comedy and drama that was released in 2010."]);
    expect(claimTexts("She won the race and he came second.")).toEqual(["She won the race", "he came second."]);
  });

  // Regression: every lower-case sentence start used to be merged into the previous sentence.
  it("splits informal lower-case sentences", () => {
    expect(claimTexts("the tower is in paris. the museum opens at nine.")).toEqual(["the tower is in paris.", "the museum opens at nine."]);
  });

  it("does not split a shared-subject verb phrase", () => {
    expect(claimTexts("He was born in Paris and moved to Rome in 1990.")).toEqual(["He was born in Paris and moved to Rome in 1990."]);
  });

  it.each([
    "The hotel is close to the beach and has a pool.",
    "Paris is the capital of France and is known for its museums.",
    "The device is waterproof and weighs 200 grams.",
    "The company is based in Oslo and employs 300 people.",
    "She was born in 1970 and studied law in Paris.",
  ])("keeps a coordinated predicate with its subject: %j", (text) => {
    expect(claimTexts(text)).toEqual([text]);
  });

  // Regression: the right side of "and" counted as a clause whenever any noun came before a verb,
  // so a coordinated object, a prepositional object, a participle or a relative adverb was cut
  // off as a fragment ("dinner and is closed on Mondays.", "Bergen and employs 300 people.").
  it.each([
    "The restaurant serves lunch and dinner and is closed on Mondays.",
    "The company is based in Oslo and Bergen and employs 300 people.",
    "She was born in 1970 and in 1990 moved to Paris.",
    "The museum has paintings and sculptures dating from the 15th century.",
    "The company sells shoes and bags made in Italy.",
    "She studied law and economics in Paris, where she met her husband.",
    "Customer support answers by chat and email from 8 am to 8 pm.",
    "He speaks English and French and she speaks German.",
  ])("does not cut a right side that is not a clause of its own: %j", (text) => {
    expect(claimTexts(text)).toEqual([text]);
  });

  it.each([
    ["The fee is $5, and the refund window is 30 days.", ["The fee is $5", "the refund window is 30 days."]],
    ["Sales rose 5% and profits fell 2%.", ["Sales rose 5%", "profits fell 2%."]],
    ["X rose; Y fell.", ["X rose", "Y fell."]],
    ["The hotel is new and there are two pools.", ["The hotel is new", "there are two pools."]],
    ["In 1990 she moved to Paris and he stayed in Rome.", ["In 1990 she moved to Paris", "he stayed in Rome."]],
    ["Sales and profits rose and costs fell.", ["Sales and profits rose", "costs fell."]],
    ["The store sells bread and milk, and the cafe sells coffee.", ["The store sells bread and milk", "the cafe sells coffee."]],
    ["The store sells bread and milk; the cafe sells coffee.", ["The store sells bread and milk", "the cafe sells coffee."]],
    // Regression: the cut fell between the coordinated "Nepal and China" instead of at ", and".
    ["Mount Everest lies on the border between Nepal and China, and it is the tallest mountain in Africa.", ["Mount Everest lies on the border between Nepal and China", "it is the tallest mountain in Africa."]],
  ])("still splits two independent clauses: %j", (text, parts) => {
    expect(claimTexts(text)).toEqual(parts);
  });

  // Linear, not fast: the cost from N to 8N is compared (CPU time, test/helpers/growth.ts), no wall-clock bound.
  const chainOf = (n: number): string => Array.from({ length: n }, (_, i) => `${"abcdefghijklmnopqrstuvwxyz"[i % 26] ?? "a"} and`).join(" ") + " z.";
  const clausesOf = (n: number): string => Array.from({ length: n }, () => "the fee rose and").join(" ") + " the fee fell.";

  it("judges a long chain of conjunctions as one claim, and a long run of clauses as one claim each", () => {
    const chain = chainOf(84_000);
    const clauses = clausesOf(25_000);
    expect(chain.length).toBeGreaterThan(500_000);
    expect(clauses.length).toBeGreaterThan(400_000);
    expect(claimTexts(chain)).toHaveLength(1);
    expect(claimTexts(clauses)).toHaveLength(25_001);
  });

  it("judges a chain of conjunctions and a run of clauses in linear time", () => {
    // No analysis cache: with one, every run after the first of a size that fits it is a cache hit, and
    // one that does not fit (the larger) is analysed each time. The larger texts' 8,000 tokens stay
    // under V8's 128 KiB large-object size (test/helpers/growth.ts).
    const uncached = createTextAnalyzer({ cacheBytes: 0 });
    const claimsOf = (text: string): AnswerSegment[] => splitClaims(text, uncached);
    expectLinear("a chain of conjunctions", measureGrowth(chainOf, claimsOf, { n: 500, maxN: 500 }));
    expectLinear("a run of clauses", measureGrowth(clausesOf, claimsOf, { n: 250, maxN: 250 }));
  });

  it("returns non-claims as skipped with a reason instead of dropping them", () => {
    const segments = split("Hello! Here is a summary: The fee is $5. Does that help? I'm sorry, but I cannot answer the rest. I agree.");
    expect(segments.map((s) => (s.kind === "claim" ? "claim" : s.reason))).toEqual(["greeting", "meta", "claim", "question", "refusal", "greeting"]);
  });

  it("treats 'the context does not mention' as a refusal, not a claim", () => {
    expect(split("The provided context does not mention a deadline.")[0]).toMatchObject({ kind: "skipped", reason: "refusal" });
  });

  it("skips a bare yes or no as having no checkable content, not as a greeting", () => {
    expect(split("Yes.")).toMatchObject([{ kind: "skipped", reason: "no_content" }]);
    expect(split("no")).toMatchObject([{ kind: "skipped", reason: "no_content" }]);
  });

  it("keeps a bare spelled-out number as a claim", () => {
    expect(claimTexts("nine")).toEqual(["nine"]);
  });

  it("keeps an answer that starts with a filler word when it states something", () => {
    expect(claimTexts("Yes, the refund window is 30 days.")).toEqual(["Yes, the refund window is 30 days."]);
  });

  it("gives offsets that slice the answer back to each segment's text", () => {
    const text = "  Intro:\n\n- First point is 3.5 kg.\n- Second point, and a third one, both hold.\nIs it? The end came in 2020, and nobody noticed.";
    const segments = split(text);
    expect(segments.length).toBeGreaterThan(3);
    for (const s of segments) expect(text.slice(s.start, s.end)).toBe(s.text);
    const claims = segments.filter((s) => s.kind === "claim");
    expect(claims.map((c) => (c.kind === "claim" ? c.index : -1))).toEqual(claims.map((_, i) => i));
  });

  it("returns nothing for an empty answer", () => {
    expect(split("   \n ")).toEqual([]);
  });
});
