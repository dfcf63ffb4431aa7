import { describe, expect, it } from "vitest";
import { parseFlaggedQuery } from "../../src/collector/flagged-route.ts";
import { RETURNS_DOC, postJson, startTestCollector } from "../helpers/collector.ts";
import { tracesJson } from "./otlp-json.ts";

const TRACE_ID = "5b8efff798038103d269b633813fc60c";
const TOKEN = "0123456789abcdef-flagged-token";

/** An OpenInference trace on /ask whose answer misquotes the returns window (90 days for 30). */
const UNGROUNDED = tracesJson(TRACE_ID, [
  { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
  { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": "How long do I have to return an item?", "retrieval.documents.0.document.content": RETURNS_DOC } },
  { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "You can return unopened items within 90 days of delivery." } },
]);

interface Flagged {
  readonly traceId: string;
  readonly route: string;
  readonly verdict: string;
  readonly claims: ReadonlyArray<{ readonly text?: string; readonly evidence: { readonly doc: number } | null }>;
}
const flaggedOf = async (url: string, init?: RequestInit): Promise<Flagged[]> => ((await (await fetch(url, init)).json()) as { flagged: Flagged[] }).flagged;

describe("collector: GET /v1/flagged", () => {
  it("lists an ungrounded trace with its trace id and no text without content capture", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200 });
    expect((await postJson(`${c.url}/v1/traces`, UNGROUNDED)).status).toBe(200);
    const flagged = await expect.poll(() => flaggedOf(`${c.url}/v1/flagged`), { timeout: 15_000 }).toHaveLength(1).then(() => flaggedOf(`${c.url}/v1/flagged?route=/ask&limit=5`));
    expect(flagged[0]).toMatchObject({ traceId: TRACE_ID, route: "/ask", verdict: "ungrounded" });
    expect(flagged[0]?.claims[0]?.evidence?.doc).toBe(0);
    expect(JSON.stringify(flagged)).not.toContain("90 days");
    expect(await flaggedOf(`${c.url}/v1/flagged?route=/elsewhere`)).toEqual([]);
    expect(await flaggedOf(`${c.url}/v1/flagged?since=2999-01-01T00:00:00Z`)).toEqual([]);
  });

  it("carries the claim text with content capture on", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200, monitor: { captureContent: true } });
    await postJson(`${c.url}/v1/traces`, UNGROUNDED);
    await expect.poll(() => flaggedOf(`${c.url}/v1/flagged`), { timeout: 15_000 }).toHaveLength(1);
    const [answer] = await flaggedOf(`${c.url}/v1/flagged`);
    expect(answer?.claims[0]?.text).toContain("90 days");
  });

  it("sits behind the collector's token", async () => {
    const c = await startTestCollector({ token: TOKEN });
    expect((await fetch(`${c.url}/v1/flagged`)).status).toBe(401);
    const ok = await fetch(`${c.url}/v1/flagged`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ flagged: [], more: false, missed: 0 });
  });

  it("gives a cursor to read on from: with after=, the answers kept since, oldest first, and how many were let go unread", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 200 });
    const first = (await (await fetch(`${c.url}/v1/flagged`)).json()) as { flagged: Flagged[]; cursor: string; more: boolean; missed: number };
    expect(first).toMatchObject({ flagged: [], more: false, missed: 0 });
    expect(first.cursor).toMatch(/^\d+\.\d+\.\d+$/);
    await postJson(`${c.url}/v1/traces`, UNGROUNDED);
    await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(1);
    const next = (await (await fetch(`${c.url}/v1/flagged?after=${first.cursor}&limit=1`)).json()) as { flagged: Flagged[]; cursor: string; more: boolean; missed: number };
    expect(next.flagged.map((a) => a.traceId)).toEqual([TRACE_ID]);
    expect(next).toMatchObject({ more: false, missed: 0 });
    expect(await (await fetch(`${c.url}/v1/flagged?after=${next.cursor}`)).json()).toEqual({ flagged: [], cursor: next.cursor, more: false, missed: 0, replicas: { answered: [c.replica], failed: [] }, partial: false });
  });

  it("answers a bad parameter with a 400 naming it", async () => {
    const c = await startTestCollector();
    for (const [query, name] of [["limit=0", "limit"], ["limit=ten", "limit"], ["since=yesterday", "since"], ["route=a&route=b", "route"], ["cause=retreival", "cause"], ["after=yesterday", "after"], ["after=1.2", "after"]] as const) {
      const res = await fetch(`${c.url}/v1/flagged?${query}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain(name);
    }
  });
});

describe("parseFlaggedQuery", () => {
  it("caps the limit and reads since as an ISO time", () => {
    expect(parseFlaggedQuery({ limit: "999999", since: "2026-01-01T00:00:00Z", cause: "retrieval" })).toEqual({ ok: true, query: { limit: 1000, since: Date.UTC(2026, 0, 1), cause: "retrieval" } });
  });

  it("refuses a route longer than any label", () => {
    expect(parseFlaggedQuery({ route: "x".repeat(5000) })).toMatchObject({ ok: false, error: expect.stringContaining("route") });
  });
});
