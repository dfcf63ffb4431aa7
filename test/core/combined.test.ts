import { describe, expect, it } from "vitest";
import type { CombinedPolicy, ConsistencyInput } from "../../src/core/combined.ts";
import type { ClaimConsistency, UnstableClaim } from "../../src/core/entropy/claim-consistency.ts";
import { combineVerdicts } from "../../src/core/combined.ts";
import type { EntropyResult } from "../../src/core/entropy/semantic-entropy.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import type { GroundednessResult } from "../../src/core/result.ts";
import { cityKey, meaningBackend } from "../helpers/meaning-backend.ts";

const BACKEND = { name: "fake", version: "1", tier: "production" as const };
const grounded: GroundednessResult = { verdict: "grounded", score: 0.9, threshold: 0.5, claims: [], skipped: [], backend: BACKEND, limits: [], entailmentCalls: 0 };
const ungrounded: GroundednessResult = { verdict: "ungrounded", score: 0.1, threshold: 0.5, claims: [], skipped: [], backend: BACKEND, limits: [], entailmentCalls: 0 };
const unscorable: GroundednessResult = { verdict: "unscorable", score: null, reason: "empty_context", detail: "", claims: [], skipped: [], backend: BACKEND, limits: [], entailmentCalls: 0 };
const EITHER: CombinedPolicy = { entropyThreshold: 0.5, mode: "either" };
const Q = "Which city is the capital of Australia?";

const measure = (samples: string[]): Promise<EntropyResult> => semanticEntropy({ question: Q, samples, backend: meaningBackend(cityKey) });

describe("combined verdict", () => {
  it("passes a grounded answer whose resamples agree", async () => {
    expect(combineVerdicts(grounded, await measure(["Canberra.", "It is Canberra.", "Canberra, ACT."]), EITHER)).toEqual({ verdict: "pass", reasons: [] });
  });

  it("fails a grounded answer whose resamples disagree in meaning", async () => {
    const v = combineVerdicts(grounded, await measure(["Canberra.", "Sydney.", "Paris."]), EITHER);
    expect(v.verdict).toBe("fail");
    expect(v.reasons[0]).toMatch(/uncertain: normalised semantic entropy 1\.000 at or above 0\.5 \(3 meanings in 3 samples\)/);
  });

  it("fails an ungrounded answer even when resamples agree", async () => {
    expect(combineVerdicts(ungrounded, await measure(["Canberra.", "It is Canberra."]), EITHER).verdict).toBe("fail");
  });

  it("is unscorable, never pass, when the entropy measurement is unreliable", async () => {
    const v = combineVerdicts(grounded, await measure(["Canberra.", "Canberra.", "Canberra."]), EITHER);
    expect(v.verdict).toBe("unscorable");
    expect(v.reasons[0]).toContain("semantic entropy unreliable");
  });

  it("is unscorable when groundedness is", async () => {
    expect(combineVerdicts(unscorable, await measure(["Canberra.", "It is Canberra."]), EITHER)).toEqual({ verdict: "unscorable", reasons: ["groundedness unscorable: empty_context"] });
  });

  it("fails when every resample declines to answer", async () => {
    const v = combineVerdicts(grounded, await measure(["I don't know.", "No idea.", "I cannot answer that."]), EITHER);
    expect(v).toEqual({ verdict: "fail", reasons: ["every resample declined to answer"] });
  });

  it("reports entropy without gating on it under groundedness-only", async () => {
    expect(combineVerdicts(grounded, await measure(["Canberra.", "Sydney.", "Paris."]), { entropyThreshold: 0.5, mode: "groundedness-only" }).verdict).toBe("pass");
  });
});

describe("combined verdict with claim-level consistency", () => {
  const STABLE: ClaimConsistency = { unstableShare: 0.5, claims: 2, measured: 2, unstable: 0, samples: 5, distinct: 5, degenerate: false, reliable: true, reasons: [], entailmentCalls: 10, naiveCalls: 20, overBudget: false };
  const CLAIM: UnstableClaim = { index: 1, text: "It was ratified in 1998.", start: 42, end: 66, resampleSupport: { supported: 1, contradicted: 4, of: 5 } };
  const stable: ConsistencyInput = { summary: STABLE, unstableClaims: [] };
  const unstable: ConsistencyInput = { summary: { ...STABLE, unstable: 1 }, unstableClaims: [CLAIM] };
  const GATE: CombinedPolicy = { ...EITHER, failOnUnstableClaims: true };
  const agreeing = (): Promise<EntropyResult> => measure(["Canberra.", "It is Canberra.", "Canberra, ACT."]);

  it("reports unstable claims without gating on them by default", async () => {
    expect(combineVerdicts(grounded, await agreeing(), EITHER, unstable)).toEqual({ verdict: "pass", reasons: [] });
  });

  it("fails on an unstable claim with failOnUnstableClaims, naming the claim and its support", async () => {
    expect(combineVerdicts(grounded, await agreeing(), GATE, unstable)).toEqual({ verdict: "fail", reasons: ["unstable: 1 of 2 claims entailed by fewer than 50% of 5 resamples: claim 1 (1 of 5)"] });
    expect(combineVerdicts(grounded, await agreeing(), GATE, stable)).toEqual({ verdict: "pass", reasons: [] });
  });

  it("gates on claims under groundedness-only too, while entropy is still not gated on", async () => {
    const spread = await measure(["Canberra.", "Sydney.", "Paris."]);
    const policy: CombinedPolicy = { entropyThreshold: 0.5, mode: "groundedness-only", failOnUnstableClaims: true };
    expect(combineVerdicts(grounded, spread, policy, stable).verdict).toBe("pass");
    expect(combineVerdicts(grounded, spread, policy, unstable).verdict).toBe("fail");
  });

  it("is unscorable on a degenerate resample set, whatever the claims' support", async () => {
    const degenerate: ConsistencyInput = { summary: { ...STABLE, degenerate: true, reliable: false, reasons: ["all 5 samples are identical"] }, unstableClaims: [] };
    const policy: CombinedPolicy = { entropyThreshold: 0.5, mode: "groundedness-only", failOnUnstableClaims: true };
    expect(combineVerdicts(grounded, undefined, policy, degenerate)).toEqual({ verdict: "unscorable", reasons: ["claim stability unreliable: all 5 samples are identical"] });
  });

  it("is unscorable when claims went unmeasured and none measured is unstable; a measured unstable claim still fails", async () => {
    const partial: ClaimConsistency = { ...STABLE, measured: 1, reliable: false, overBudget: true, reasons: ["entailment budget 5 reached: 1 of 2 claims not checked against the resamples, so their stability is unknown"] };
    expect(combineVerdicts(grounded, await agreeing(), GATE, { summary: partial, unstableClaims: [] })).toEqual({
      verdict: "unscorable",
      reasons: ["claim stability not measured: entailment budget 5 reached: 1 of 2 claims not checked against the resamples, so their stability is unknown"],
    });
    expect(combineVerdicts(grounded, await agreeing(), GATE, { summary: { ...partial, unstable: 1 }, unstableClaims: [CLAIM] }).verdict).toBe("fail");
  });

  it("lists at most three unstable claims by index", async () => {
    const many = [0, 1, 2, 3, 4].map((index): UnstableClaim => ({ ...CLAIM, index }));
    const v = combineVerdicts(grounded, await agreeing(), GATE, { summary: { ...STABLE, claims: 5, unstable: 5 }, unstableClaims: many });
    expect(v.reasons[0]).toBe("unstable: 5 of 5 claims entailed by fewer than 50% of 5 resamples: claim 0 (1 of 5), claim 1 (1 of 5), claim 2 (1 of 5) and 2 more");
  });
});
