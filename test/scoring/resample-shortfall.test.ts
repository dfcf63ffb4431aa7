import { describe, expect, it, onTestFinished } from "vitest";
import type { ScoreOptions } from "../../src/config/score-options.ts";
import type { Scorer } from "../../src/scoring/scorer.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import type { FakeBackend } from "../helpers/fake-backend.ts";

const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund."];
const BASE = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery.", question: "How long is the return window?" };
const CONFABULATING = ["Returns are accepted within 30 days.", "Returns are accepted within 90 days.", "Returns are accepted within 7 days.", "Returns are not accepted.", "Returns are accepted within one year."];
const short = (received: number, requested: number): string => `received ${received} of ${requested} requested samples: a short batch hides disagreement`;

async function scorerWith(options: ScoreOptions = {}): Promise<{ scorer: Scorer; backend: FakeBackend }> {
  const backend = createFakeBackend();
  const scorer = await createScorer(options, { backend, analyzer: testAnalyzer() });
  onTestFinished(() => scorer.close());
  return { scorer, backend };
}

describe("scorer: resamples asked for that did not all come", () => {
  it("makes a short set's entropy and claim consistency unreliable, with the shortfall as the first reason", async () => {
    const { scorer } = await scorerWith();
    const r = await scorer.score({ ...BASE, samples: CONFABULATING.slice(0, 2), requested: 5 });
    expect(r.entropy?.reliable).toBe(false);
    expect(r.entropy?.reasons[0]).toBe(short(2, 5));
    expect(r.entropy?.reasons.filter((x) => x === short(2, 5))).toHaveLength(1);
    expect(r.claimConsistency).toMatchObject({ degenerate: true, reliable: false });
    expect(r.claimConsistency?.reasons[0]).toBe(short(2, 5));
    expect(r.combined?.verdict).toBe("unscorable");
  });

  it("judges the set short against what arrived, not against what is left after the cut at maxSamples", async () => {
    // 4 of 5 arrived and 3 are measured: the set is short (before, the scorer called it complete and
    // only the SDK's second pass said otherwise, so `groundwatch` and the SDK disagreed).
    const { scorer } = await scorerWith({ maxSamples: 3 });
    const r = await scorer.score({ ...BASE, samples: CONFABULATING.slice(0, 4), requested: 5 });
    expect(r.limits).toContain("samples");
    expect(r.entropy?.reliable).toBe(false);
    expect(r.entropy?.reasons[0]).toBe(short(4, 5));
    expect(r.claimConsistency).toMatchObject({ samples: 3, degenerate: true, reliable: false });
    expect(r.combined?.verdict).toBe("unscorable");
    // More than asked for, cut at maxSamples: not short.
    const cut = await scorer.score({ ...BASE, samples: CONFABULATING, requested: 5 });
    expect(cut.limits).toContain("samples");
    expect(cut.entropy?.reasons.some((x) => x.startsWith("received "))).toBe(false);
  });

  it("gives an absent set an unmeasured entropy without a backend call, the failure first, and keeps the groundedness verdict", async () => {
    const { scorer, backend } = await scorerWith();
    const grounded = await scorer.score(BASE);
    const calls = backend.calls.flat().length;
    const failure = "the resampler did not answer within 30000 ms";
    const none = await scorer.score({ ...BASE, requested: 5, resampleFailure: failure });
    // Only groundedness calls the backend (its pair may already be in the scorer's judgement cache).
    expect(backend.calls.flat().length - calls).toBe(none.entailmentCalls);
    expect(none.entropy).toMatchObject({ reliable: false, entropy: null, normalizedEntropy: null });
    expect(none.entropy?.reasons.slice(0, 2)).toEqual([failure, short(0, 5)]);
    expect(none).not.toHaveProperty("claimConsistency");
    expect(none.combined?.verdict).toBe("unscorable");
    expect(none.verdict).toBe(grounded.verdict);
  });

  it("changes nothing for a full set", async () => {
    const { scorer } = await scorerWith();
    const asked = await scorer.score({ ...BASE, samples: CONFABULATING, requested: 5 });
    const given = await scorer.score({ ...BASE, samples: CONFABULATING });
    expect(asked.entropy?.reasons).toEqual(given.entropy?.reasons);
    expect(asked.entropy?.reliable).toBe(given.entropy?.reliable);
    expect(asked.combined).toEqual(given.combined);
  });
});
