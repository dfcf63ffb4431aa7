// Issue 27: the cause of an ungrounded answer, end to end on the offline backend — an answer from
// off-topic documents is `retrieval`, a contradicted number from the right document is `generation`,
// an answer citing a source that was not retrieved is `citation` — through `groundwatch score` (the
// built binary), the SDK and the collector (OpenInference traces): /metrics splits the ungrounded
// evaluations by cause and has the relevance histograms, /v1/flagged and `groundwatch flagged
// --cause` return them with their trace ids, and no text without content capture.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { FlaggedAnswer } from "../../src/evaluation/types.ts";
import { ATTR_CAUSE, ATTR_RELEVANCE_ANSWER, ATTR_RELEVANCE_CONTEXT, ATTR_VERDICT, METRICS } from "../../src/telemetry/semconv.ts";
import { CAUSE_ROWS } from "../helpers/cause-rows.ts";
import { tempDir } from "../helpers/cli.ts";
import { COLLECTOR_TEST_ENV, postJson, startTestCollector } from "../helpers/collector.ts";
import { testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";
import { tracesJson } from "../collector/otlp-json.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FAILING = CAUSE_ROWS.filter((r) => r.id !== "grounded");
/** Words of the answers and documents that must not leave the collector without content capture. */
const SECRET_TEXT = ["30 days", "90 days", "parking", "Refunds are paid"];

/** Runs the built binary asynchronously (so a collector in this process keeps answering it). */
function groundwatch(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/groundwatch.js", ...args], { cwd: ROOT, env: { ...process.env, ...COLLECTOR_TEST_ENV, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** One OpenInference trace per row: a retriever span (the question and the documents with their ids), an LLM span (the answer). */
function traceOf(row: (typeof CAUSE_ROWS)[number], i: number): { traceId: string; body: object } {
  const traceId = `${(i + 1).toString(16).padStart(2, "0")}${"c".repeat(30)}`;
  const docs = row.context.flatMap((d, k) => {
    const doc = typeof d === "string" ? { text: d } : d;
    return [[`retrieval.documents.${k}.document.content`, doc.text], ...("id" in doc ? [[`retrieval.documents.${k}.document.id`, doc.id]] : [])];
  });
  const body = tracesJson(traceId, [
    { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
    { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": row.question, ...Object.fromEntries(docs) } },
    { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": row.answer } },
  ]);
  return { traceId, body };
}

/** The Prometheus series of `name` whose labels include every `labels` pair. */
function series(text: string, name: string, labels: Record<string, string>): string[] {
  return text.split("\n").filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
}
const sumOf = (lines: string[]): number => lines.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);

describe("the cause of ungrounded answers end to end (offline backend)", () => {
  it("groundwatch score (built binary): retrieval, generation and citation, in JSON and in the table", { timeout: 60_000 }, async () => {
    const input = join(tempDir(), "rows.jsonl");
    writeFileSync(input, CAUSE_ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const run = await groundwatch(["score", "--input", input, "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; verdict: string; cause?: string; relevance?: { context?: { addressed: boolean } } });
    expect(rows.map((r) => [r.id, r.verdict, r.cause])).toEqual([
      ["retrieval", "ungrounded", "retrieval"],
      ["generation", "ungrounded", "generation"],
      ["citation", "ungrounded", "citation"],
      ["grounded", "grounded", undefined],
    ]);
    expect(rows[0]?.relevance?.context?.addressed).toBe(false);
    const table = await groundwatch(["score", "--input", input, "--backend", "offline", "--format", "table"]);
    expect(table.code, table.stderr).toBe(0);
    for (const cause of ["retrieval", "generation", "citation"]) expect(table.stdout).toContain(`cause: ${cause} · context relevance`);
  });

  it("the SDK: each cause on the evaluation span, the counters and the flagged answers, and the relevance histograms", { timeout: 60_000 }, async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 } });
    for (const row of CAUSE_ROWS) monitor.observe({ route: `/${row.id}`, question: row.question, answer: row.answer, context: [...row.context] });
    await monitor.flush();
    const spans = otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate");
    for (const row of FAILING) {
      const span = spans.find((s) => s.attributes["groundwatch.route"] === `/${row.id}`);
      expect(span?.attributes, row.id).toMatchObject({ [ATTR_VERDICT]: "ungrounded", [ATTR_CAUSE]: row.id, [ATTR_RELEVANCE_CONTEXT]: expect.any(Number), [ATTR_RELEVANCE_ANSWER]: expect.any(Number) });
      const [flagged] = monitor.flagged({ route: `/${row.id}` });
      expect(flagged, row.id).toMatchObject({ cause: row.id, traceId: span?.spanContext().traceId });
      expect(flagged?.claims[0]?.cause).toBe(row.id);
    }
    expect(monitor.flagged({ cause: "retrieval" }).map((f) => f.route)).toEqual(["/retrieval"]);
    expect(JSON.stringify(monitor.flagged())).not.toMatch(new RegExp(SECRET_TEXT.join("|")));
    const metrics = await otel.metrics();
    const evaluations = metrics.get(METRICS.evaluations.name) ?? [];
    // Every cause's series is started at 0 per route (telemetry/record.ts); each route counts its one answer's cause.
    expect(evaluations.filter((p) => p.attributes[ATTR_VERDICT] === "ungrounded" && Number(p.value) > 0).map((p) => p.attributes[ATTR_CAUSE]).sort()).toEqual(["citation", "generation", "retrieval"]);
    expect(evaluations.find((p) => p.attributes[ATTR_VERDICT] === "grounded")?.attributes).not.toHaveProperty(ATTR_CAUSE);
    expect(metrics.get(METRICS.contextRelevance.name)).toHaveLength(4);
    expect(metrics.get(METRICS.answerRelevance.name)).toHaveLength(4);
  });

  it("the collector: /metrics by cause with the relevance histograms, /v1/flagged and groundwatch flagged --cause, with trace ids and no text", { timeout: 90_000 }, async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200 });
    const traces = CAUSE_ROWS.map(traceOf);
    for (const t of traces) expect((await postJson(`${c.url}/v1/traces`, t.body)).status).toBe(200);
    const flaggedOf = async (query = ""): Promise<FlaggedAnswer[]> => ((await (await fetch(`${c.url}/v1/flagged${query}`)).json()) as { flagged: FlaggedAnswer[] }).flagged;
    await expect.poll(() => flaggedOf().then((f) => f.length), { timeout: 30_000 }).toBe(3);
    const metricsText = async (): Promise<string> => (await fetch(`${c.url}/metrics`)).text();
    await expect.poll(async () => sumOf(series(await metricsText(), METRICS.evaluations.prometheus, {})), { timeout: 30_000 }).toBe(4);

    const text = await metricsText();
    for (const cause of ["retrieval", "generation", "citation"]) expect(sumOf(series(text, METRICS.evaluations.prometheus, { groundwatch_verdict: "ungrounded", groundwatch_cause: cause })), cause).toBe(1);
    expect(series(text, METRICS.evaluations.prometheus, { groundwatch_verdict: "grounded" }).join("\n")).not.toContain("groundwatch_cause");
    expect(sumOf(series(text, METRICS.claims.prometheus, { groundwatch_cause: "retrieval" }))).toBe(1);
    for (const name of [METRICS.contextRelevance.prometheus, METRICS.answerRelevance.prometheus]) {
      expect(sumOf(series(text, `${name}_count`, { groundwatch_route: "/ask" })), name).toBe(4);
      expect(series(text, `${name}_bucket`, { groundwatch_route: "/ask" }).length, name).toBeGreaterThan(0);
    }

    for (const [i, row] of CAUSE_ROWS.entries()) {
      if (row.id === "grounded") continue;
      const [answer, ...rest] = await flaggedOf(`?cause=${row.id}`);
      expect(rest).toEqual([]);
      expect(answer, row.id).toMatchObject({ traceId: traces[i]?.traceId, route: "/ask", verdict: "ungrounded", cause: row.id });
      expect(answer?.claims[0]?.cause).toBe(row.id);
    }
    const all = JSON.stringify(await flaggedOf());
    for (const secret of SECRET_TEXT) expect(all).not.toContain(secret);

    const cli = await groundwatch(["flagged", "--url", c.url, "--cause", "retrieval", "--format", "jsonl"]);
    expect(cli.code, cli.stderr).toBe(0);
    const printed = cli.stdout.trim().split("\n").map((l) => JSON.parse(l) as FlaggedAnswer);
    expect(printed.map((a) => [a.cause, a.traceId])).toEqual([["retrieval", traces[0]?.traceId]]);
    for (const secret of SECRET_TEXT) expect(cli.stdout).not.toContain(secret);
    const table = await groundwatch(["flagged", "--url", c.url, "--cause", "generation"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`/ask\\s+ungrounded\\s+0\\.\\d{3}\\s+generation\\s+${traces[1]?.traceId ?? "?"}`));
  });
});
