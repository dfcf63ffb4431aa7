import { describe, expect, it } from "vitest";
import type { NliResult } from "../../src/core/backend.ts";
import type { ClaimRef } from "../../src/core/entropy/claim-consistency.ts";
import { claimConsistency } from "../../src/core/entropy/claim-consistency.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { factsBackend } from "./facts-backend.ts";

const Q = "Where was the Zorbex Protocol signed, and when was it ratified?";
const CLAIMS: ClaimRef[] = [
  { index: 0, text: "The Zorbex Protocol was signed in Berlin.", start: 0, end: 41 },
  { index: 1, text: "It was ratified in 1998.", start: 42, end: 66 },
];
const CONSISTENT = ["Signed in Berlin, ratified in 1998.", "It was signed in Berlin and ratified in 1998.", "Berlin; 1998.", "In Berlin, and it was ratified in 1998.", "Berlin, then ratification in 1998."];
// Every resample agrees on Berlin; the year is made up each time.
const CONFABULATED = ["Signed in Berlin, ratified in 2004.", "It was signed in Berlin and ratified in 1976.", "Berlin; 1998.", "In Berlin, and it was ratified in 2011.", "Berlin, then ratification in 1987."];

const OPTIONS = { threshold: 0.5, unstableShare: 0.5, tokenBudget: 400 };

describe("claim-level consistency", () => {
  it("finds every claim stable when the resamples say the same things", async () => {
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONSISTENT, backend: factsBackend(), analyzer: testAnalyzer(), options: OPTIONS });
    expect(r.support).toEqual([
      { supported: 5, contradicted: 0, of: 5 },
      { supported: 5, contradicted: 0, of: 5 },
    ]);
    expect(r.unstableClaims).toEqual([]);
    expect(r.summary).toMatchObject({ claims: 2, measured: 2, unstable: 0, samples: 5, distinct: 5, reliable: true, degenerate: false, reasons: [], overBudget: false });
  });

  it("marks the made-up claim unstable and keeps the shared one stable", async () => {
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONFABULATED, backend: factsBackend(), analyzer: testAnalyzer(), options: OPTIONS });
    expect(r.support).toEqual([
      { supported: 5, contradicted: 0, of: 5 },
      { supported: 1, contradicted: 4, of: 5 },
    ]);
    expect(r.unstableClaims).toEqual([{ ...CLAIMS[1], resampleSupport: { supported: 1, contradicted: 4, of: 5 } }]);
    expect(r.summary).toMatchObject({ unstable: 1, reliable: true });
  });

  it("sends each sample as the premise (question first) and each claim as the hypothesis, in one batch", async () => {
    const backend = factsBackend();
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONFABULATED, backend, analyzer: testAnalyzer(), options: OPTIONS });
    expect(backend.calls).toHaveLength(1);
    expect(backend.calls[0]).toHaveLength(10);
    for (const pair of backend.calls[0] ?? []) {
      expect(pair.premise.startsWith(`${Q} `)).toBe(true);
      expect(CLAIMS.map((c) => c.text)).toContain(pair.hypothesis);
    }
    expect(r.summary.entailmentCalls).toBe(10);
    expect(r.summary.naiveCalls).toBe(2 * 5 * 2);
  });

  it("applies the share: a claim entailed by exactly the share is stable, below it unstable", async () => {
    const samples = ["Berlin, 1998.", "Berlin, 1998 it was.", "Berlin, 2004.", "Berlin, 1976."];
    const at = await claimConsistency({ question: Q, claims: CLAIMS, samples, backend: factsBackend(), analyzer: testAnalyzer(), options: { ...OPTIONS, unstableShare: 0.5 } });
    expect(at.support[1]).toEqual({ supported: 2, contradicted: 2, of: 4 });
    expect(at.unstableClaims).toEqual([]);
    const strict = await claimConsistency({ question: Q, claims: CLAIMS, samples, backend: factsBackend(), analyzer: testAnalyzer(), options: { ...OPTIONS, unstableShare: 0.75 } });
    expect(strict.unstableClaims.map((c) => c.index)).toEqual([1]);
    const off = await claimConsistency({ question: Q, claims: CLAIMS, samples: ["Paris, 2004.", "Lyon, 1976."], backend: factsBackend(), analyzer: testAnalyzer(), options: { ...OPTIONS, unstableShare: 0 } });
    expect(off.unstableClaims).toEqual([]);
  });

  it("judges duplicates once and skips refusals, which count in `of` without supporting", async () => {
    const backend = factsBackend();
    const samples = ["Berlin, 1998.", "berlin 1998", "Berlin, 1998.", "I don't know.", "Signed in Berlin, ratified in 2004."];
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples, backend, analyzer: testAnalyzer(), options: OPTIONS });
    expect(r.summary).toMatchObject({ samples: 5, distinct: 2, entailmentCalls: 4 });
    expect(r.support).toEqual([
      { supported: 4, contradicted: 0, of: 5 },
      { supported: 3, contradicted: 1, of: 5 },
    ]);
  });

  it("finds every claim unstable when every resample declines to answer, without a call", async () => {
    const backend = factsBackend();
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: ["I don't know.", "No idea.", "I cannot answer that."], backend, analyzer: testAnalyzer(), options: OPTIONS });
    expect(backend.calls).toHaveLength(0);
    expect(r.unstableClaims.map((c) => c.resampleSupport)).toEqual([
      { supported: 0, contradicted: 0, of: 3 },
      { supported: 0, contradicted: 0, of: 3 },
    ]);
    expect(r.summary.reliable).toBe(true);
  });

  it("reuses cached judgements, also those semantic entropy made", async () => {
    const cache = new Map<string, NliResult>();
    const backend = factsBackend();
    await claimConsistency({ question: Q, claims: CLAIMS, samples: CONFABULATED, backend, analyzer: testAnalyzer(), options: { ...OPTIONS, cache } });
    const again = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONFABULATED, backend, analyzer: testAnalyzer(), options: { ...OPTIONS, cache } });
    expect(backend.calls).toHaveLength(1);
    expect(again.summary.entailmentCalls).toBe(0);
    expect(again.unstableClaims.map((c) => c.index)).toEqual([1]);
    // The two measurements can share one cache: a key is a (premise, hypothesis) pair of the same backend.
    await semanticEntropy({ question: Q, samples: CONFABULATED, backend, options: { cache } });
    expect(cache.size).toBeGreaterThan(10);
  });

  it("cuts a long sample into windows and finds a claim in any of them", async () => {
    const filler = "The delegates met for many long weeks of careful negotiation about trade, fishing rights and borders. ";
    const long = `${filler.repeat(3)}In the end it was signed in Berlin. ${filler.repeat(3)}Ratification came in 1998.`;
    const backend = factsBackend();
    const r = await claimConsistency({ question: "", claims: CLAIMS, samples: [long, "Berlin, 1998."], backend, analyzer: testAnalyzer(), options: { ...OPTIONS, tokenBudget: 24, topK: 2 } });
    expect(r.support).toEqual([
      { supported: 2, contradicted: 0, of: 2 },
      { supported: 2, contradicted: 0, of: 2 },
    ]);
    // No pair carries the whole long sample: each premise is one window within the budget.
    for (const pair of backend.calls.flat()) expect(pair.premise.length).toBeLessThan(long.length / 2);
    // At most topK windows of the long sample per claim, plus the short sample.
    expect(r.summary.entailmentCalls).toBeLessThanOrEqual(CLAIMS.length * (2 + 1));
  });
});

describe("claim-level consistency fails closed", () => {
  it("calls identical resamples degenerate and unreliable, however well they agree", async () => {
    const backend = factsBackend();
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: Array.from({ length: 5 }, () => "Berlin, 1998."), backend, analyzer: testAnalyzer(), options: OPTIONS });
    // Judged once per claim, not five times.
    expect(r.summary.entailmentCalls).toBe(2);
    expect(r.support[0]).toEqual({ supported: 5, contradicted: 0, of: 5 });
    expect(r.summary).toMatchObject({ degenerate: true, reliable: false });
    expect(r.summary.reasons[0]).toMatch(/all 5 samples are identical.*temperature 0, a cache, or a fixed seed/);
  });

  it("calls a short batch, empty samples and a single sample unreliable", async () => {
    const short = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONSISTENT.slice(0, 3), backend: factsBackend(), analyzer: testAnalyzer(), options: { ...OPTIONS, requested: 5 } });
    expect(short.summary.reasons.join(" ")).toContain("received 3 of 5 requested samples");
    const empty = await claimConsistency({ question: Q, claims: CLAIMS, samples: ["Berlin, 1998.", "", "Berlin, 2004."], backend: factsBackend(), analyzer: testAnalyzer(), options: OPTIONS });
    expect(empty.support[0]).toEqual({ supported: 2, contradicted: 0, of: 2 });
    expect(empty.summary).toMatchObject({ degenerate: true, reliable: false });
    const one = await claimConsistency({ question: Q, claims: CLAIMS, samples: ["Berlin, 1998."], backend: factsBackend(), analyzer: testAnalyzer(), options: OPTIONS });
    expect(one.summary.reasons.join(" ")).toContain("fewer than two non-empty samples");
    const none = await claimConsistency({ question: Q, claims: CLAIMS, samples: ["", " "], backend: factsBackend(), analyzer: testAnalyzer(), options: OPTIONS });
    expect(none.support).toEqual([undefined, undefined]);
    expect(none.unstableClaims).toEqual([]);
  });

  it("gives claims past the budget no support, says so, and never calls them stable", async () => {
    const backend = factsBackend();
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONSISTENT, backend, analyzer: testAnalyzer(), options: { ...OPTIONS, maxEntailmentCalls: 7 } });
    expect(r.support).toEqual([{ supported: 5, contradicted: 0, of: 5 }, undefined]);
    expect(backend.calls.flat()).toHaveLength(5);
    expect(r.summary).toMatchObject({ measured: 1, unstable: 0, overBudget: true, reliable: false, degenerate: false, entailmentCalls: 5 });
    expect(r.summary.reasons).toEqual(["entailment budget 7 reached: 1 of 2 claims not checked against the resamples, so their stability is unknown"]);
    const nothing = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONSISTENT, backend: factsBackend(), analyzer: testAnalyzer(), options: { ...OPTIONS, maxEntailmentCalls: 0 } });
    expect(nothing.summary).toMatchObject({ measured: 0, overBudget: true, reliable: false, entailmentCalls: 0 });
  });

  it("reports a backend error without support for any claim", async () => {
    const backend = createFakeBackend({ classify: () => Promise.reject(new Error("NLI server down")) });
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONFABULATED, backend, analyzer: testAnalyzer(), options: OPTIONS });
    expect(r.support).toEqual([undefined, undefined]);
    expect(r.unstableClaims).toEqual([]);
    expect(r.summary).toMatchObject({ measured: 0, reliable: false });
    expect(r.summary.reasons.join(" ")).toContain("NLI server down");
  });

  it("treats invalid probabilities as a backend error", async () => {
    const backend = createFakeBackend({ classify: (pairs) => Promise.resolve(pairs.map(() => ({ entailment: Number.NaN, neutral: 0, contradiction: 0 }))) });
    const r = await claimConsistency({ question: Q, claims: CLAIMS, samples: CONFABULATED, backend, analyzer: testAnalyzer(), options: OPTIONS });
    expect(r.summary.measured).toBe(0);
    expect(r.summary.reasons.join(" ")).toContain("invalid probability");
  });
});
