import { describe, expect, it, onTestFinished } from "vitest";
import type { ScoreOptions } from "../../src/config/score-options.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import type { Scorer } from "../../src/scoring/scorer.ts";
import { createSpanDetector, spansOnlyBackend, SPANS_ONLY_REFUSAL } from "../../src/nli/registry.ts";
import { startupBanner } from "../../src/cli/serve.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import type { FakeSpanDetector } from "../helpers/fake-span-detector.ts";
import { createFakeSpanDetector } from "../helpers/fake-span-detector.ts";

const CONTEXT = "The museum opens at nine every morning. Entry costs ten euros.";
const ANSWER = "The museum opens at nine. Entry costs twenty euros.";

async function scorerWith(options: ScoreOptions, detector: FakeSpanDetector, claims = options.backend === "spans" ? undefined : createFakeBackend()): Promise<Scorer> {
  const scorer = await createScorer({ relevance: false, nliCacheBytes: 0, ...options }, { spanDetector: detector, ...(claims ? { backend: claims } : {}), analyzer: testAnalyzer() });
  onTestFinished(() => scorer.close());
  return scorer;
}

describe("a span detector in the scorer", () => {
  it("alone (backend spans): the answer threshold defaults to 1 − the detector's span threshold, and the spans decide", async () => {
    const scorer = await scorerWith({ backend: "spans", spanModel: "unused" }, createFakeSpanDetector({ words: { twenty: 0.7 }, recommendedSpanThreshold: 0.6 }));
    expect(scorer.threshold).toBeCloseTo(0.4);
    expect(scorer.spans).toMatchObject({ mode: "alone" });
    expect(scorer.spans?.threshold).toBeCloseTo(0.6);
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(r.verdict).toBe("ungrounded");
    expect(r.spans?.map((s) => s.text)).toEqual(["twenty"]);
    expect(r.callsByEngine).toEqual({ claims: 0, spans: 1 });
    expect(r.backend.name).toBe("fake-spans");
  });

  it("alone: a span threshold set makes the answer threshold its complement", async () => {
    const scorer = await scorerWith({ backend: "spans", spanModel: "unused", spanThreshold: 0.8 }, createFakeSpanDetector({ words: { twenty: 0.7 } }));
    expect(scorer.threshold).toBeCloseTo(0.2);
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(r.verdict).toBe("grounded");
    expect(r.spans).toEqual([]);
  });

  it("alone: entropy and claim consistency say they could not be measured, nothing throws, and the user is warned", async () => {
    const scorer = await scorerWith({ backend: "spans", spanModel: "unused" }, createFakeSpanDetector());
    expect(scorer.warnings.join(" ")).toMatch(/judges no entailment pair/);
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT, samples: ["It opens at nine.", "It opens at ten."] });
    expect(r.verdict).toBe("grounded");
    expect(JSON.stringify(r.entropy)).toContain("judges no entailment pair");
    expect(r.claimConsistency?.reliable).toBe(false);
  });

  it("refine: the claim backend's verdicts with the detector's spans, at the span threshold set", async () => {
    const detector = createFakeSpanDetector({ words: { twenty: 0.7, nine: 0.4 } });
    const scorer = await scorerWith({ spanThreshold: 0.35 }, detector);
    expect(scorer.spans).toMatchObject({ mode: "refine", threshold: 0.35 });
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(r.verdict).toBe("grounded");
    expect(r.spans?.map((s) => s.text)).toEqual(["nine.", "twenty"]);
    expect(r.callsByEngine?.claims).toBe(r.entailmentCalls);
  });

  it("refine: the span threshold defaults to the detector's fitted one, else 0.5", async () => {
    expect((await scorerWith({}, createFakeSpanDetector({ recommendedSpanThreshold: 0.42 }))).spans?.threshold).toBe(0.42);
    expect((await scorerWith({}, createFakeSpanDetector())).spans?.threshold).toBe(0.5);
  });
});

describe("the spans backend's entailment port", () => {
  it("carries the detector's identity and refuses every pair with a clear reason", async () => {
    const port = spansOnlyBackend(createFakeSpanDetector({ recommendedSpanThreshold: 0.3 }));
    expect(port).toMatchObject({ name: "fake-spans", version: "1", tier: "production", recommendedThreshold: 0.7 });
    expect(port.relevance).toBeUndefined();
    await expect(port.classify([{ premise: "a", hypothesis: "b" }])).rejects.toThrow(SPANS_ONLY_REFUSAL);
  });

  it("loads no detector without a span model, and refuses a span model that is neither a directory nor a cached repo on spanModel", async () => {
    const settings = { hubCacheDir: "/nonexistent-cache", judgeApiKey: undefined } as never;
    await expect(createSpanDetector(resolveScoreOptions({}), { settings })).resolves.toBeUndefined();
    await expect(createSpanDetector(resolveScoreOptions({ spanModel: "not a model!" }), { settings })).rejects.toMatchObject({ name: "ConfigError", field: "spanModel" });
  });
});

describe("span options at the SDK's and the collector's edge", () => {
  it("reach the monitor's scoring options from the environment, and serve's banner says what the detector does", () => {
    const env = { GROUNDWATCH_SPAN_MODEL: "/models/lettuce", GROUNDWATCH_SPAN_THRESHOLD: "0.6" };
    const monitor = resolveMonitorOptions({ env });
    expect(monitor.score).toMatchObject({ spanModel: "/models/lettuce", spanThreshold: 0.6, spanLanguage: "en" });
    const banner = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor, env, logEvaluations: false });
    expect(banner).toMatch(/spans\s+refine \(\/models\/lettuce\): marks the words to distrust in the claims, span threshold 0.6 \(set\)/);
    const alone = resolveMonitorOptions({ env: { ...env, GROUNDWATCH_BACKEND: "spans" } });
    const aloneBanner = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor: alone, env, logEvaluations: false });
    expect(aloneBanner).toMatch(/backend\s+spans \(\/models\/lettuce, alone\)/);
  });

  it("come from createMonitor's scoring options before the environment", () => {
    const monitor = resolveMonitorOptions({ env: { GROUNDWATCH_SPAN_LANGUAGE: "de" }, scoring: { spanModel: "/m", spanLanguage: "fr" } });
    expect(monitor.score).toMatchObject({ spanModel: "/m", spanLanguage: "fr" });
  });
});
