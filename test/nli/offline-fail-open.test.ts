/**
 * Issue 25, section 1: the offline backend let wrong numbers pass and called plain paraphrases
 * unsupported. Each case is the issue's own text, scored through the whole pipeline (claims →
 * windows → offline backend → verdict) as `groundwatch score` scores it.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { GroundednessResult } from "../../src/core/result.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const scorer = await createScorer({ backend: "offline" }, { analyzer: testAnalyzer() });
afterAll(() => scorer.close());

const PRICING =
  "The Starter plan costs $29 per month and includes 3 projects. The Team plan costs $99 per month and includes 20 projects. Annual billing gives a 15% discount on either plan.";
const RETENTION = "Logs are kept for 30 days on the Starter plan and 90 days on the Team plan. Deleted projects can be restored within 7 days.";

const score = (context: string, answer: string): Promise<GroundednessResult> => scorer.score({ context, answer });
const notes = (r: GroundednessResult): string[] => r.claims.flatMap((c) => c.notes);

describe("a number in a claim is read against the sentence the claim is about", () => {
  it("does not let '20 projects' support '20% off': the discount sentence says 15%, a contradiction naming both", async () => {
    const r = await score(PRICING, "Annual billing gives you 20% off.");
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims[0]?.verdict).toBe("contradicted");
    expect(notes(r)).toContain('"20%" where the evidence says "15%"');
  });

  it("does not let the log retention's '30 days' support 'restored within 30 days': the restore sentence says 7 days", async () => {
    const r = await score(RETENTION, "Deleted projects can be restored within 30 days.");
    expect(r.verdict).not.toBe("grounded");
    expect(r.claims[0]?.verdict).toBe("contradicted");
    expect(notes(r)).toContain('"30 days" where the evidence says "7 days"');
  });

  it("still supports the values the aligned sentences state", async () => {
    expect((await score(PRICING, "Annual billing gives you 15% off.")).verdict).toBe("grounded");
    expect((await score(RETENTION, "Deleted projects can be restored within 7 days.")).verdict).toBe("grounded");
    expect((await score(RETENTION, "Logs are kept for 90 days on the Team plan.")).verdict).toBe("grounded");
  });
});

describe("a number is read against the clause of the sentence the claim is about", () => {
  // One sentence states two values of one kind for two plans: the claim's plan decides which.
  it("contradicts '90 days on the Starter plan' where the Starter plan's clause says 30 days", async () => {
    const r = await score(RETENTION, "Logs are kept for 90 days on the Starter plan.");
    expect(r.verdict).not.toBe("grounded");
    expect(r.claims[0]?.verdict).toBe("contradicted");
    expect(notes(r)).toContain('"90 days" where the evidence says "30 days"');
  });

  it("contradicts '30 days on the Team plan', whose clause has no verb of its own and borrows 'logs are kept'", async () => {
    const r = await score(RETENTION, "Logs are kept for 30 days on the Team plan.");
    expect(r.claims[0]?.verdict).toBe("contradicted");
    expect(notes(r)).toContain('"30 days" where the evidence says "90 days"');
  });

  it("supports each plan's own value, and both in one claim, and catches them swapped", async () => {
    expect((await score(RETENTION, "Logs are kept for 30 days on the Starter plan.")).verdict).toBe("grounded");
    expect((await score(RETENTION, "Logs are kept for 90 days on the Team plan.")).verdict).toBe("grounded");
    expect((await score(RETENTION, "Logs are kept for 30 days on Starter and 90 days on Team.")).verdict).toBe("grounded");
    const swapped = await score(RETENTION, "Logs are kept for 90 days on Starter and 30 days on Team.");
    expect(swapped.claims.every((c) => c.verdict === "contradicted")).toBe(true);
  });

  it("keeps a range one clause: 'between 2019 and 2021' supports 'from 2019 to 2021'", async () => {
    const r = await score("The company operated its Berlin office between 2019 and 2021.", "The company operated its Berlin office from 2019 to 2021.");
    expect(r.verdict).toBe("grounded");
  });
});

describe("paraphrases any reader accepts are supported", () => {
  it("'anytime' for 'at any time' (a compound written joined)", async () => {
    const r = await score("You can cancel your subscription at any time from the billing page.", "You can cancel your subscription anytime from the billing page.");
    expect(r.verdict).toBe("grounded");
  });

  it("'store up to 50 GB' for 'may hold up to 50 GB of storage' (another form of the word)", async () => {
    const r = await score("Each workspace may hold up to 50 GB of storage.", "Each workspace can store up to 50 GB.");
    expect(r.verdict).toBe("grounded");
  });

  it("'holds SOC 2 Type II certification' for 'is SOC 2 Type II certified' (a support verb and a nominalisation)", async () => {
    const r = await score("The company is SOC 2 Type II certified.", "The company holds SOC 2 Type II certification.");
    expect(r.verdict).toBe("grounded");
  });
});
