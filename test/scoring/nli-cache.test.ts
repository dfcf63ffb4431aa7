import { describe, expect, it, onTestFinished } from "vitest";
import type { ScoreOptions } from "../../src/config/score-options.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import type { Scorer } from "../../src/scoring/scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import type { FakeBackend } from "../helpers/fake-backend.ts";

const CONTEXT = ["Refunds are available within thirty days of delivery. Items must be unused.", "The store opens at nine on weekdays. It is closed on Sundays."];
const OBSERVATION = { answer: "You can get a refund within thirty days. The shop is closed every Sunday.", context: CONTEXT, question: "Can I return it?" };
const SAMPLES = ["Refunds are possible within thirty days.", "You have thirty days for a refund.", "No refunds."];

async function scorerWith(options: ScoreOptions = {}): Promise<{ scorer: Scorer; backend: FakeBackend }> {
  const backend = createFakeBackend();
  const scorer = await createScorer({ relevance: false, ...options }, { backend, analyzer: testAnalyzer() });
  onTestFinished(() => scorer.close());
  return { scorer, backend };
}

describe("the scorer's judgement cache", () => {
  it("sends nothing for a repeated observation: groundedness, entropy and claim consistency read their pairs from it", async () => {
    const { scorer, backend } = await scorerWith();
    const first = await scorer.score({ ...OBSERVATION, samples: SAMPLES });
    const sent = backend.calls.flat().length;
    expect(sent).toBeGreaterThan(first.entailmentCalls);
    const again = await scorer.score({ ...OBSERVATION, samples: SAMPLES });
    expect(backend.calls.flat()).toHaveLength(sent);
    expect(again.entailmentCalls).toBe(0);
    expect(again.callsSaved).toEqual({ verbatim: 0, cache: first.entailmentCalls, triage: 0 });
    expect(again.claims).toEqual(first.claims);
    expect(again.combined).toEqual(first.combined);
  });

  it("with nliCacheBytes 0 sends every pair again", async () => {
    const { scorer, backend } = await scorerWith({ nliCacheBytes: 0 });
    const first = await scorer.score(OBSERVATION);
    const again = await scorer.score(OBSERVATION);
    expect(again.entailmentCalls).toBe(first.entailmentCalls);
    expect(backend.calls.flat()).toHaveLength(2 * first.entailmentCalls);
    expect(again).not.toHaveProperty("callsSaved");
    expect(again).toEqual(first);
  });
});
