import { describe, expect, it } from "vitest";
import type { ScoreOptions } from "../../src/config/score-options.ts";
import type { Observation, Evaluation } from "../../src/scoring/scorer.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { factsBackend } from "../core/facts-backend.ts";

const Q = "Where was the Zorbex Protocol signed, and when was it ratified?";
const BASE = {
  question: Q,
  context: ["The Zorbex Protocol was signed in Berlin.", "The parliament ratified it in 1998."],
  answer: "The Zorbex Protocol was signed in Berlin. It was ratified in 1998.",
};
const CONSISTENT = ["Signed in Berlin, ratified in 1998.", "It was signed in Berlin and ratified in 1998.", "Berlin; 1998.", "In Berlin, and it was ratified in 1998.", "Berlin, then ratification in 1998."];
const CONFABULATED = ["Signed in Berlin, ratified in 2004.", "It was signed in Berlin and ratified in 1976.", "Berlin; 1998.", "In Berlin, and it was ratified in 2011.", "Berlin, then ratification in 1987."];

async function score(observation: Observation, options: ScoreOptions = {}, env: NodeJS.ProcessEnv = {}): Promise<Evaluation> {
  const scorer = await createScorer(options, { backend: factsBackend(), analyzer: testAnalyzer(), env });
  try {
    return await scorer.score(observation);
  } finally {
    await scorer.close();
  }
}

describe("scorer: claim-level consistency", () => {
  it("gives every claim resampleSupport and lists no unstable claim when the resamples agree", async () => {
    const r = await score({ ...BASE, samples: CONSISTENT });
    expect(r.verdict).toBe("grounded");
    expect(r.claims.map((c) => c.resampleSupport)).toEqual([
      { supported: 5, contradicted: 0, of: 5 },
      { supported: 5, contradicted: 0, of: 5 },
    ]);
    expect(r.unstableClaims).toEqual([]);
    expect(r.claimConsistency).toMatchObject({ claims: 2, measured: 2, unstable: 0, reliable: true, unstableShare: 0.5 });
    expect(r.combined?.verdict).toBe("pass");
  });

  it("names the made-up claim of a grounded answer, while the claim every resample repeats stays stable", async () => {
    const r = await score({ ...BASE, samples: CONFABULATED });
    expect(r.verdict).toBe("grounded");
    expect(r.unstableClaims).toEqual([{ index: 1, text: "It was ratified in 1998.", start: 42, end: 66, resampleSupport: { supported: 1, contradicted: 4, of: 5 } }]);
    expect(r.claims[0]?.resampleSupport).toEqual({ supported: 5, contradicted: 0, of: 5 });
    // Reported, not gated on, unless the policy asks.
    expect(r.combined?.reasons.join(" ")).not.toContain("unstable");
  });

  it("fails the combined verdict on an unstable claim with failOnUnstableClaims, naming it", async () => {
    const r = await score({ ...BASE, samples: CONFABULATED }, { failOnUnstableClaims: true, combinedPolicy: "groundedness-only" });
    expect(r.combined).toEqual({ verdict: "fail", reasons: ["unstable: 1 of 2 claims entailed by fewer than 50% of 5 resamples: claim 1 (1 of 5)"] });
    const env = await score({ ...BASE, samples: CONFABULATED }, { combinedPolicy: "groundedness-only" }, { GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS: "1", GROUNDWATCH_UNSTABLE_SHARE: "0.1" });
    // Supported by 1 of 5 = 20%, not below 10%: stable under that share.
    expect(env.unstableClaims).toEqual([]);
    expect(env.combined?.verdict).toBe("pass");
  });

  it("is unscorable, never pass, on identical resamples, which count as no evidence of stability", async () => {
    const r = await score({ ...BASE, samples: Array.from({ length: 4 }, () => "Signed in Berlin, ratified in 1998.") }, { failOnUnstableClaims: true, combinedPolicy: "groundedness-only" });
    expect(r.claimConsistency).toMatchObject({ degenerate: true, reliable: false, distinct: 1, entailmentCalls: 2 });
    expect(r.combined?.verdict).toBe("unscorable");
    expect(r.combined?.reasons[0]).toMatch(/^claim stability unreliable: all 4 samples are identical/);
  });

  it("stays within the observation's entailment budget: the rest get no support, the limit is named, nothing passes as stable", async () => {
    const answer = `${BASE.answer} The signing in Berlin came first.`;
    const full = await score({ ...BASE, answer, samples: CONSISTENT });
    expect(full.claimConsistency).toMatchObject({ claims: 3, measured: 3, entailmentCalls: 15 });
    // Groundedness, then room for entropy's worst case (5 × 4 pairs), of which it uses 8: 12 left, two claims' worth.
    expect(full.entropy?.entailmentCalls).toBe(8);
    const budget = full.entailmentCalls + 20;
    const r = await score({ ...BASE, answer, samples: CONSISTENT }, { maxEntailmentCalls: budget, failOnUnstableClaims: true });
    expect(r.entropy?.reliable).toBe(true);
    expect(r.limits).toContain("entailment_calls");
    expect(r.claims.map((c) => c.resampleSupport)).toEqual([{ supported: 5, contradicted: 0, of: 5 }, { supported: 5, contradicted: 0, of: 5 }, undefined]);
    expect(r.claims[2]).not.toHaveProperty("resampleSupport");
    expect(r.claimConsistency).toMatchObject({ measured: 2, unstable: 0, overBudget: true, reliable: false, entailmentCalls: 10 });
    expect(r.unstableClaims).toEqual([]);
    expect(r.combined?.verdict).toBe("unscorable");
    expect(r.combined?.reasons.join(" ")).toContain("claim stability not measured: entailment budget 12 reached: 1 of 3 claims not checked");
    expect(r.entailmentCalls + (r.entropy?.entailmentCalls ?? 0) + (r.claimConsistency?.entailmentCalls ?? 0)).toBeLessThanOrEqual(budget);
  });

  it("still fails on a measured unstable claim when the budget left later claims unmeasured", async () => {
    const answer = "It was ratified in 1998. The Zorbex Protocol was signed in Berlin.";
    const full = await score({ ...BASE, answer, samples: CONFABULATED });
    const entropy = full.entropy?.entailmentCalls ?? 0;
    // Entropy's worst case fits, and after it one claim's five pairs.
    const budget = full.entailmentCalls + Math.max(20, entropy + 5);
    const r = await score({ ...BASE, answer, samples: CONFABULATED }, { maxEntailmentCalls: budget, failOnUnstableClaims: true, combinedPolicy: "groundedness-only" });
    expect(r.unstableClaims?.map((c) => c.text)).toEqual(["It was ratified in 1998."]);
    expect(r.claimConsistency).toMatchObject({ measured: 1, overBudget: true });
    expect(r.combined?.verdict).toBe("fail");
  });

  it("batches the claim checks in one backend call and reuses them for the same observation", async () => {
    const backend = factsBackend();
    const scorer = await createScorer({}, { backend, analyzer: testAnalyzer() });
    const first = await scorer.score({ ...BASE, samples: CONFABULATED });
    const hypotheses = new Set(BASE.answer.split(/(?<=\.) /));
    const consistencyBatches = backend.calls.filter((batch) => batch.every((p) => hypotheses.has(p.hypothesis) && p.premise.startsWith(Q)));
    expect(consistencyBatches).toHaveLength(1);
    expect(first.claimConsistency?.entailmentCalls).toBe(10);
    const again = await scorer.score({ ...BASE, samples: CONFABULATED });
    expect(again.claimConsistency?.entailmentCalls).toBe(0);
    expect(again.unstableClaims).toEqual(first.unstableClaims);
    await scorer.close();
  });

  it("judges a short set against `requested`: entropy and claim stability both unreliable", async () => {
    const r = await score({ ...BASE, samples: CONSISTENT.slice(0, 3), requested: 5 }, { failOnUnstableClaims: true });
    expect(r.entropy?.reasons[0]).toContain("received 3 of 5 requested samples");
    expect(r.claimConsistency).toMatchObject({ degenerate: true, reliable: false });
    expect(r.claimConsistency?.reasons[0]).toContain("received 3 of 5 requested samples");
    expect(r.combined?.verdict).toBe("unscorable");
    // A set cut at maxSamples is reported as the "samples" limit, not as a short batch.
    const cut = await score({ ...BASE, samples: [...CONSISTENT, ...CONSISTENT], requested: 10 }, { maxSamples: 4 });
    expect(cut.limits).toContain("samples");
    expect(cut.claimConsistency).toMatchObject({ samples: 4, reliable: true });
  });

  it("leaves answers without samples as they were", async () => {
    const r = await score(BASE);
    expect(r).not.toHaveProperty("unstableClaims");
    expect(r).not.toHaveProperty("claimConsistency");
    for (const c of r.claims) expect(c).not.toHaveProperty("resampleSupport");
  });

  it("adds no claim consistency to an unscorable answer", async () => {
    const r = await score({ ...BASE, context: [], samples: CONFABULATED });
    expect(r.verdict).toBe("unscorable");
    expect(r).not.toHaveProperty("claimConsistency");
    expect(r.combined?.verdict).toBe("unscorable");
  });
});
