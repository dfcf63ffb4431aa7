import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import express from "express";
import { describe, expect, it, onTestFinished } from "vitest";
import { flaggedLines } from "../../src/cli/flagged.ts";
import { flaggedHandler } from "../../src/collector/flagged-route.ts";
import { createFlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import { runCli } from "../helpers/cli.ts";
import { RETURNS_DOC, postJson, startTestCollector } from "../helpers/collector.ts";
import { closedPort } from "../helpers/net.ts";
import { spawnGroup } from "../helpers/processes.ts";
import { tracesJson } from "../collector/otlp-json.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENV = { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_LOG_LEVEL: "", GROUNDWATCH_TOKEN: "" };
const TOKEN = "0123456789abcdef-flagged-cli";

/** An OpenInference trace on /ask whose answer misquotes the returns window. */
const ungrounded = (traceId: string): object =>
  tracesJson(traceId, [
    { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
    { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.content": RETURNS_DOC } },
    { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "You can return unopened items within 90 days of delivery." } },
  ]);
const T1 = "11111111111111111111111111111111";
const T2 = "22222222222222222222222222222222";

/** A collector holding one flagged answer (trace T1). */
async function collectorWithFlagged(extra: Parameters<typeof startTestCollector>[0] = {}): Promise<string> {
  const c = await startTestCollector({ traceTimeoutMs: 200, ...extra });
  const headers = { "content-type": "application/json", ...(extra.token ? { authorization: `Bearer ${extra.token}` } : {}) };
  expect((await postJson(`${c.url}/v1/traces`, ungrounded(T1), headers)).status).toBe(200);
  await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(1);
  return c.url;
}

describe("groundwatch flagged", () => {
  it("prints a collector's flagged answers as a table, with the trace id and no text without capture", async () => {
    const url = await collectorWithFlagged();
    const run = await runCli(["flagged", "--url", url, "--route", "/ask"], { env: ENV });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^TIME\s+ROUTE\s+VERDICT\s+SCORE\s+CAUSE\s+TRACE/);
    expect(run.stdout).toContain(T1);
    // A misquoted number from the document that addresses the question: the model's fault.
    expect(run.stdout).toMatch(/\/ask\s+ungrounded\s+0\.\d{3}\s+generation\s+/);
    expect(run.stdout).toMatch(/contradicted \(generation\) claim at \[\d+, \d+\) of the answer\n {6}contradicting evidence: document \[1\] at \[\d+, \d+\)/);
    expect(run.stdout).not.toContain("90 days");
  });

  // Issue 36: /v1/flagged named the evidence's document "doc 0" and carried neither the question nor the
  // answer, even with content capture on; the table read "evidence doc 0: <claim text>".
  it("names the evidence's document by its id, and carries the question and answer, only with content capture on", async () => {
    const QUESTION = "How long do I have to return an item?";
    const named = tracesJson(T1, [
      { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
      { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.id": "returns-policy.md", "retrieval.documents.0.document.content": RETURNS_DOC } },
      { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": QUESTION, "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "You can return unopened items within 90 days of delivery." } },
    ]);
    const flaggedOf = async (captureContent: boolean): Promise<{ reply: Record<string, unknown>; table: string }> => {
      const c = await startTestCollector({ traceTimeoutMs: 200, monitor: { captureContent } });
      expect((await postJson(`${c.url}/v1/traces`, named)).status).toBe(200);
      await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(1);
      const reply = (await (await fetch(`${c.url}/v1/flagged`)).json()) as { flagged: Array<Record<string, unknown>> };
      const run = await runCli(["flagged", "--url", c.url], { env: ENV });
      expect(run.code).toBe(0);
      return { reply: reply.flagged[0] ?? {}, table: run.stdout };
    };
    const on = await flaggedOf(true);
    expect(on.reply).toMatchObject({ question: QUESTION, answer: "You can return unopened items within 90 days of delivery." });
    expect(on.reply.claims).toEqual([expect.objectContaining({ verdict: "contradicted", evidence: expect.objectContaining({ doc: 0, id: "returns-policy.md" }) })]);
    expect(on.table).toContain(`  question: "${QUESTION}"`);
    expect(on.table).toContain('  answer:   "You can return unopened items within 90 days of delivery."');
    // The claim, then its evidence on a line of its own, labelled, its document by position and id.
    expect(on.table).toMatch(/\n {2}- contradicted \(generation\) claim at \[0, \d+\) of the answer "You can return unopened items within 90 days of delivery\."\n {6}contradicting evidence: document \[1\] \("returns-policy\.md"\) at \[\d+, \d+\) "Returns: you may return unopened items within 30 days of delivery for a full refund\."\n/);
    expect(on.table).not.toMatch(/\bdoc \d/);

    const off = await flaggedOf(false);
    expect(off.reply).not.toHaveProperty("question");
    expect(off.reply).not.toHaveProperty("answer");
    expect(JSON.stringify(off.reply)).not.toContain("returns-policy");
    expect(off.table).toMatch(/\n {2}- contradicted \(generation\) claim at \[0, \d+\) of the answer\n {6}contradicting evidence: document \[1\] at \[\d+, \d+\)\n/);
    expect(off.table).not.toContain("90 days");
  });

  it("prints JSONL, one answer a line, with the token it is given", async () => {
    const url = await collectorWithFlagged({ token: TOKEN, monitor: { captureContent: true } });
    expect((await runCli(["flagged", "--url", url], { env: ENV })).code).toBe(1);
    const run = await runCli(["flagged", "--url", url, "--format", "jsonl", "--token", TOKEN], { env: ENV });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { traceId: string; claims: Array<{ text?: string }> });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.traceId).toBe(T1);
    expect(lines[0]?.claims[0]?.text).toContain("90 days");
  });

  it("prints JSONL with the code points a terminal acts on escaped (8-bit CSI, bidi overrides): valid JSON, the same text", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200, monitor: { captureContent: true } });
    const answer = "You can return unopened items within \u009b31m90\u009b0m days \u202eof delivery\u202c and \u2066more\u2069.";
    const trace = tracesJson(T1, [
      { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
      { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.content": RETURNS_DOC } },
      { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": answer } },
    ]);
    expect((await postJson(`${c.url}/v1/traces`, trace)).status).toBe(200);
    await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(1);
    const sent = c.monitor.flagged()[0]?.claims.map((claim) => claim.text ?? "").join("") ?? "";
    expect(sent).toContain("\u009b");
    expect(sent).toContain("\u202e");
    const run = await runCli(["flagged", "--url", c.url, "--format", "jsonl"], { env: ENV });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(run.stdout).toContain("\\u009b31m90");
    const printed = JSON.parse(run.stdout.trim()) as { claims: Array<{ text?: string }> };
    expect(printed.claims.map((claim) => claim.text ?? "").join("")).toBe(sent);
  });

  it("exits 2 on bad flags and 1 when the collector cannot be reached", async () => {
    for (const argv of [["flagged"], ["flagged", "--url", "http://127.0.0.1:1", "--limit", "0"], ["flagged", "--url", "http://127.0.0.1:1", "--format", "csv"], ["flagged", "--url", "http://127.0.0.1:1", "--since", "soon"], ["flagged", "--url", "ftp://x"]]) {
      expect((await runCli(argv, { env: ENV })).code).toBe(2);
    }
    const run = await runCli(["flagged", "--url", `http://127.0.0.1:${await closedPort()}`], { env: ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("cannot reach the collector");
  });

  it("strips control sequences from what the collector sends before printing a table", () => {
    const lines = flaggedLines({ traceId: "t\u001b[2J", spanId: "s", time: "2026-01-01T00:00:00.000Z", route: "/a\u001b[31m", verdict: "ungrounded", score: 0.1, claims: [{ verdict: "unsupported", start: 0, end: 3, evidence: null, text: "x\u0007y" }] });
    const printed = lines.join("\n");
    for (const control of ["\u001b", "\u0007"]) expect(printed).not.toContain(control);
  });

  it("the built binary prints the flagged answer and, with --follow, each new one once until SIGINT", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200 });
    await postJson(`${c.url}/v1/traces`, ungrounded(T1));
    await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(1);
    const once = spawnGroup(process.execPath, ["bin/groundwatch.js", "flagged", "--url", c.url], { cwd: ROOT, env: ENV });
    expect((await once.exited).code).toBe(0);
    expect(once.stdout()).toContain(T1);

    const follow = spawnGroup(process.execPath, ["bin/groundwatch.js", "flagged", "--url", c.url, "--follow", "--interval", "0.2", "--format", "jsonl"], { cwd: ROOT, env: ENV });
    await follow.waitFor(new RegExp(T1));
    await postJson(`${c.url}/v1/traces`, ungrounded(T2));
    await follow.waitFor(new RegExp(T2));
    follow.signal("SIGINT");
    expect((await follow.exited).code).toBe(0);
    const traces = follow.stdout().trim().split("\n").map((l) => (JSON.parse(l) as { traceId: string }).traceId);
    expect(traces).toEqual([T1, T2]);
  }, 60_000);

  it("with --follow, prints every answer that arrives between two polls, page by page past --limit, and says how many the collector let go unread", async () => {
    // The collector's /v1/flagged (its route and ring) on a ring of 20 per route; a flood of 45
    // answers lands right after the command's first read, so its next poll finds 20 kept (two pages
    // of --limit 10) and 25 let go.
    const flaggedRing = createFlaggedRing({ perRoute: 20, maxBytes: 64 << 20 });
    const flood = (from: number, n: number): void => {
      for (let i = from; i < from + n; i++) flaggedRing.add({ traceId: i.toString(16).padStart(32, "0"), spanId: "b7ad6b7169203331", route: "/ask", verdict: "ungrounded", score: 0.1, claims: [] });
    };
    flood(0, 1);
    let requests = 0;
    const app = express();
    const handle = flaggedHandler({ page: (q) => flaggedRing.page(q), badRequest: (_req, res, error) => void res.status(400).json({ error }) });
    app.get("/v1/flagged", async (req, res) => {
      await handle(req, res);
      if (++requests === 1) flood(1, 45);
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const follow = spawnGroup(process.execPath, ["bin/groundwatch.js", "flagged", "--url", url, "--follow", "--interval", "0.1", "--limit", "10", "--format", "jsonl"], { cwd: ROOT, env: ENV });
    await follow.waitFor(/25 flagged answers were let go by the collector before they could be read/);
    const printed = (): number[] => follow.stdout().trim().split("\n").filter(Boolean).map((l) => parseInt((JSON.parse(l) as { traceId: string }).traceId, 16));
    await expect.poll(() => printed().length, { timeout: 15_000 }).toBe(21);
    flood(46, 3);
    await expect.poll(() => printed().length, { timeout: 15_000 }).toBe(24);
    follow.signal("SIGINT");
    expect((await follow.exited).code).toBe(0);
    expect(printed()).toEqual([0, ...Array.from({ length: 20 }, (_, i) => 26 + i), 46, 47, 48]);
    expect(follow.stderr().match(/let go/g)).toHaveLength(1);
  }, 60_000);

  it("says which replica did not answer when the collector's merged reply is partial, and still prints the others' answers", async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const url = await collectorWithFlagged({ peers: [down] });
    const run = await runCli(["flagged", "--url", url, "--format", "jsonl"], { env: ENV });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { traceId: string }).traceId)).toEqual([T1]);
    expect(run.stderr).toBe(`groundwatch flagged: partial: replica ${down} (unreachable) did not answer (all or part of the read): the list lacks their flagged answers\n`);
  });

  it("says when the collector keeps more answers than --limit printed", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200 });
    await postJson(`${c.url}/v1/traces`, ungrounded(T1));
    await postJson(`${c.url}/v1/traces`, ungrounded(T2));
    await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(2);
    const run = await runCli(["flagged", "--url", c.url, "--limit", "1", "--format", "jsonl"], { env: ENV });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("the collector keeps more answers than these 1 (the newest)");
    expect((await runCli(["flagged", "--url", c.url, "--limit", "2", "--format", "jsonl"], { env: ENV })).stderr).toBe("");
  });
});
