/**
 * createPeers().fanOut: every peer asked in parallel through the one bounded client, each call
 * bounded in time and size, authenticated, marked as a peer call, validated before it is used; the
 * replica itself left out; every failure named and counted. Peers are real local HTTP servers.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { PeerOutcome } from "../../src/collector/peers.ts";
import { PEER_HEADER, REPLICA_HEADER, createPeers, splitHostPort } from "../../src/collector/peers.ts";
import { closedPort } from "../helpers/net.ts";

const TOKEN = "peer-token-0123456789abcdef";

interface Peer {
  readonly url: string;
  readonly port: number;
  /** Requests seen: path with query, and headers. */
  readonly seen: Array<{ url: string; headers: IncomingMessage["headers"] }>;
  /** Bytes the handler wrote (a streaming one counts as it goes). */
  written: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** A local HTTP server answering with `handle`. */
async function peer(handle: (req: IncomingMessage, res: ServerResponse, self: Peer) => void, host = "127.0.0.1", at = 0): Promise<Peer> {
  const self: Peer = { url: "", port: 0, seen: [], written: 0 };
  const server = createServer((req, res) => {
    self.seen.push({ url: req.url ?? "", headers: req.headers });
    handle(req, res, self);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(at, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(self, { url: `http://${host}:${port}`, port });
}

/** A well-behaved replica named `name`: checks the token, answers `{ items: [name] }`. */
const replica = (name: string, host?: string, port?: number) =>
  peer((req, res) => {
    res.setHeader(REPLICA_HEADER, name);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ items: [name] }));
  }, host, port);

/** The reply's shape the tests ask for: `{ items: string[] }`, else it throws (bad_reply). */
function parseItems(body: unknown): string[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || !items.every((x) => typeof x === "string")) throw new Error("not a page");
  return items;
}

/** Outcomes counted, by outcome. */
function counter(): { count: (o: PeerOutcome) => void; counts: Partial<Record<PeerOutcome, number>> } {
  const counts: Partial<Record<PeerOutcome, number>> = {};
  return { counts, count: (o) => (counts[o] = (counts[o] ?? 0) + 1) };
}

describe("createPeers().fanOut", () => {
  it("asks every peer of a static list with the token and x-groundwatch-peer, and names who answered", async () => {
    const [a, b] = await Promise.all([replica("a"), replica("b")]);
    const { count, counts } = counter();
    const peers = createPeers({ urls: [a.url, `${b.url}/`], replica: "self", token: TOKEN }, { count });
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams({ limit: "5", route: "/x y" }), parseItems);
    expect(out.local).toBe("self");
    expect(out.answered.map((r) => [r.replica, r.value]).sort()).toEqual([
      ["a", ["a"]],
      ["b", ["b"]],
    ]);
    expect(out.failed).toEqual([]);
    expect(counts).toEqual({ ok: 2 });
    for (const p of [a, b]) {
      expect(p.seen).toHaveLength(1);
      expect(p.seen[0]?.url).toBe("/v1/flagged?limit=5&route=%2Fx+y");
      expect(p.seen[0]?.headers[PEER_HEADER]).toBe("1");
      expect(p.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it("leaves itself out: by its own address (not called), or by its own name in a reply", async () => {
    const [a, self] = await Promise.all([replica("a"), replica("me")]);
    const { count, counts } = counter();
    const byAddress = createPeers({ urls: [a.url, self.url], replica: "me", token: TOKEN }, { count, selfAddresses: () => [`127.0.0.1:${self.port}`] });
    const first = await byAddress.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(first.answered.map((r) => r.replica)).toEqual(["a"]);
    expect(self.seen).toHaveLength(0);
    const byName = createPeers({ urls: [a.url, self.url], replica: "me", token: TOKEN }, { count });
    const second = await byName.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(second.answered.map((r) => r.replica)).toEqual(["a"]);
    expect(second.failed).toEqual([]);
    expect(counts).toEqual({ ok: 2, self: 2 });
  });

  it("finds the peers of a headless Service through the resolver at each call, every address", async () => {
    // Two replicas on one port, two loopback addresses (Linux routes 127/8 to loopback): a Service's pods.
    const a = await replica("a", "127.0.0.1");
    const b = await replica("b", "127.0.0.2", a.port);
    let answers = ["127.0.0.1", "127.0.0.2"];
    const asked: string[] = [];
    const peers = createPeers({ dns: `groundwatch-peers.ns.svc:${a.port}`, replica: "self", token: TOKEN }, { resolve: (host) => (asked.push(host), Promise.resolve(answers)) });
    const first = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(asked).toEqual(["groundwatch-peers.ns.svc"]);
    expect(first.answered.map((r) => r.replica).sort()).toEqual(["a", "b"]);
    // Scaled down to one pod: the next call sees it.
    answers = ["127.0.0.2"];
    const second = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(asked).toHaveLength(2);
    expect(second.answered.map((r) => r.replica)).toEqual(["b"]);
    expect([a.seen.length, b.seen.length]).toEqual([1, 2]);
  });

  it("leaves out its own pod's address among the Service's, without calling it", async () => {
    const a = await replica("a", "127.0.0.1");
    const me = await replica("me", "127.0.0.2", a.port);
    const peers = createPeers({ dns: `svc:${a.port}`, replica: "me", token: TOKEN }, { resolve: () => Promise.resolve(["127.0.0.1", "127.0.0.2"]), selfAddresses: () => [`127.0.0.2:${a.port}`] });
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out.answered.map((r) => r.replica)).toEqual(["a"]);
    expect(me.seen).toHaveLength(0);
  });

  it("names a Service that does not resolve as one dns failure, counted", async () => {
    const { count, counts } = counter();
    const peers = createPeers({ dns: "nowhere.invalid:4319", replica: "self" }, { count, resolve: () => Promise.reject(new Error("ENOTFOUND")) });
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out).toEqual({ local: "self", answered: [], failed: [{ peer: "nowhere.invalid:4319", reason: "dns" }] });
    expect(counts).toEqual({ dns: 1 });
  });

  it("gives up on a DNS lookup that does not answer within peerTimeoutMs: one dns failure", async () => {
    const { count, counts } = counter();
    const peers = createPeers({ dns: "slow.invalid:4319", replica: "self", timeoutMs: 200 }, { count, resolve: () => new Promise<readonly string[]>(() => undefined) });
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out.failed).toEqual([{ peer: "slow.invalid:4319", reason: "dns" }]);
    expect(counts).toEqual({ dns: 1 });
  });

  it("gives up on a slow peer at peerTimeoutMs (a reply that never comes, and one that trickles) and answers for the others", async () => {
    const silent = await peer(() => undefined);
    const trickling = await peer((_req, res) => {
      res.writeHead(200, { [REPLICA_HEADER]: "trickle", "content-type": "application/json" });
      res.write('{"items":[');
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const good = await replica("a");
    const { count, counts } = counter();
    const peers = createPeers({ urls: [silent.url, trickling.url, good.url], replica: "self", token: TOKEN, timeoutMs: 300 }, { count });
    const started = Date.now();
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    // Generous: the bound is 300 ms; a hang would be the test's own 5 s timeout.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(out.answered.map((r) => r.replica)).toEqual(["a"]);
    expect(out.failed).toEqual([
      { peer: silent.url, reason: "timeout" },
      { peer: trickling.url, replica: "trickle", reason: "timeout" },
    ]);
    expect(counts).toEqual({ ok: 1, timeout: 2 });
  });

  it("stops reading a peer answering 50 MB at peerMaxBytes: too_large, most of it never sent", async () => {
    const FIFTY_MB = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const huge = await peer((_req, res, self) => {
      res.writeHead(200, { [REPLICA_HEADER]: "huge", "content-type": "application/json" });
      const pump = (): void => {
        while (self.written < FIFTY_MB && !res.destroyed) {
          self.written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const declared = await peer((_req, res, self) => {
      // A Content-Length over the cap is refused before any of the body is read.
      res.writeHead(200, { [REPLICA_HEADER]: "declared", "content-type": "application/json", "content-length": String(FIFTY_MB) });
      self.written += chunk.length;
      res.write(chunk);
    });
    const { count, counts } = counter();
    const peers = createPeers({ urls: [huge.url, declared.url], replica: "self", token: TOKEN, maxBytes: 1024 * 1024, timeoutMs: 10_000 }, { count });
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out.failed).toEqual([
      { peer: huge.url, replica: "huge", reason: "too_large" },
      { peer: declared.url, replica: "declared", reason: "too_large" },
    ]);
    expect(counts).toEqual({ too_large: 2 });
    // The read stopped at the cap (1 MiB): what the server got out before the connection closed is socket buffers, far from 50 MB.
    expect(huge.written).toBeLessThan(FIFTY_MB / 2);
  });

  it("names a peer with another token unauthorized, and one answering garbage, HTML or a wrong shape bad_reply", async () => {
    const wrongToken = createPeers({ urls: [(await replica("a")).url], replica: "self", token: "another-token-0123456789" });
    const garbage = await peer((_req, res) => res.writeHead(200, { [REPLICA_HEADER]: "g" }).end("\u0000not json{"));
    const html = await peer((_req, res) => res.writeHead(200, { [REPLICA_HEADER]: "h", "content-type": "text/html" }).end("<html>proxy</html>"));
    const shape = await peer((_req, res) => res.writeHead(200, { [REPLICA_HEADER]: "s" }).end('{"items":[1,2]}'));
    const error = await peer((_req, res) => res.writeHead(500, { [REPLICA_HEADER]: "e" }).end('{"items":[]}'));
    const nameless = await peer((_req, res) => res.writeHead(200).end('{"items":[]}'));
    const { count, counts } = counter();
    const out1 = await wrongToken.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out1.failed).toEqual([expect.objectContaining({ replica: "a", reason: "unauthorized" })]);
    const peers = createPeers({ urls: [garbage.url, html.url, shape.url, error.url, nameless.url], replica: "self", token: TOKEN }, { count });
    const out = await peers.fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out.answered).toEqual([]);
    expect(out.failed.map((f) => [f.replica, f.reason])).toEqual([
      ["g", "bad_reply"],
      ["h", "bad_reply"],
      ["s", "bad_reply"],
      ["e", "bad_reply"],
      [undefined, "bad_reply"],
    ]);
    expect(counts).toEqual({ bad_reply: 5 });
  });

  it("names a peer that refuses the connection unreachable", async () => {
    const port = await closedPort();
    const { count, counts } = counter();
    const out = await createPeers({ urls: [`http://127.0.0.1:${port}`], replica: "self" }, { count }).fanOut("/v1/flagged", new URLSearchParams(), parseItems);
    expect(out.failed).toEqual([{ peer: `http://127.0.0.1:${port}`, reason: "unreachable" }]);
    expect(counts).toEqual({ unreachable: 1 });
  });

  it("says whether any peer is configured, and splits HOST:PORT (IPv6 in brackets)", () => {
    expect(createPeers({ replica: "x" }).configured).toBe(false);
    expect(createPeers({ replica: "x", urls: ["http://a:1"] }).configured).toBe(true);
    expect(splitHostPort("svc.ns:4319")).toEqual({ host: "svc.ns", port: 4319 });
    expect(splitHostPort("[fd00::1]:80")).toEqual({ host: "fd00::1", port: 80 });
    for (const bad of ["svc", "svc:0", "svc:70000", "http://svc:1", ":1"]) expect(splitHostPort(bad)).toBeUndefined();
  });
});
