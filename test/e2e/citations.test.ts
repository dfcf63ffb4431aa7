// Issue 18: an answer citing a document that was not retrieved is flagged without any model call,
// a claim that document 1 supports but that cites [2] is misattributed, and a correctly cited
// answer is grounded — through `groundwatch score` and `groundwatch eval` (the built binary), the
// SDK, and the collector (OpenInference spans with document ids, and /v1/observations).
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished } from "vitest";
import type { EvalReport } from "../../src/cli/eval/types.ts";
import { startCollector } from "../../src/collector/server.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { CITED_ANSWERS, CITED_DOCS, isRelevanceRequest, judgeEnv, judgeFlags, judgedPair, startCitingJudge } from "../helpers/citations.ts";
import { tempDir } from "../helpers/cli.ts";
import { testOtel } from "../helpers/otel.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const QUESTION = "What are the refund and shipping terms?";

/** Runs the built binary; resolves with its exit code and output (execFile is asynchronous, so the judge in this process answers it). */
function groundwatch(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/groundwatch.js", ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function jsonl(rows: unknown[]): string {
  const path = join(tempDir(), "rows.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

/** The value of one groundwatch_citations_total series on /metrics, 0 when absent. */
function citationCount(metrics: string, route: string, status: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${METRICS.citations.prometheus}{`) && l.includes(`groundwatch_route="${route}"`) && l.includes(`groundwatch_citation_status="${status}"`));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("citations checked end to end", () => {
  it("groundwatch score: the invented source costs no model call, the misattributed claim and the cited answer come out as they are", { timeout: 60_000 }, async () => {
    const judge = await startCitingJudge();
    const invented = await groundwatch(["score", "--input", jsonl([{ id: "invented", context: CITED_DOCS, answer: CITED_ANSWERS.invented }]), ...judgeFlags(judge.url)], judgeEnv());
    expect(invented.code, invented.stderr).toBe(0);
    expect(judge.requests).toHaveLength(0);
    expect(JSON.parse(invented.stdout) as unknown).toMatchObject({ id: "invented", verdict: "ungrounded", citations: { found: 1, invalid: 1 }, claims: [{ verdict: "unsupported", reason: "citation_not_retrieved", citations: [{ marker: "[3]", status: "not_retrieved", missing: ["3"] }] }] });

    const table = await groundwatch(["score", "--input", jsonl([{ id: "misattributed", context: CITED_DOCS, answer: CITED_ANSWERS.misattributed }, { id: "cited", context: CITED_DOCS, answer: CITED_ANSWERS.cited }]), "--format", "table", ...judgeFlags(judge.url)], judgeEnv());
    expect(table.code, table.stderr).toBe(0);
    expect(judge.requests.length).toBeGreaterThan(0);
    expect(table.stdout).toMatch(/misattributed\s+ungrounded\s+0\.000/);
    expect(table.stdout).toContain("[2] misattributed — supported by document 1 (refunds), not by document 2 (shipping)");
    expect(table.stdout).toMatch(/cited\s+grounded\s+1\.000/);
    expect(table.stdout).toContain("[1] supported (1.000) by document 1 (refunds)");
    expect(table.stdout).toContain("[2] supported (1.000) by document 2 (shipping)");
  });

  it("groundwatch eval --max-citation-error-rate: passes the cited set, fails the set with an invented and a misattributed citation", { timeout: 60_000 }, async () => {
    const judge = await startCitingJudge();
    const row = (id: string, answer: string): unknown => ({ id, question: QUESTION, context: CITED_DOCS, answer });
    const run = async (rows: unknown[]): Promise<{ code: number; report: EvalReport; stdout: string }> => {
      const out = tempDir();
      const r = await groundwatch(["eval", "--set", jsonl(rows), "--out", out, "--max-citation-error-rate", "0.1", "--max-hallucination-rate", "1", ...judgeFlags(judge.url)], judgeEnv());
      expect(existsSync(join(out, "report.json")), r.stderr).toBe(true);
      return { code: r.code, report: JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as EvalReport, stdout: r.stdout };
    };
    const pass = await run([row("a", CITED_ANSWERS.cited), row("b", CITED_ANSWERS.cited)]);
    expect(pass.code, pass.stdout).toBe(0);
    expect(pass.report.gate.criteria.find((c) => c.name === "maxCitationErrorRate")).toMatchObject({ measured: 0, passed: true });
    const fail = await run([row("invented", CITED_ANSWERS.invented), row("misattributed", CITED_ANSWERS.misattributed), row("cited", CITED_ANSWERS.cited)]);
    expect(fail.code).toBe(1);
    expect(fail.report.gate.criteria.find((c) => c.name === "maxCitationErrorRate")).toMatchObject({ measured: 0.5, passed: false });
    expect(fail.stdout).toContain("citation error rate 50.0% (2 of 4 citations: 1 not retrieved, 1 misattributed) is above the maximum 10.0%");
    expect(fail.stdout).toContain("| misattributed | Refunds are paid within 30 days of delivery. | misattributed | \\[2\\] misattributed — supported by document 1 \\(refunds\\)");
    expect(fail.report.rows.map((x) => [x.id, x.verdict])).toEqual([
      ["invented", "ungrounded"],
      ["misattributed", "ungrounded"],
      ["cited", "grounded"],
    ]);
  });

  it("the SDK: records citation statuses on the evaluation span, the event and the metrics, the invented source without a model call", { timeout: 60_000 }, async () => {
    const judge = await startCitingJudge();
    const otel = testOtel();
    const monitor = createMonitor({
      env: judgeEnv(),
      sampling: { default: 1 },
      scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "judge-test" },
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      loggerProvider: otel.loggerProvider,
    });
    onTestFinished(() => monitor.shutdown(1000));
    await monitor.ready();
    monitor.observe({ route: "/api/policies", question: QUESTION, context: CITED_DOCS, answer: CITED_ANSWERS.invented });
    await monitor.flush();
    // No entailment call; with a question, relevance is measured: one call per document and one for the answer (the judge reads one window a document).
    expect(judge.requests.filter((r) => !isRelevanceRequest(r))).toHaveLength(0);
    expect(judge.requests.filter(isRelevanceRequest)).toHaveLength(CITED_DOCS.length + 1);
    monitor.observe({ route: "/api/policies", question: QUESTION, context: CITED_DOCS, answer: CITED_ANSWERS.misattributed });
    monitor.observe({ route: "/api/policies", question: QUESTION, context: CITED_DOCS, answer: CITED_ANSWERS.cited });
    await monitor.flush();
    expect(judge.requests.some((r) => !isRelevanceRequest(r) && judgedPair(r).hypothesis.includes("Gift cards"))).toBe(false);

    const spans = otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate");
    // Scoring workers may finish the last two in either order.
    const rows = spans.map((s) => [s.attributes["groundwatch.verdict"], s.attributes["groundwatch.claims.misattributed"], s.attributes["groundwatch.citations.found"], s.attributes["groundwatch.citations.invalid"], s.attributes["groundwatch.citations.misattributed"]]);
    expect(rows.map((r) => JSON.stringify(r)).sort()).toEqual([
      ["grounded", 0, 2, 0, 0],
      ["ungrounded", 0, 1, 1, 0],
      ["ungrounded", 1, 1, 0, 1],
    ].map((r) => JSON.stringify(r)));
    const events = otel.logs.getFinishedLogRecords().filter((l) => l.eventName === "gen_ai.evaluation.result");
    expect(events.map((e) => e.attributes["groundwatch.citations.found"]).sort()).toEqual([1, 1, 2]);
    const metrics = await otel.metrics();
    const byStatus = Object.fromEntries((metrics.get(METRICS.citations.name) ?? []).map((p) => [p.attributes["groundwatch.citation.status"], p.value]));
    expect(byStatus).toEqual({ not_retrieved: 1, misattributed: 1, supported: 2 });
    expect(metrics.get(METRICS.claims.name)?.find((p) => p.attributes["groundwatch.claim.verdict"] === "misattributed")?.value).toBe(1);
  });

  it("the collector: OpenInference spans with document ids and /v1/observations with document objects, counted on /metrics", { timeout: 60_000 }, async () => {
    const judge = await startCitingJudge();
    const c = await startCollector({ env: judgeEnv(), port: 0, monitor: { sampling: { default: 1 }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "judge-test" } } });
    onTestFinished(() => c.close(2000));
    await c.monitor.ready();
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "policies-rag" }), spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${c.url}/v1/traces` }))] });
    onTestFinished(() => provider.shutdown());
    const tracer = provider.getTracer("rag");
    /** One request as OpenInference records it: a retriever span with the documents' ids and metadata, an LLM span with the answer. */
    const ask = (answer: string): void => {
      const root = tracer.startSpan("POST /ask", { attributes: { "http.route": "/ask" } });
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      const documents: Record<string, string> = {};
      CITED_DOCS.forEach((d, i) => {
        documents[`retrieval.documents.${i}.document.id`] = d.id;
        documents[`retrieval.documents.${i}.document.content`] = d.text;
        documents[`retrieval.documents.${i}.document.metadata`] = JSON.stringify({ title: d.title, source: `kb/${d.id}.md` });
      });
      tracer.startSpan("retrieve", { attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, ...documents } }, ctx).end();
      tracer.startSpan("llm", { attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": answer } }, ctx).end();
      root.end();
    };

    ask(CITED_ANSWERS.invented);
    await provider.forceFlush();
    await waitUntil("1 scored", () => c.monitor.stats(), (s) => s.scored >= 1);
    expect(judge.requests.filter((r) => !isRelevanceRequest(r))).toHaveLength(0);
    expect(judge.requests.filter(isRelevanceRequest)).toHaveLength(CITED_DOCS.length + 1);
    ask(CITED_ANSWERS.misattributed);
    ask(CITED_ANSWERS.cited);
    // A named source resolves against the ids, titles and URLs the metadata gave.
    ask("Shipping is free on orders over 50 euros (source: shipping.md).");
    await provider.forceFlush();
    const res = await fetch(`${c.url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { route: "/observations", question: QUESTION, context: CITED_DOCS, answer: CITED_ANSWERS.invented },
        { route: "/observations", question: QUESTION, context: CITED_DOCS, answer: CITED_ANSWERS.misattributed },
        { route: "/observations", question: QUESTION, context: CITED_DOCS, answer: CITED_ANSWERS.cited },
      ]),
    });
    expect(res.status).toBe(202);
    await waitUntil("7 scored", () => c.monitor.stats(), (s) => s.scored >= 7);
    expect(judge.requests.some((r) => !isRelevanceRequest(r) && judgedPair(r).hypothesis.includes("Gift cards"))).toBe(false);

    const metrics = await (await fetch(`${c.url}/metrics`)).text();
    for (const route of ["/ask", "/observations"]) {
      expect(citationCount(metrics, route, "not_retrieved"), route).toBe(1);
      expect(citationCount(metrics, route, "misattributed"), route).toBe(1);
    }
    expect(citationCount(metrics, "/ask", "supported")).toBe(3);
    expect(citationCount(metrics, "/observations", "supported")).toBe(2);
    expect(metrics).toMatch(/groundwatch_claims_total\{[^}]*groundwatch_claim_verdict="misattributed"[^}]*groundwatch_route="\/ask"[^}]*\} 1|groundwatch_claims_total\{[^}]*groundwatch_route="\/ask"[^}]*groundwatch_claim_verdict="misattributed"[^}]*\} 1/);
    expect(metrics).toMatch(/groundwatch_evaluations_total\{[^}]*groundwatch_route="\/ask"[^}]*groundwatch_verdict="grounded"[^}]*\} 2/);
  });
});
