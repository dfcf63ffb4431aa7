/**
 * Paraphrases of product and policy text that the offline backend called unsupported (derivations,
 * day and time phrasing, synonyms of the words plans and prices are written in), and the
 * contradictions between them it must still catch. Scored through the whole pipeline, as
 * `groundwatch score` scores them; the examples are our own.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { GroundednessResult } from "../../src/core/result.ts";
import { opposedIn, paraphrasesOf } from "../../src/nli/offline/paraphrase.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const scorer = await createScorer({ backend: "offline" }, { analyzer: testAnalyzer() });
afterAll(() => scorer.close());

const score = (context: string, answer: string): Promise<GroundednessResult> => scorer.score({ context, answer });
const notes = (r: GroundednessResult): string[] => r.claims.flatMap((c) => c.notes);

describe("paraphrases of policy text are supported", () => {
  it("'pay yearly … save 10% on every tier' for 'pay annually … a 10% discount on all tiers'", async () => {
    expect((await score("Members who pay annually get a 10% discount on all tiers.", "Members who pay yearly save 10% on every tier.")).verdict).toBe("grounded");
  });

  it("'subscribers who pay yearly' for 'customers on annual billing', 'tiers' for 'plans'", async () => {
    const r = await score("Customers on annual billing receive a 10% discount on every plan.", "Subscribers who pay yearly save 10% on all tiers.");
    expect(r.verdict).toBe("grounded");
  });

  it("'an answer within two hours on weekdays' for 'a response within 2 hours, Monday to Friday'", async () => {
    expect((await score("Support tickets get a response within 2 hours, Monday to Friday.", "You get an answer within two hours on weekdays.")).verdict).toBe("grounded");
  });

  it("'Monday to Friday' for 'weekdays' (the day names are not names the evidence lacks)", async () => {
    expect((await score("Phone support is open on weekdays from 9 am to 5 pm.", "Phone support is open Monday to Friday from 9 am to 5 pm.")).verdict).toBe("grounded");
  });

  it("'weekdays' for 'Mon–Fri'", async () => {
    expect((await score("Phone support is open Mon–Fri, 9 am to 5 pm.", "Phone support is open on weekdays, 9 am to 5 pm.")).verdict).toBe("grounded");
  });

  it("'around the clock' for '24 hours a day', and the other way round (the 24 is not a number the evidence lacks)", async () => {
    expect((await score("The help line is available 24 hours a day.", "The help line is available around the clock.")).verdict).toBe("grounded");
    expect((await score("The help line is available around the clock.", "The help line is available 24 hours a day.")).verdict).toBe("grounded");
    expect((await score("Our help line is staffed 24/7.", "The help line is staffed around the clock.")).verdict).toBe("grounded");
  });

  it("'costs' for 'charges', 'the price of' for 'costs', and a wrong amount in either wording still fails", async () => {
    expect((await score("The pharmacy charges $10 for a 30-day supply.", "A 30-day supply costs $10.")).verdict).toBe("grounded");
    expect((await score("The Basic plan costs $12 a month.", "The price of the Basic plan is $12 a month.")).verdict).toBe("grounded");
    expect((await score("The pharmacy charges $10 for a 30-day supply.", "A 30-day supply costs $30.")).verdict).toBe("ungrounded");
    expect((await score("The Basic plan costs $12 a month.", "The price of the Basic plan is $9 a month.")).verdict).toBe("ungrounded");
  });

  it("derivations the stemmer leaves apart: 'delivery' for 'delivered', 'use' for 'usage'; 'tier' for 'level'", async () => {
    expect((await score("Orders are delivered free of charge in Germany.", "Delivery is free of charge in Germany.")).verdict).toBe("grounded");
    expect((await score("Data usage is capped at 5 GB per month.", "You can use up to 5 GB of data per month.")).verdict).toBe("grounded");
    expect((await score("The Gold level includes priority support.", "The Gold tier includes priority support.")).verdict).toBe("grounded");
  });

  it("'gives a prorated refund' for 'refunded pro rata' (a support verb before a noun the evidence states as a verb)", async () => {
    const r = await score("If you cancel mid-cycle, the remaining days are refunded pro rata.", "Cancelling mid-cycle gives a prorated refund.");
    expect(r.verdict).toBe("grounded");
  });

  it("'refunded on a prorated basis' for 'refunded pro rata'", async () => {
    const r = await score("If you cancel mid-cycle, the remaining days are refunded pro rata.", "If you cancel mid-cycle, the remaining days are refunded on a prorated basis.");
    expect(r.verdict).toBe("grounded");
  });
});

describe("contradictions between paraphrase groups stay caught", () => {
  it("'on weekends' against 'Monday to Friday' is not grounded, and says why", async () => {
    const r = await score("Support tickets get a response within 2 hours, Monday to Friday.", "You get an answer within two hours on weekends.");
    expect(r.verdict).toBe("ungrounded");
    expect(notes(r)).toContain('"weekends" where the evidence says "weekdays"');
  });

  it("'monthly' against 'annually' is not grounded, and says why", async () => {
    const r = await score("Members who pay annually get a 10% discount on all tiers.", "Members who pay monthly save 10% on every tier.");
    expect(r.verdict).toBe("ungrounded");
    expect(notes(r)).toContain('"monthly" where the evidence says "yearly"');
  });

  // Regression: main scored this grounded (0.417): every word but "monthly" matched, and "monthly" was only one word missing.
  it("'Monthly billing' against 'Annual billing' with the same discount is not grounded", async () => {
    const r = await score("Annual billing gives a 15% discount on either plan.", "Monthly billing gives a 15% discount on either plan.");
    expect(r.verdict).toBe("ungrounded");
  });

  it("'per year' against 'per month' for the same price is not grounded; 'on weekdays' against 'Saturday and Sunday' is not either", async () => {
    expect((await score("The Starter plan costs $29 per month and includes 3 projects.", "The Starter plan costs $29 per year.")).verdict).toBe("ungrounded");
    expect((await score("The office is open Saturday and Sunday from 10 am.", "The office is open on weekdays from 10 am.")).verdict).toBe("ungrounded");
    expect((await score("The office is open Saturday and Sunday from 10 am.", "The office is open on weekends from 10 am.")).verdict).toBe("grounded");
  });

  // "pay" now matches "Payment": the sentence that denies the possibility must still be read as denying it.
  it("'You can pay by cheque' against 'Payment by cheque is not possible' is contradicted, and says why", async () => {
    const context = "Payment: we accept cards and bank transfers. Payment by cheque is not possible.";
    const r = await score(context, "You can pay by cheque.");
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims[0]?.verdict).toBe("contradicted");
    expect(notes(r)).toContain("evidence says it is not possible, claim says it can be done");
    expect((await score(context, "You can pay by bank transfer.")).verdict).toBe("grounded");
  });

  it("'12 hours a day' against '24 hours a day' is still a contradicted number", async () => {
    const r = await score("The help line is available 24 hours a day.", "The help line is available 12 hours a day.");
    expect(r.claims[0]?.verdict).toBe("contradicted");
  });

  it("'around the clock' against 'Monday to Friday, 9 am to 5 pm' is not grounded", async () => {
    expect((await score("The help line is open Monday to Friday, 9 am to 5 pm.", "The help line is open around the clock.")).verdict).toBe("ungrounded");
  });
});

describe("paraphrase groups", () => {
  const analyzer = testAnalyzer();
  const groupsOf = (text: string): string[] => [...paraphrasesOf(analyzer.analyze(text)).groups].sort();

  it("reads phrases across punctuation and abbreviations, and single words by their lemma", () => {
    expect(groupsOf("Open Mon-Fri.")).toEqual(["weekdays"]);
    expect(groupsOf("Open Saturdays and Sundays.")).toEqual(["weekends"]);
    expect(groupsOf("Refunds are paid pro rata.")).toEqual(["pay", "pro-rata"]);
    expect(groupsOf("Replies arrive daily.")).toEqual(["answer", "daily"]);
  });

  it("does not join different numbers or periods", () => {
    expect(groupsOf("Open 12 hours a day.")).toEqual([]);
    expect(groupsOf("Open every month.")).toEqual(["monthly"]);
  });

  it("finds an opposite only in a sentence about the claim that lacks the claim's own group", () => {
    const claim = paraphrasesOf(analyzer.analyze("The office is open on weekends."));
    const evidence = paraphrasesOf(analyzer.analyze("The shop is open Monday to Friday. The office is open on weekends and Monday to Friday."));
    expect(opposedIn(claim, evidence, (si) => si === 1)).toBeUndefined();
    expect(opposedIn(claim, evidence, (si) => si === 0)).toEqual({ claim: "weekends", evidence: "weekdays" });
    expect(opposedIn(paraphrasesOf(analyzer.analyze("Open on weekdays and weekends.")), evidence, () => true)).toBeUndefined();
  });
});
