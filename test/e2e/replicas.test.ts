import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { logsJson, tracesJson } from "../collector/otlp-json.ts";
import { HashRing } from "../deploy/loadbalancing.ts";
import { closedPort } from "../helpers/net.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { prometheusAvailable } from "../helpers/prometheus.ts";
import { waitForCondition } from "../helpers/wait.ts";

/**
 * Scale-out (docs/deploy.md): two `groundwatch serve` replicas, and a real Prometheus scraping both
 * as the ServiceMonitor does (bearer token, /metrics). Traces reach the replicas as the OpenTelemetry
 * Collector's loadbalancing exporter with `routing_key: traceID` sends them (test/deploy/loadbalancing.ts:
 * its hash ring, per-trace batches of spans and of log records), also when a trace's spans come in
 * two requests and when its answer comes as a GenAI log event in a request of its own. Then the sums
 * over the replicas are what was sent, per route and verdict, and the accounting identity holds. And
 * without trace-id routing: a split trace is counted incomplete on each replica that got a part of
 * it, and scored nowhere — never twice.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "replica-test-token-0123456789abcdef";
const ROUTES = ["/api/returns", "/api/shipping", "/api/warranty"] as const;
const QUESTION = "How long do I have to return an item?";
const DOC = "Returns: you may return unopened items within 30 days of delivery for a full refund.";
/** The answers sent: one the document supports, one it contradicts (the verdicts `groundwatch score` gives them are what the sums are checked against). */
const ANSWERS = { supported: "Unopened items can be returned within 30 days of delivery.", contradicted: "Items can be returned within 90 days of delivery." } as const;
type AnswerKind = keyof typeof ANSWERS;
/** How a trace's records travel: all spans in one request; spans in two requests; spans and a GenAI log event in separate requests. */
type Shape = "one_request" | "split_spans" | "genai_logs";
const SHAPES: readonly Shape[] = ["one_request", "split_spans", "genai_logs"];

interface Sent {
  readonly traceId: string;
  readonly route: string;
  readonly kind: AnswerKind;
  readonly shape: Shape;
  /** The export requests carrying the trace, in the order sent: [path, body]. */
  readonly requests: ReadonlyArray<readonly ["/v1/traces" | "/v1/logs", object]>;
}

const hex = (seed: string, bytes: number): string => createHash("sha256").update(seed).digest("hex").slice(0, bytes * 2);

/** One interaction as an instrumented service exports it, in the given shape. */
function interaction(i: number, route: string, kind: AnswerKind, shape: Shape): Sent {
  const traceId = hex(`trace-${i}`, 16);
  const [root, retriever, llm] = [1, 2, 3].map((n) => hex(`span-${i}-${n}`, 8)) as [string, string, string];
  const rootSpan = { spanId: root, name: `POST ${route}`, attributes: { "http.route": route } };
  const service = "rag-service";
  if (shape === "genai_logs") {
    // OTel GenAI: no content on the spans; the question and answer are log events on the chat span.
    const spans = tracesJson(traceId, [rootSpan, { spanId: retriever, parentSpanId: root, name: "retrieval", attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": JSON.stringify([{ id: "1", content: DOC }]) } }, { spanId: llm, parentSpanId: root, name: "chat", attributes: { "gen_ai.operation.name": "chat" } }], service);
    const logs = logsJson(traceId, [{ spanId: llm, eventName: "gen_ai.user.message", body: { content: QUESTION } }, { spanId: llm, eventName: "gen_ai.choice", body: { index: 0, finish_reason: "stop", message: { role: "assistant", content: ANSWERS[kind] } } }], service);
    // Either order: logs may arrive before their spans.
    return { traceId, route, kind, shape, requests: i % 2 === 0 ? [["/v1/traces", spans], ["/v1/logs", logs]] : [["/v1/logs", logs], ["/v1/traces", spans]] };
  }
  // OpenInference: documents on the retriever span, the answer on the LLM span.
  const retrieverSpan = { spanId: retriever, parentSpanId: root, name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": DOC } };
  const llmSpan = { spanId: llm, parentSpanId: root, name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": ANSWERS[kind] } };
  if (shape === "one_request") return { traceId, route, kind, shape, requests: [["/v1/traces", tracesJson(traceId, [rootSpan, retrieverSpan, llmSpan], service)]] };
  // The retriever's span exported first (its batch flushed), the LLM's and the root's later.
  return { traceId, route, kind, shape, requests: [["/v1/traces", tracesJson(traceId, [retrieverSpan], service)], ["/v1/traces", tracesJson(traceId, [llmSpan, rootSpan], service)]] };
}

/** 36 interactions: every route × shape × answer, twice. */
function traffic(): Sent[] {
  const out: Sent[] = [];
  let i = 0;
  for (let rep = 0; rep < 2; rep++) for (const route of ROUTES) for (const shape of SHAPES) for (const kind of ["supported", "contradicted"] as const) out.push(interaction(i++, route, kind, shape));
  return out;
}

/** The verdict `groundwatch score` (the same build and backend as the replicas) gives each answer over the document and question. */
function verdicts(): Record<AnswerKind, string> {
  const rows = Object.entries(ANSWERS).map(([id, answer]) => JSON.stringify({ id, question: QUESTION, context: [DOC], answer }));
  const out = execFileSync(process.execPath, ["bin/groundwatch.js", "score", "--backend", "offline", "--format", "jsonl"], { cwd: ROOT, input: `${rows.join("\n")}\n`, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home" } });
  const byId = Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; verdict: string })
      .map((r) => [r.id, r.verdict]),
  );
  return { supported: byId.supported!, contradicted: byId.contradicted! };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "gw-replicas-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A `groundwatch serve` replica from the built CLI, on a free loopback port, with the token the scrape uses. */
async function replica(config: string): Promise<string> {
  const p = spawnGroup(process.execPath, ["bin/groundwatch.js", "serve", "--config", config, "--port", "0"], { cwd: ROOT, env: { ...process.env, GROUNDWATCH_TOKEN: TOKEN, HF_HOME: "/nonexistent/groundwatch-test-hf-home" } });
  return listeningUrl(p);
}

type Vector = Array<{ metric: Record<string, string>; value: [number, string] }>;

/** A real Prometheus scraping every replica each second, with the bearer token from a file (as the ServiceMonitor's Secret). */
async function prometheus(targets: readonly string[]): Promise<(q: string) => Promise<Vector>> {
  const dir = tempDir();
  const port = await closedPort();
  writeFileSync(join(dir, "token"), TOKEN);
  writeFileSync(
    join(dir, "prometheus.yml"),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: groundwatch\n    authorization:\n      credentials_file: ${join(dir, "token")}\n    static_configs:\n      - targets: [${targets.map((t) => JSON.stringify(t)).join(", ")}]\n`,
  );
  spawnGroup("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { cwd: dir });
  const url = `http://127.0.0.1:${port}`;
  await waitForCondition("prometheus ready", async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok === true);
  return async (q) => {
    const res = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as { status: string; data: { result: Vector } };
    if (res.status !== "success") throw new Error(`query failed: ${q}`);
    return res.data.result;
  };
}

/** sum by (labels) of a PromQL expression, as "a|b" → value. */
async function sumBy(query: (q: string) => Promise<Vector>, expr: string, labels: readonly string[]): Promise<Record<string, number>> {
  const rows = await query(labels.length ? `sum by (${labels.join(", ")}) (${expr})` : `sum(${expr})`);
  return Object.fromEntries(rows.map((r) => [labels.map((l) => r.metric[l] ?? "").join("|"), Number(r.value[1])]));
}
const total = async (query: (q: string) => Promise<Vector>, expr: string): Promise<number> => (await sumBy(query, expr, []))[""] ?? 0;

async function post(url: string, path: string, body: object): Promise<void> {
  const res = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body) });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  await res.arrayBuffer();
}

/** The replica's own count of a counter (all label sets), read from its /metrics. */
async function own(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  let n = 0;
  for (const line of text.split("\n")) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) n += Number(line.slice(line.lastIndexOf(" ") + 1));
  return n;
}

function config(dir: string, traceTimeoutMs: number): string {
  const path = join(dir, "groundwatch.yaml");
  writeFileSync(path, `sampling:\n  default: 1\nscoring:\n  backend: offline\ncollector:\n  traceTimeoutMs: ${traceTimeoutMs}\n`);
  return path;
}

describe.skipIf(!prometheusAvailable())("two replicas behind trace-id routing, scraped by a real Prometheus", () => {
  it("sum() over the replicas is what was sent, per route and verdict, and the accounting identity holds across them", { timeout: 90_000 }, async () => {
    const verdictOf = verdicts();
    expect(new Set(Object.values(verdictOf)), "the two answers get different verdicts").toEqual(new Set(["grounded", "ungrounded"]));
    const dir = tempDir();
    // A join timeout far longer than the test: every trace here completes by its parts, none by the clock.
    const cfg = config(dir, 60_000);
    const urls = await Promise.all([replica(cfg), replica(cfg)]);
    // The ring's endpoints are the sidecars' names as the gateway's resolver lists them; each stands for one replica.
    const endpoints = { "groundwatch-0.groundwatch-sidecars:4317": urls[0]!, "groundwatch-1.groundwatch-sidecars:4317": urls[1]! };
    const ring = new HashRing(Object.keys(endpoints).sort());
    const sent = traffic();
    const assigned = new Map<string, number>(urls.map((u) => [u, 0]));
    // Sent interleaved across traces (first requests of every trace, then the second ones), as
    // batches from many requests of a service arrive: a trace's second part comes after others' first.
    for (const step of [0, 1]) {
      for (const t of sent) {
        const request = t.requests[step];
        if (!request) continue;
        const url = endpoints[ring.endpointForTrace(t.traceId) as keyof typeof endpoints];
        if (step === 0) assigned.set(url, assigned.get(url)! + 1);
        await post(url, request[0], request[1]);
      }
    }
    // Both replicas carry part of the traffic, and each ends up scoring exactly the traces routed to it.
    for (const [url, n] of assigned) expect(n, url).toBeGreaterThan(0);
    for (const [url, n] of assigned) await waitForCondition(`${url} scores its ${n} traces`, async () => (await own(url, "groundwatch_observations_scored_total")) === n);

    const query = await prometheus(urls.map((u) => u.replace("http://", "")));
    await waitForCondition("both replicas scraped after scoring", async () => (await total(query, "up")) === 2 && (await total(query, "groundwatch_observations_scored_total")) === sent.length);

    // Per route and verdict, summed over the replicas: what was sent.
    const expected: Record<string, number> = {};
    for (const t of sent) expected[`${t.route}|${verdictOf[t.kind]}`] = (expected[`${t.route}|${verdictOf[t.kind]}`] ?? 0) + 1;
    expect(await sumBy(query, "groundwatch_evaluations_total", ["groundwatch_route", "groundwatch_verdict"])).toEqual(expected);
    expect(await sumBy(query, "groundwatch_groundedness_score_count", ["groundwatch_route"])).toEqual(Object.fromEntries(ROUTES.map((r) => [r, sent.filter((t) => t.route === r).length])));
    // Each replica's share is the ring's, and both have one.
    const byInstance = await sumBy(query, "groundwatch_evaluations_total", ["instance"]);
    expect(byInstance).toEqual(Object.fromEntries(urls.map((u) => [u.replace("http://", ""), assigned.get(u)!])));
    // Every trace was joined whole (by convention: OpenInference spans, or GenAI spans + log events), none left incomplete.
    expect(await sumBy(query, "groundwatch_collector_interactions_total", ["groundwatch_convention"])).toEqual({ openinference: sent.filter((t) => t.shape !== "genai_logs").length, genai: sent.filter((t) => t.shape === "genai_logs").length });
    expect(await total(query, "groundwatch_collector_incomplete_total")).toBe(0);
    // The accounting identity, across the replicas: seen = sampled + not sampled; sampled = scored + dropped + failed.
    const [seen, sampled, notSampled, scored, dropped, failed] = await Promise.all(["seen", "sampled", "not_sampled", "scored", "dropped", "failed"].map((n) => total(query, `groundwatch_observations_${n}_total`)));
    expect(seen).toBe(sent.length);
    expect(seen).toBe(sampled! + notSampled!);
    expect(sampled).toBe(scored! + dropped! + failed!);
    expect(scored).toBe(sent.length);
  });

  it("without trace-id routing, a trace split across replicas is counted incomplete where each part landed, and never scored twice", { timeout: 90_000 }, async () => {
    const dir = tempDir();
    // A short join timeout, so that the parts that never complete are settled quickly.
    const cfg = config(dir, 300);
    const urls = await Promise.all([replica(cfg), replica(cfg)]);
    const sent = traffic();
    // Requests spread without regard to trace id, as a plain load balancer (a Kubernetes Service, DNS
    // round-robin) spreads them: a trace sent in one request lands whole, wherever it lands; of a trace
    // sent in two requests, the second goes to the other replica (what round-robin does to about half of them).
    for (const step of [0, 1]) {
      for (const [j, t] of sent.entries()) {
        const request = t.requests[step];
        if (request) await post(urls[(j + step) % 2]!, request[0], request[1]);
      }
    }
    const whole = sent.filter((t) => t.requests.length === 1);
    const split = sent.filter((t) => t.requests.length === 2);
    await waitForCondition("every part settled", async () => {
      const parts = await Promise.all(urls.map(async (u) => (await own(u, "groundwatch_collector_interactions_total")) + (await own(u, "groundwatch_collector_incomplete_total"))));
      return parts[0]! + parts[1]! === whole.length + 2 * split.length;
    });
    for (const url of urls) await waitForCondition(`${url} scores what it joined`, async () => (await own(url, "groundwatch_observations_scored_total")) === (await own(url, "groundwatch_collector_interactions_total")));

    const query = await prometheus(urls.map((u) => u.replace("http://", "")));
    await waitForCondition("both replicas scraped after settling", async () => (await total(query, "up")) === 2 && (await total(query, "groundwatch_collector_incomplete_total")) === 2 * split.length && (await total(query, "groundwatch_observations_scored_total")) === whole.length);
    // Single-request traces are scored once each, wherever they landed; split traces are scored nowhere.
    expect(await total(query, "groundwatch_evaluations_total")).toBe(whole.length);
    expect(await total(query, "groundwatch_observations_seen_total")).toBe(whole.length);
    expect(await sumBy(query, "groundwatch_evaluations_total", ["groundwatch_route"])).toEqual(Object.fromEntries(ROUTES.map((r) => [r, whole.filter((t) => t.route === r).length])));
    // Each split trace is counted incomplete twice, once for each part, with the reason that part
    // lacks: the part with the root span under the trace's route, the part without it under the
    // service name. Spans split in two: the retriever's span alone has no answer; the root and LLM
    // spans have no documents. GenAI spans and log events apart: the spans (root, retrieval) have no
    // answer; the log events have the question and the answer but no documents (and an input message
    // that promptContext could read, which it is told: no_documents_prompt_available).
    const count = (route: string | undefined, shape: Shape): number => split.filter((t) => t.shape === shape && (route === undefined || t.route === route)).length;
    const expected: Record<string, number> = { "rag-service|no_answer": count(undefined, "split_spans"), "rag-service|no_documents_prompt_available": count(undefined, "genai_logs") };
    for (const r of ROUTES) Object.assign(expected, { [`${r}|no_documents`]: count(r, "split_spans"), [`${r}|no_answer`]: count(r, "genai_logs") });
    expect(await sumBy(query, "groundwatch_collector_incomplete_total", ["groundwatch_route", "groundwatch_reason"])).toEqual(expected);
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBe(2 * split.length);
    // Accounting still closes: nothing handed to scoring was lost.
    const [seen, sampled, notSampled, scored, dropped, failed] = await Promise.all(["seen", "sampled", "not_sampled", "scored", "dropped", "failed"].map((n) => total(query, `groundwatch_observations_${n}_total`)));
    expect(seen).toBe(sampled! + notSampled!);
    expect(sampled).toBe(scored! + dropped! + failed!);
  });
});
