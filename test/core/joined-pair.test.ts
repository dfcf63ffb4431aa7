import { describe, expect, it } from "vitest";
import type { ContextInput, ContextWindow } from "../../src/core/context.ts";
import { joinTerms, joinedPair } from "../../src/core/joined-pair.ts";
import { planClaimChecks } from "../../src/core/plan.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const SETTINGS = { threshold: 0.5, topK: 3, tokenBudget: 400 };

/** The joined pair the plan of one claim against a context gives, from its checked windows. */
function joinFor(claim: string, context: ContextInput, tokenBudget = SETTINGS.tokenBudget) {
  const plan = planClaimChecks(claim, context, testAnalyzer(), { ...SETTINGS, tokenBudget });
  return joinedPair(plan.checks[0] ?? [], plan.terms[0] ?? [], plan.windows);
}

describe("the joined pair of a claim that joins two facts", () => {
  it("joins the two sentences that together state every content word of the claim, in reading order", () => {
    const pair = joinFor("The Team plan includes 5 seats and priority support.", ["The Team plan includes priority support.", "The Team plan includes 5 seats."]);
    expect(pair?.premise).toBe("The Team plan includes priority support. The Team plan includes 5 seats.");
    expect(pair?.first.window.doc).toBe(0);
    expect(pair?.second.window.doc).toBe(1);
    expect(pair?.second.span).toEqual({ start: 0, end: 31, text: "The Team plan includes 5 seats." });
  });

  it("joins sentences of one document that its windows hold apart", () => {
    const filler = "Our offices are in Lisbon and Porto, with staff who answer in four languages.";
    const context = `The Team plan includes 5 seats. ${filler} ${filler} The Team plan includes priority support.`;
    const pair = joinFor("The Team plan includes 5 seats and priority support.", context, 24);
    expect(pair?.premise).toBe("The Team plan includes 5 seats. The Team plan includes priority support.");
    expect(pair?.second.span.start).toBe(context.indexOf("The Team plan includes priority"));
  });

  it("joins nothing when one window holds both sentences: the backend reads them together there", () => {
    expect(joinFor("The Team plan includes 5 seats and priority support.", "The Team plan includes 5 seats. The Team plan includes priority support.")).toBeUndefined();
  });

  it("joins nothing when a content word of the claim is in neither sentence", () => {
    expect(joinFor("The Team plan includes 9 seats and priority support.", ["The Team plan includes 5 seats.", "The Team plan includes priority support."])).toBeUndefined();
  });

  it("joins nothing when one sentence states the claim's words alone", () => {
    expect(joinFor("The Team plan includes priority support.", ["The Team plan includes 5 seats.", "The Team plan includes priority support."])).toBeUndefined();
  });
});

describe("the terms a claim with a relative amount is joined by", () => {
  const prices = ["The Basic plan costs $10 per month.", "The Pro plan costs $25 per month."];
  const joinBy = (claim: string, context: ContextInput) => {
    const plan = planClaimChecks(claim, context, testAnalyzer(), SETTINGS);
    return joinedPair(plan.checks[0] ?? [], joinTerms(plan.terms[0] ?? [], testAnalyzer().analyze(claim)), plan.windows);
  };

  it("leaves out the number of a difference, which no sentence states: '$15 more than Basic' joins the two prices", () => {
    expect(joinTerms(["pro", "plan", "cost", "15", "basic"], testAnalyzer().analyze("The Pro plan costs $15 more than Basic."))).toEqual(["pro", "plan", "cost", "basic"]);
    expect(joinBy("The Pro plan costs $15 more than Basic.", prices)?.premise).toBe("The Basic plan costs $10 per month. The Pro plan costs $25 per month.");
  });

  it("keeps a plain number: a claim stating a price no sentence states is not joined", () => {
    expect(joinTerms(["pro", "plan", "cost", "15", "basic"], testAnalyzer().analyze("The Pro plan costs $15 and Basic too."))).toContain("15");
    expect(joinBy("The Pro plan and the Basic plan cost $15 per month.", prices)).toBeUndefined();
  });
});

/** One window of one sentence holding `terms`, as document `doc`. */
function windowOf(id: number, terms: readonly string[]): ContextWindow {
  const text = terms.join(" ");
  return { id, doc: id, start: 0, end: text.length, text, tokens: terms.length, terms, sentences: [{ start: 0, end: text.length, terms }] };
}

describe("the joined pair's cost", () => {
  it("grows linearly with the claim's terms and the checked windows' (a long claim citing many documents)", () => {
    // The first window holds half the claim's terms; each of the others one term of the other half:
    // comparing every sentence with every term the first lacks would be quadratic.
    const make = (n: number) => {
      const terms = Array.from({ length: n }, (_, i) => `t${i}`);
      const checked = [windowOf(0, terms.slice(0, n / 2)), ...terms.slice(n / 2).map((t, i) => windowOf(i + 1, [t]))];
      return { terms, checked };
    };
    const growth = measureGrowth(make, ({ terms, checked }) => joinedPair(checked, terms, checked), { n: 400, maxN: 400 });
    expectLinear("joinedPair over n claim terms and n windows", growth);
  });
});
