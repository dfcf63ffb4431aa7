import { describe, expect, it } from "vitest";
import type { ClaimCitation, ClaimResult } from "../../src/core/result.ts";
import type { Observation, Evaluation } from "../../src/scoring/scorer.ts";
import { explanationOf } from "../../src/telemetry/record.ts";
import { ATTR_CITATIONS_FOUND, ATTR_CITATIONS_INVALID, ATTR_CITATIONS_MISATTRIBUTED, ATTR_CITATIONS_VALID, ATTR_CITATION_STATUS, ATTR_CLAIMS_MISATTRIBUTED, ATTR_ROUTE, CITATION_STATUSES, METRICS } from "../../src/telemetry/semconv.ts";
import type { EvaluationSummary } from "../../src/evaluation/types.ts";
import { citationCounts, summarize } from "../../src/evaluation/summary.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { recordSummary, scoreOnce } from "../helpers/record-summary.ts";

// The fake backend entails a claim when the window holds the claim's last word.
const DOCS = [
  { id: "refunds", text: "Refunds are paid within 30 days." },
  { id: "shipping", text: "Shipping is free over 50 euros." },
];
/** [1] supports its claim, the second claim cites [1] but only document 2 supports it, [3] was never retrieved. */
const CITED = "Refunds are paid within 30 days [1]. Shipping is free over 50 euros [1]. Gift cards never expire [3].";

const score = (observation: Observation): Promise<Evaluation> => scoreOnce(createFakeBackend(), observation);
const record = (summary: EvaluationSummary, route = "/api/ask") => recordSummary(summary, { openInference: true, captureContent: false }, route);

const citation = (status: ClaimCitation["status"]): ClaimCitation => ({ marker: "[1]", start: 0, end: 3, docs: status === "not_retrieved" ? [] : [0], missing: status === "not_retrieved" ? ["9"] : [], status, score: 0, evidence: null });
const claim = (citations: ClaimCitation[]): ClaimResult => ({ index: 0, text: "x", start: 0, end: 1, verdict: "supported", score: 1, contradiction: 0, evidence: null, notes: [], citations });

describe("citation counts", () => {
  it("counts every marker once: checked claims by their status, not-retrieved markers wherever they are, the rest unchecked", () => {
    const counts = citationCounts({
      claims: [claim([citation("supported"), citation("misattributed")]), claim([citation("not_retrieved"), citation("unsupported")])],
      // 7 markers: 4 on checked claims, 1 more not retrieved and 2 valid ones on claims that were not checked.
      citations: { found: 7, valid: 5, invalid: 2, misattributed: 1 },
    });
    expect(counts).toEqual({ found: 7, valid: 5, invalid: 2, misattributed: 1, byStatus: { supported: 1, misattributed: 1, unsupported: 1, contradicted: 0, not_retrieved: 2, unchecked: 2 } });
    expect(CITATION_STATUSES.reduce((n, s) => n + (counts?.byStatus[s] ?? 0), 0)).toBe(7);
  });

  it("leaves an answer that cites nothing without citations", async () => {
    const r = await score({ context: DOCS, answer: "Refunds are paid within 30 days." });
    expect(citationCounts(r)).toBeUndefined();
    expect(summarize(r, false)).not.toHaveProperty("citations");
  });

  it("summarizes a scored answer's citations by status, and its misattributed claim among the claim counts", async () => {
    const s = summarize(await score({ context: DOCS, answer: CITED }), false);
    expect(s.claims).toEqual({ supported: 1, contradicted: 0, unsupported: 1, misattributed: 1 });
    expect(s.citations).toEqual({ found: 3, valid: 2, invalid: 1, misattributed: 1, byStatus: { supported: 1, misattributed: 1, unsupported: 0, contradicted: 0, not_retrieved: 1, unchecked: 0 } });
  });

  it("counts the markers of an answer the backend could not score as unchecked, or not_retrieved when they name no retrieved document", async () => {
    const r = await scoreOnce(createFakeBackend({ classify: () => Promise.reject(new Error("backend down")) }), { context: DOCS, answer: CITED });
    expect(r).toMatchObject({ verdict: "unscorable", reason: "backend_error" });
    expect(summarize(r, false).citations?.byStatus).toEqual({ supported: 0, misattributed: 0, unsupported: 0, contradicted: 0, not_retrieved: 1, unchecked: 2 });
  });
});

describe("citation telemetry", () => {
  it("puts the citation summary and the misattributed claim count on the span and the evaluation event, and in the explanation", async () => {
    const s = summarize(await score({ context: DOCS, answer: CITED }), false);
    const { span, logs } = await record(s);
    expect(span?.attributes).toMatchObject({ [ATTR_CLAIMS_MISATTRIBUTED]: 1, [ATTR_CITATIONS_FOUND]: 3, [ATTR_CITATIONS_VALID]: 2, [ATTR_CITATIONS_INVALID]: 1, [ATTR_CITATIONS_MISATTRIBUTED]: 1 });
    const event = logs.find((l) => l.eventName === "gen_ai.evaluation.result");
    expect(event?.attributes).toMatchObject({ [ATTR_CITATIONS_FOUND]: 3, [ATTR_CITATIONS_VALID]: 2, [ATTR_CITATIONS_INVALID]: 1, [ATTR_CITATIONS_MISATTRIBUTED]: 1 });
    expect(explanationOf(s)).toMatch(/^ungrounded \(cause: citation\); 3 claims: 1 supported, 0 contradicted, 1 unsupported, 1 misattributed; score 0\.\d{3} vs threshold [\d.]+; 3 citations: 2 valid, 1 not retrieved, 1 misattributed$/);
    expect(span?.attributes["evaluations.0.evaluation.explanation"]).toBe(explanationOf(s));
  });

  it("counts citations by route and status only, and counts misattributed claims by verdict", async () => {
    const { metrics } = await record(summarize(await score({ context: DOCS, answer: CITED }), false), "/api/refunds");
    const points = metrics.get(METRICS.citations.name) ?? [];
    expect(points.map((p) => [p.attributes[ATTR_CITATION_STATUS], p.value]).sort()).toEqual([
      ["misattributed", 1],
      ["not_retrieved", 1],
      ["supported", 1],
    ]);
    for (const p of points) expect(Object.keys(p.attributes).sort()).toEqual([ATTR_CITATION_STATUS, ATTR_ROUTE]);
    expect(points.every((p) => p.attributes[ATTR_ROUTE] === "/api/refunds")).toBe(true);
    expect(metrics.get(METRICS.claims.name)?.find((p) => p.attributes["groundwatch.claim.verdict"] === "misattributed")?.value).toBe(1);
    expect(METRICS.citations.prometheus).toBe("groundwatch_citations_total");
  });

  it("records no citation attributes or series for an answer that cites nothing, and a misattributed count of 0", async () => {
    const { span, metrics } = await record(summarize(await score({ context: DOCS, answer: "Refunds are paid within 30 days." }), false));
    expect(span?.attributes[ATTR_CLAIMS_MISATTRIBUTED]).toBe(0);
    expect(span?.attributes).not.toHaveProperty(ATTR_CITATIONS_FOUND);
    expect(metrics.has(METRICS.citations.name)).toBe(false);
  });
});
