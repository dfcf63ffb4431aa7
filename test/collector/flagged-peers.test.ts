/**
 * GET /v1/flagged through real collectors with peers: a peer collector's answers merged with the
 * local ones, each naming its replica; hostile peers (slow, 50 MB, another token, garbage, down)
 * bounded, named in `replicas.failed`, marked partial and counted on /metrics; a peer call
 * answered locally; every reply naming its replica; the peer options resolved and refused.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import type { RunningCollector } from "../../src/collector/server.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { COLLECTOR_TEST_ENV, postJson, startTestCollector } from "../helpers/collector.ts";
import { closedPort } from "../helpers/net.ts";
import { metric } from "../helpers/serve.ts";

const TOKEN = "0123456789abcdef-peers-token";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";

/** A local HTTP server answering with `handle`; the requests it saw. */
async function hostile(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    seen++;
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: () => seen };
}

interface Reply {
  readonly flagged: Array<{ readonly replica: string; readonly route: string; readonly time: string }>;
  readonly cursor: string;
  readonly more: boolean;
  readonly replicas: { readonly answered: string[]; readonly failed: Array<{ peer: string; replica?: string; reason: string }> };
  readonly partial: boolean;
}

const flaggedOf = async (c: RunningCollector, query = "", headers: Record<string, string> = AUTH): Promise<{ reply: Reply; replica: string | null }> => {
  const res = await fetch(`${c.url}/v1/flagged${query}`, { headers });
  expect(res.status).toBe(200);
  return { reply: (await res.json()) as Reply, replica: res.headers.get("x-groundwatch-replica") };
};

/** Flags `n` answers on `c`'s route `route` (each a returns window the document does not state), once scored. */
async function flagOn(c: RunningCollector, route: string, n: number): Promise<void> {
  const body = Array.from({ length: n }, (_, i) => ({ route, context: [DOC], answer: `Items may be returned within ${90 + i} days in any condition.` }));
  const res = await postJson(`${c.url}/v1/observations`, body, { "content-type": "application/json", ...AUTH });
  expect(res.status).toBe(202);
  await c.monitor.flush();
  expect(c.monitor.flagged({ route })).toHaveLength(n);
}

describe("GET /v1/flagged with peers", () => {
  it("merges a peer collector's answers with its own, each naming its replica, and skips itself in the list", async () => {
    const b = await startTestCollector({ token: TOKEN, env: { ...COLLECTOR_TEST_ENV, GROUNDWATCH_REVIEW_REPLICA: "replica-b" } });
    const port = await closedPort();
    const a = await startTestCollector({ token: TOKEN, port, peers: [`http://127.0.0.1:${port}`, b.url], env: { ...COLLECTOR_TEST_ENV, GROUNDWATCH_REVIEW_REPLICA: "replica-a" } });
    expect([a.replica, b.replica]).toEqual(["replica-a", "replica-b"]);
    await flagOn(a, "/a", 2);
    await flagOn(b, "/b", 3);
    const { reply, replica } = await flaggedOf(a);
    expect(replica).toBe("replica-a");
    expect(reply.flagged.map((f) => `${f.replica} ${f.route}`).sort()).toEqual(["replica-a /a", "replica-a /a", "replica-b /b", "replica-b /b", "replica-b /b"]);
    expect(reply.flagged.map((f) => f.time)).toEqual(reply.flagged.map((f) => f.time).sort().reverse());
    expect(reply).toMatchObject({ partial: false, replicas: { answered: ["replica-a", "replica-b"], failed: [] } });
    expect(reply.cursor).toMatch(/^replica-a:\d+\.\d+\.\d+,replica-b:\d+\.\d+\.\d+$/);
    // A peer call is answered from the replica's own answers.
    const local = await flaggedOf(a, "", { ...AUTH, "x-groundwatch-peer": "1" });
    expect(local.reply.flagged.map((f) => f.route)).toEqual(["/a", "/a"]);
    const metrics = await (await fetch(`${a.url}/metrics`, { headers: AUTH })).text();
    expect(metric(metrics, "groundwatch_peer_requests_total", 'groundwatch_outcome="ok"')).toBe(1);
    expect(metric(metrics, "groundwatch_peer_requests_total", 'groundwatch_outcome="self"')).toBe(1);
  });

  it("bounds, names and counts hostile peers (slow, 50 MB, another token, garbage, down) and marks the answer partial, without hanging", async () => {
    const slow = await hostile(() => undefined);
    const huge = await hostile((_req, res) => {
      res.writeHead(200, { "x-groundwatch-replica": "huge", "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 50 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const garbage = await hostile((_req, res) => res.writeHead(200, { "x-groundwatch-replica": "garbage" }).end("<html>not a page</html>"));
    const otherToken = await startTestCollector({ token: "another-token-0123456789abcdef", env: { ...COLLECTOR_TEST_ENV, GROUNDWATCH_REVIEW_REPLICA: "other" } });
    const down = `http://127.0.0.1:${await closedPort()}`;
    const a = await startTestCollector({ token: TOKEN, peers: [slow.url, huge.url, garbage.url, otherToken.url, down], peerTimeoutMs: 1000, peerMaxBytes: 1024 * 1024 });
    await flagOn(a, "/a", 1);
    const started = Date.now();
    const { reply } = await flaggedOf(a);
    // Generous: each call is bounded by 1 s; a hang would be the test's timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(reply.flagged.map((f) => f.route)).toEqual(["/a"]);
    expect(reply.partial).toBe(true);
    expect(reply.replicas.answered).toEqual([a.replica]);
    expect(new Map(reply.replicas.failed.map((f) => [f.peer, f.reason]))).toEqual(
      new Map([
        [slow.url, "timeout"],
        [huge.url, "too_large"],
        [garbage.url, "bad_reply"],
        [otherToken.url, "unauthorized"],
        [down, "unreachable"],
      ]),
    );
    expect(reply.replicas.failed.find((f) => f.peer === otherToken.url)?.replica).toBe("other");
    const metrics = await (await fetch(`${a.url}/metrics`, { headers: AUTH })).text();
    for (const outcome of ["timeout", "too_large", "bad_reply", "unauthorized", "unreachable"]) {
      expect(metric(metrics, "groundwatch_peer_requests_total", `groundwatch_outcome="${outcome}"`), outcome).toBe(1);
    }
    // A peer call is never fanned out again.
    const before = slow.seen();
    await flaggedOf(a, "", { ...AUTH, "x-groundwatch-peer": "1" });
    expect(slow.seen()).toBe(before);
  });

  it("names its replica on every reply of its API, a refusal included", async () => {
    const a = await startTestCollector({ token: TOKEN, env: { ...COLLECTOR_TEST_ENV, GROUNDWATCH_REVIEW_REPLICA: "named" } });
    for (const [path, init, status] of [
      ["/v1/flagged", {}, 401],
      ["/metrics", { headers: AUTH }, 200],
      ["/nowhere", { headers: AUTH }, 404],
      ["/v1/flagged?limit=0", { headers: AUTH }, 400],
    ] as const) {
      const res = await fetch(`${a.url}${path}`, init);
      await res.arrayBuffer();
      expect([path, res.status, res.headers.get("x-groundwatch-replica")]).toEqual([path, status, "named"]);
    }
    const { reply } = await flaggedOf(a);
    expect(reply).toMatchObject({ flagged: [], more: false, replicas: { answered: ["named"], failed: [] }, partial: false });
    expect(reply.cursor).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("peer options", () => {
  const resolve = (options: Parameters<typeof resolveCollectorOptions>[0]) => resolveCollectorOptions({ env: {}, ...options });

  it("reads a list from a flag, the environment or the config file, a Service's HOST:PORT, and the bounds", () => {
    expect(resolve({ peers: "http://10.0.0.1:4319/, http://10.0.0.2:4319" }).peers).toMatchObject({ urls: ["http://10.0.0.1:4319", "http://10.0.0.2:4319"], dns: undefined, timeoutMs: 2000, maxBytes: 8 * 1024 * 1024 });
    expect(resolve({ env: { GROUNDWATCH_PEERS: "http://a:1", GROUNDWATCH_PEER_TIMEOUT_MS: "500", GROUNDWATCH_PEER_MAX_BYTES: "4096" } }).peers).toMatchObject({ urls: ["http://a:1"], timeoutMs: 500, maxBytes: 4096 });
    expect(resolve({ env: { GROUNDWATCH_PEERS_DNS: "groundwatch-peers.obs.svc:4319" } }).peers).toMatchObject({ urls: [], dns: "groundwatch-peers.obs.svc:4319" });
    expect(resolve({}).peers).toMatchObject({ urls: [], dns: undefined });
  });

  it("refuses a bad setting with a ConfigError naming it", () => {
    const cases: Array<[Parameters<typeof resolveCollectorOptions>[0], string]> = [
      [{ peers: "ftp://a:1" }, "peers"],
      [{ peers: "http://user:pw@a:1" }, "peers"],
      [{ peers: "not a url" }, "peers"],
      [{ env: { GROUNDWATCH_PEERS_DNS: "svc" } }, "GROUNDWATCH_PEERS_DNS"],
      [{ peers: "http://a:1", peersDns: "svc:1" }, "peersDns"],
      [{ peersServerName: "groundwatch", peers: "http://a:1" }, "peersServerName"],
      [{ peers: "https://a:1", peersCaFile: "/nonexistent/ca.crt" }, "peersCaFile"],
      [{ env: { GROUNDWATCH_PEER_TIMEOUT_MS: "0" } }, "GROUNDWATCH_PEER_TIMEOUT_MS"],
      [{ peerMaxBytes: 10 }, "peerMaxBytes"],
    ];
    for (const [options, field] of cases) {
      expect(() => resolve(options), field).toThrow(ConfigError);
      expect(() => resolve(options), field).toThrow(field);
    }
  });
});
