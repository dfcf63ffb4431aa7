import { describe, expect, it, onTestFinished } from "vitest";
import type { ScoreOptions } from "../../src/config/score-options.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import type { Scorer } from "../../src/scoring/scorer.ts";
import { backendOptionsFromFlags } from "../../src/cli/shared/backend-flags.ts";
import { startupBanner } from "../../src/cli/serve.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import type { FakeBackend } from "../helpers/fake-backend.ts";

const CONTEXT = ["Refunds are available within thirty days of delivery. Items must be unused.", "The store opens at nine on weekdays. It is closed on Sundays."];
const OBSERVATION = { answer: "You can get a refund within thirty days. The shop is closed every Sunday.", context: CONTEXT };

async function scorerWith(options: ScoreOptions, backend: FakeBackend = createFakeBackend()): Promise<{ scorer: Scorer; backend: FakeBackend }> {
  const scorer = await createScorer({ relevance: false, nliCacheBytes: 0, ...options }, { backend, analyzer: testAnalyzer() });
  onTestFinished(() => scorer.close());
  return { scorer, backend };
}

describe("the cascade in the scorer", () => {
  it("is off by default: every claim goes to the model", async () => {
    const { scorer, backend } = await scorerWith({});
    const r = await scorer.score(OBSERVATION);
    expect(r.entailmentCalls).toBeGreaterThan(0);
    expect(backend.calls.flat()).toHaveLength(r.entailmentCalls);
    expect(r.claims.every((c) => c.decidedBy === undefined)).toBe(true);
  });

  it("puts the offline tier in front of a model backend: a claim it decides costs no model call", async () => {
    // Thresholds wide enough that the offline tier decides every claim of this answer.
    const { scorer, backend } = await scorerWith({ cascade: true, cascadeSupportAbove: 0.001, cascadeUnsupportBelow: 0 });
    const r = await scorer.score(OBSERVATION);
    expect(backend.calls.flat()).toHaveLength(0);
    expect(r.entailmentCalls).toBe(0);
    expect(r.callsSaved?.triage).toBeGreaterThan(0);
    expect(r.claims.every((c) => c.decidedBy === "triage" && c.verdict === "supported")).toBe(true);
  });

  it("with thresholds that decide nothing sends every claim to the model", async () => {
    const { scorer, backend } = await scorerWith({ cascade: true });
    const r = await scorer.score(OBSERVATION);
    expect(backend.calls.flat()).toHaveLength(r.entailmentCalls);
    expect(r.entailmentCalls).toBeGreaterThan(0);
    expect(r).not.toHaveProperty("callsSaved");
  });

  it("is ignored, with a warning, on a backend that is the cheap tier itself", async () => {
    const triageTier: FakeBackend = { ...createFakeBackend(), tier: "triage" };
    const { scorer } = await scorerWith({ cascade: true, cascadeSupportAbove: 0.001 }, triageTier);
    expect(scorer.warnings.join("\n")).toMatch(/cascade ignored/);
    const r = await scorer.score(OBSERVATION);
    expect(r.claims.every((c) => c.decidedBy === undefined)).toBe(true);
  });
});

describe("the cascade's flags", () => {
  it("read --cascade on|off and the two thresholds", () => {
    expect(backendOptionsFromFlags({ cascade: "on", "cascade-support-above": "0.9", "cascade-unsupport-below": "0.05" }).options).toEqual({ cascade: true, cascadeSupportAbove: 0.9, cascadeUnsupportBelow: 0.05 });
    expect(backendOptionsFromFlags({ cascade: "off" }).options).toEqual({ cascade: false });
    expect(backendOptionsFromFlags({ cascade: "maybe" }).error).toBe('--cascade must be on or off (got "maybe")');
    expect(backendOptionsFromFlags({ "cascade-support-above": "high" }).error).toBe('--cascade-support-above must be a number (got "high")');
  });
});

describe("serve's banner with the cascade on", () => {
  it("names its thresholds and where they came from, or says why it does nothing", () => {
    const env = { GROUNDWATCH_JUDGE_API_KEY: "k" };
    const banner = (scoring: ScoreOptions): string => startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor: resolveMonitorOptions({ env, scoring }), env, logEvaluations: false });
    const judge = { backend: "judge", judgeUrl: "http://127.0.0.1:9/v1", judgeModel: "m", cascade: true };
    expect(banner({ ...judge, cascadeSupportAbove: 0.9 })).toMatch(/cascade +on: supported at an offline score of 0\.9 or above \(set\), unsupported at 0 or below \(default\), without a model call/);
    expect(banner(judge)).toMatch(/cascade +on, but its thresholds decide nothing \(1 and 0\)/);
    expect(banner({ backend: "offline", cascade: true })).toMatch(/cascade +ignored: the offline backend is the cheap tier itself/);
    expect(banner({ backend: "offline" })).not.toMatch(/cascade/);
  });
});
