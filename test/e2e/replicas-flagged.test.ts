import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { tracesJson } from "../collector/otlp-json.ts";
import { HashRing } from "../deploy/loadbalancing.ts";
import { closedPort } from "../helpers/net.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { BACKGROUND_WORK, waitForCondition, waitUntil } from "../helpers/wait.ts";

/**
 * Many replicas, one view (docs/deploy.md): three `groundwatch serve` replicas, each given the
 * others as peers, fed OTLP traces routed by trace id as the gateway's loadbalancing exporter routes
 * them (test/deploy/loadbalancing.ts's hash ring). GET /v1/flagged on any replica returns every
 * flagged answer of the three exactly once, newest first; `groundwatch flagged --url` against one
 * replica lists them all, and `--follow` reads on through the merged cursor; with one replica
 * stopped, the answer is marked partial and names it; restarted on its own review spool, its
 * flagged answers are back.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOKEN = "replicas-flagged-token-0123456789abcdef";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ROUTES = ["/api/returns", "/api/shipping"] as const;
const QUESTION = "How long do I have to return an item?";
const DOC = "Returns: you may return unopened items within 30 days of delivery for a full refund.";
const SUPPORTED = "Unopened items can be returned within 30 days of delivery.";
const CONTRADICTED = "Items can be returned within 90 days of delivery.";
const ENV = { ...process.env, GROUNDWATCH_TOKEN: TOKEN, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_LOG_LEVEL: "" };

const hex = (seed: string, bytes: number): string => createHash("sha256").update(seed).digest("hex").slice(0, bytes * 2);

/** One interaction as an OpenInference-instrumented service exports it: one request with its three spans. */
function trace(i: number, flagged: boolean): { traceId: string; route: string; body: object } {
  const traceId = hex(`flagged-trace-${i}`, 16);
  const route = ROUTES[i % ROUTES.length]!;
  const [root, retriever, llm] = [1, 2, 3].map((n) => hex(`flagged-span-${i}-${n}`, 8)) as [string, string, string];
  const body = tracesJson(
    traceId,
    [
      { spanId: root, name: `POST ${route}`, attributes: { "http.route": route } },
      { spanId: retriever, parentSpanId: root, name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": DOC } },
      { spanId: llm, parentSpanId: root, name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": flagged ? CONTRADICTED : SUPPORTED } },
    ],
    "rag-service",
  );
  return { traceId, route, body };
}

interface Replica {
  readonly name: string;
  readonly url: string;
  readonly process: GroupProcess;
  /** Starts this replica again: the same name, port, peers and review spool. */
  readonly restart: () => Promise<Replica>;
}

interface Reply {
  readonly flagged: Array<{ readonly replica: string; readonly traceId: string; readonly spanId: string; readonly time: string; readonly verdict: string }>;
  readonly cursor: string;
  readonly more: boolean;
  readonly replicas: { readonly answered: string[]; readonly failed: Array<{ readonly peer: string; readonly replica?: string; readonly reason: string }> };
  readonly partial: boolean;
}

async function flagged(url: string, query = "?limit=1000", headers: Record<string, string> = AUTH): Promise<Reply> {
  const res = await fetch(`${url}/v1/flagged${query}`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Reply;
}

/** The replica's own count of a counter (all label sets), from its /metrics. */
async function own(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: AUTH })).text();
  let n = 0;
  for (const line of text.split("\n")) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) n += Number(line.slice(line.lastIndexOf(" ") + 1));
  return n;
}

/** Three replicas on chosen loopback ports, each with all three as peers (each leaves itself out). */
async function deployment(): Promise<Replica[]> {
  const dir = mkdtempSync(join(tmpdir(), "gw-replicas-flagged-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, "groundwatch.yaml");
  writeFileSync(config, "sampling:\n  default: 1\nscoring:\n  backend: offline\ncollector:\n  traceTimeoutMs: 60000\n  peerTimeoutMs: 5000\n");
  const ports = [await closedPort(), await closedPort(), await closedPort()];
  const peers = ports.map((p) => `http://127.0.0.1:${p}`).join(",");
  // Each replica spools to a directory of its own (its volume), from which a restart fills its flagged answers back.
  const start = async (port: number, i: number): Promise<Replica> => {
    const name = `groundwatch-${i}`;
    const spool = join(dir, `spool-${name}`);
    const p = spawnGroup(process.execPath, ["bin/groundwatch.js", "serve", "--config", config, "--port", String(port), "--peers", peers, "--review-dir", spool], { cwd: ROOT, env: { ...ENV, GROUNDWATCH_CAPTURE_CONTENT: "1", GROUNDWATCH_REVIEW_REPLICA: name } });
    return { name, url: await listeningUrl(p), process: p, restart: () => start(port, i) };
  };
  return Promise.all(ports.map(start));
}

/** Sends traces `from`..`to` (every third one flagged) to the replica the ring picks; resolves with the flagged ones' trace ids once every replica scored its share. */
async function send(replicas: readonly Replica[], from: number, to: number): Promise<Set<string>> {
  // The ring's endpoints are the sidecars' names as the gateway's resolver lists them; each stands for one replica.
  const endpoints = new Map(replicas.map((r, i) => [`groundwatch-${i}.groundwatch-sidecars:4317`, r]));
  const ring = new HashRing([...endpoints.keys()].sort());
  const flaggedIds = new Set<string>();
  const expected = new Map<string, number>();
  for (const r of replicas) expected.set(r.url, await own(r.url, "groundwatch_observations_scored_total"));
  for (let i = from; i < to; i++) {
    const t = trace(i, i % 3 === 0);
    if (i % 3 === 0) flaggedIds.add(t.traceId);
    const r = endpoints.get(ring.endpointForTrace(t.traceId))!;
    expected.set(r.url, expected.get(r.url)! + 1);
    const res = await fetch(`${r.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", ...AUTH }, body: JSON.stringify(t.body) });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
  for (const [url, n] of expected) await waitForCondition(`${url} scores its ${n} traces`, async () => (await own(url, "groundwatch_observations_scored_total")) === n, BACKGROUND_WORK);
  return flaggedIds;
}

const newestFirst = (reply: Reply): boolean => reply.flagged.every((a, i) => i === 0 || a.time <= reply.flagged[i - 1]!.time);

describe("three replicas with peers: GET /v1/flagged for the whole deployment", () => {
  it("returns every flagged answer of the three exactly once, newest first, from any replica; groundwatch flagged lists and follows them all; a stopped replica makes it partial, named; restarted on its spool, its answers are back", { timeout: 180_000 }, async () => {
    const replicas = await deployment();
    const names = replicas.map((r) => r.name);
    const first = await send(replicas, 0, 45);
    // Each replica holds part of them (the ring spreads trace ids), none all.
    const local = await Promise.all(replicas.map((r) => flagged(r.url, "?limit=1000", { ...AUTH, "x-groundwatch-peer": "1" })));
    for (const [i, page] of local.entries()) {
      expect(page.flagged.length, names[i]).toBeGreaterThan(0);
      expect(page.flagged.length, names[i]).toBeLessThan(first.size);
    }
    expect(local.flatMap((p) => p.flagged.map((a) => a.traceId)).sort()).toEqual([...first].sort());

    for (const r of replicas) {
      const reply = await flagged(r.url);
      const traceIds = reply.flagged.map((a) => a.traceId);
      expect(traceIds.length, r.name).toBe(first.size);
      expect(new Set(traceIds), r.name).toEqual(first);
      expect(newestFirst(reply), r.name).toBe(true);
      expect(reply.flagged.every((a) => a.verdict === "ungrounded")).toBe(true);
      // Each answer names the replica that holds it: the one the ring routed its trace to.
      for (const [i, page] of local.entries()) for (const a of page.flagged) expect(reply.flagged.find((b) => b.traceId === a.traceId)?.replica).toBe(names[i]);
      expect(reply).toMatchObject({ partial: false, more: false, replicas: { failed: [] } });
      expect([...reply.replicas.answered].sort()).toEqual(names);
    }
    // The limit holds over the merge: the newest 5 of all three.
    const five = await flagged(replicas[1]!.url, "?limit=5");
    expect(five.flagged.map((a) => a.traceId)).toEqual((await flagged(replicas[2]!.url)).flagged.slice(0, 5).map((a) => a.traceId));
    expect(five.more).toBe(true);

    // groundwatch flagged against one replica: all of them.
    const once = spawnGroup(process.execPath, ["bin/groundwatch.js", "flagged", "--url", replicas[0]!.url, "--limit", "1000", "--format", "jsonl"], { cwd: ROOT, env: ENV });
    expect((await once.exited).code).toBe(0);
    const listed = once
      .stdout()
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { traceId: string }).traceId);
    expect(listed.length).toBe(first.size);
    expect(new Set(listed)).toEqual(first);

    // --follow, through the merged cursor, 4 at a time: the next answers of all three, each once.
    const follow = spawnGroup(process.execPath, ["bin/groundwatch.js", "flagged", "--url", replicas[2]!.url, "--follow", "--interval", "0.2", "--limit", "4", "--format", "jsonl"], { cwd: ROOT, env: ENV });
    await waitUntil("the first page printed", () => follow.stdout().trim().split("\n").length, (n) => n >= 4);
    const printedBefore = follow.stdout().trim().split("\n").length;
    const second = await send(replicas, 45, 90);
    const followed = await waitUntil(
      "--follow prints the new answers",
      () =>
        follow
          .stdout()
          .trim()
          .split("\n")
          .slice(printedBefore)
          .map((l) => (JSON.parse(l) as { traceId: string }).traceId),
      (ids) => ids.length >= second.size,
      BACKGROUND_WORK,
    );
    expect(followed.length).toBe(second.size);
    expect(new Set(followed)).toEqual(second);
    expect(follow.stderr()).not.toContain("let go");
    follow.signal("SIGINT");
    await follow.exited;

    // One replica stopped: the others answer, marked partial, naming it; they hold every other answer, once.
    const stopped = replicas[1]!;
    const held = new Set((await flagged(stopped.url, "?limit=1000", { ...AUTH, "x-groundwatch-peer": "1" })).flagged.map((a) => a.traceId));
    stopped.process.signal("SIGTERM");
    await stopped.process.exited;
    const rest = [...first, ...second].filter((id) => !held.has(id)).sort();
    for (const r of [replicas[0]!, replicas[2]!]) {
      const reply = await flagged(r.url);
      expect(reply.partial, r.name).toBe(true);
      expect(reply.replicas.failed, r.name).toEqual([{ peer: stopped.url, reason: "unreachable" }]);
      expect([...reply.replicas.answered].sort()).toEqual([replicas[0]!.name, replicas[2]!.name]);
      expect(reply.flagged.map((a) => a.traceId).sort()).toEqual(rest);
      expect(newestFirst(reply)).toBe(true);
    }
    expect(await own(replicas[0]!.url, "groundwatch_peer_requests_total")).toBeGreaterThan(0);

    // Restarted on its own spool, the stopped replica fills its flagged answers back: the whole set again, each once, not partial.
    const back = await stopped.restart();
    expect(await own(back.url, "groundwatch_flagged_restored_total")).toBe(held.size);
    for (const r of [replicas[0]!, back]) {
      const reply = await flagged(r.url);
      expect(reply.partial, r.name).toBe(false);
      expect(reply.flagged.map((a) => a.traceId).sort(), r.name).toEqual([...first, ...second].sort());
      expect(reply.flagged.filter((a) => a.replica === stopped.name).map((a) => a.traceId).sort(), r.name).toEqual([...held].sort());
      expect(newestFirst(reply), r.name).toBe(true);
    }
  });
});
