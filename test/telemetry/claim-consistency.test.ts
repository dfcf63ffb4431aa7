import { describe, expect, it } from "vitest";
import type { Observation, Evaluation } from "../../src/scoring/scorer.ts";
import { explanationOf } from "../../src/telemetry/record.ts";
import { ATTR_CLAIMS_UNSTABLE, ATTR_GEN_AI_EVALUATION_NAME, METRICS } from "../../src/telemetry/semconv.ts";
import type { EvaluationSummary } from "../../src/evaluation/types.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { recordSummary, scoreOnce } from "../helpers/record-summary.ts";
import { factsBackend } from "../core/facts-backend.ts";

const BASE = {
  question: "Where was the Zorbex Protocol signed, and when was it ratified?",
  context: ["The Zorbex Protocol was signed in Berlin.", "The parliament ratified it in 1998."],
  answer: "The Zorbex Protocol was signed in Berlin. It was ratified in 1998.",
};
const CONFABULATED = ["Signed in Berlin, ratified in 2004.", "It was signed in Berlin and ratified in 1976.", "Berlin; 1998.", "In Berlin, and it was ratified in 2011.", "Berlin, then ratification in 1987."];
const IDENTICAL = Array.from({ length: 4 }, () => "Signed in Berlin, ratified in 1998.");

const score = (observation: Observation): Promise<Evaluation> => scoreOnce(factsBackend(), observation);
const record = (summary: EvaluationSummary, route = "/api/ask") => recordSummary(summary, { openInference: false, captureContent: true }, route);

describe("claim consistency in EvaluationSummary", () => {
  it("carries counts, and the unstable claims' text only when content capture is on", async () => {
    const r = await score({ ...BASE, samples: CONFABULATED });
    const off = summarize(r, false);
    expect(off.claimConsistency).toEqual({ claims: 2, measured: 2, unstable: 1, samples: 5, unstableShare: 0.5, reliable: true, degenerate: false, reasons: [] });
    expect(off).not.toHaveProperty("content");
    expect(JSON.stringify(off)).not.toContain("ratified in 1998");
    expect(summarize(r, true).content?.unstableClaims).toEqual(["It was ratified in 1998."]);
  });

  it("is absent without samples", async () => {
    const s = summarize(await score(BASE), true);
    expect(s).not.toHaveProperty("claimConsistency");
    expect(s.content).not.toHaveProperty("unstableClaims");
  });
});

describe("claim consistency on spans, events and metrics", () => {
  it("sets groundwatch.claims.unstable and counts resampled and unstable claims by route", async () => {
    const { span, logs, metrics } = await record(summarize(await score({ ...BASE, samples: CONFABULATED }), true));
    expect(span?.attributes[ATTR_CLAIMS_UNSTABLE]).toBe(1);
    const groundedness = logs.find((l) => l.attributes[ATTR_GEN_AI_EVALUATION_NAME] === "groundedness");
    expect(groundedness?.attributes[ATTR_CLAIMS_UNSTABLE]).toBe(1);
    expect(String(groundedness?.attributes["gen_ai.evaluation.explanation"])).toContain("1 of 2 claims unstable across 5 resamples");
    expect(metrics.get(METRICS.claimsResampled.name)).toEqual([{ attributes: { "groundwatch.route": "/api/ask" }, value: 2 }]);
    expect(metrics.get(METRICS.claimsUnstable.name)).toEqual([{ attributes: { "groundwatch.route": "/api/ask" }, value: 1 }]);
    // Content capture is on in `record`: the unstable claim's text is on the span, like unsupported claims.
    expect(span?.attributes["groundwatch.content.unstable_claims"]).toEqual(["It was ratified in 1998."]);
  });

  it("reports 0 unstable claims as a count only when stability was measured", async () => {
    const stable = await record(summarize(await score({ ...BASE, samples: ["Berlin, 1998.", "Signed in Berlin in 1998.", "Berlin; ratified 1998."] }), false));
    expect(stable.span?.attributes[ATTR_CLAIMS_UNSTABLE]).toBe(0);
    expect(stable.metrics.get(METRICS.claimsUnstable.name)).toEqual([{ attributes: { "groundwatch.route": "/api/ask" }, value: 0 }]);
  });

  it("claims no stability from identical resamples: no count on the span, nothing added to the counters", async () => {
    const summary = summarize(await score({ ...BASE, samples: IDENTICAL }), false);
    expect(summary.claimConsistency).toMatchObject({ degenerate: true, reliable: false, unstable: 0 });
    const { span, metrics } = await record(summary);
    expect(span?.attributes).not.toHaveProperty(ATTR_CLAIMS_UNSTABLE);
    expect(metrics.get(METRICS.claimsResampled.name) ?? []).toEqual([]);
    expect(metrics.get(METRICS.claimsUnstable.name) ?? []).toEqual([]);
    expect(explanationOf(summary)).toMatch(/claim stability not measured \(all 4 samples are identical/);
  });

  it("leaves spans and metrics of answers without samples as they were", async () => {
    const { span, metrics } = await record(summarize(await score(BASE), false));
    expect(span?.attributes).not.toHaveProperty(ATTR_CLAIMS_UNSTABLE);
    expect(metrics.get(METRICS.claimsResampled.name) ?? []).toEqual([]);
  });
});
