/**
 * Peers over https, as a headless Service's are reached: dialled by pod address (no certificate names
 * it), checked against the collector's CA for the Service's name (peersCaFile, peersServerName); the
 * transport under the bounded client keeps its bounds. Certificates: test/fixtures/tls (for
 * groundwatch, localhost and 127.0.0.1; the peer listens on 127.0.0.2, which they do not name).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import type { Server } from "node:https";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { REPLICA_HEADER, createPeers } from "../../src/collector/peers.ts";
import { TLS_FIXTURES, testCa } from "../helpers/tls.ts";

const servers: Array<Server | ReturnType<typeof createHttpServer>> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

const answer = (name: string) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200, { [REPLICA_HEADER]: name, "content-type": "application/json" }).end(JSON.stringify({ items: [name] }));

/** An https peer on 127.0.0.2 with the fixtures' server certificate. */
async function httpsPeer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer({ cert: readFileSync(TLS_FIXTURES.cert), key: readFileSync(TLS_FIXTURES.key) }, handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  return `https://127.0.0.2:${(server.address() as AddressInfo).port}`;
}

const items = (body: unknown): string[] => (body as { items: string[] }).items;

describe("peers over https", () => {
  it("checks a peer dialled by address against the CA, for the server name", async () => {
    const url = await httpsPeer(answer("tls-peer"));
    const ok = await createPeers({ urls: [url], replica: "self", ca: testCa(), serverName: "groundwatch" }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(ok.answered.map((a) => [a.replica, a.value])).toEqual([["tls-peer", ["tls-peer"]]]);
    // The address is not a name the certificate carries; another CA (Node's store) does not know it.
    const noName = await createPeers({ urls: [url], replica: "self", ca: testCa() }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(noName.failed).toEqual([{ peer: url, reason: "unreachable" }]);
    const otherName = await createPeers({ urls: [url], replica: "self", ca: testCa(), serverName: "evil.example" }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(otherName.failed).toEqual([{ peer: url, reason: "unreachable" }]);
    const noCa = await createPeers({ urls: [url], replica: "self", serverName: "groundwatch" }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(noCa.failed).toEqual([{ peer: url, reason: "unreachable" }]);
  });

  it("reaches a Service's addresses over https when told to, and a plain-http peer of a list beside it", async () => {
    const url = await httpsPeer(answer("svc-peer"));
    const port = Number(new URL(url).port);
    const plain = createHttpServer(answer("plain"));
    servers.push(plain);
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const viaDns = await createPeers({ dns: `groundwatch-peers.obs.svc:${port}`, scheme: "https", replica: "self", ca: testCa(), serverName: "groundwatch" }, { resolve: () => Promise.resolve(["127.0.0.2"]) }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(viaDns.answered.map((a) => a.replica)).toEqual(["svc-peer"]);
    const mixed = await createPeers({ urls: [url, `http://127.0.0.1:${(plain.address() as AddressInfo).port}`], replica: "self", ca: testCa(), serverName: "groundwatch" }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(mixed.answered.map((a) => a.replica).sort()).toEqual(["plain", "svc-peer"]);
  });

  it("keeps the bounds over https: a silent peer times out, a 50 MB one is cut at the cap", async () => {
    const silent = await httpsPeer(() => undefined);
    const huge = await httpsPeer((_req, res) => {
      res.writeHead(200, { [REPLICA_HEADER]: "huge" });
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
    const started = Date.now();
    const out = await createPeers({ urls: [silent, huge], replica: "self", ca: testCa(), serverName: "groundwatch", timeoutMs: 500, maxBytes: 1024 * 1024 }).fanOut("/v1/flagged", new URLSearchParams(), items);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.failed).toEqual([
      { peer: silent, reason: "timeout" },
      { peer: huge, replica: "huge", reason: "too_large" },
    ]);
  });
});
