/**
 * A label posted to a replica that does not hold its answer, forwarded to the one that does over the
 * peers' transport: https with the deployment's private CA for the Service's name (the replicas are
 * dialled by an address no certificate names), bounded, counted, and sent to the address the asking
 * replica called (never one a reply names). Certificates: test/fixtures/tls (for groundwatch,
 * localhost and 127.0.0.1; the replicas listen on 127.0.0.2).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { createServer as createHttpServer } from "node:http";
import type { Server } from "node:https";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deleteTrace } from "../../src/cli/review/delete.ts";
import type { PeerOutcome } from "../../src/collector/peers.ts";
import { REPLICA_HEADER } from "../../src/collector/peers.ts";
import type { SpoolRecord } from "../../src/review/record.ts";
import { labelsPath, readLabelRecords } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import type { ReviewReplica, ReviewTls } from "../helpers/review-replicas.ts";
import { startReviewDeployment } from "../helpers/review-replicas.ts";
import { spoolRecord, writeSpool } from "../helpers/review-spool.ts";
import { TLS_FIXTURES, testCa } from "../helpers/tls.ts";

const TOKEN = "review-forward-token-0123456789";
const open: Array<{ close(): Promise<void> }> = [];
const servers: Array<Server | ReturnType<typeof createHttpServer>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

const tls: ReviewTls = { cert: readFileSync(TLS_FIXTURES.cert), key: readFileSync(TLS_FIXTURES.key), host: "127.0.0.2" };

/** A spool of `n` flagged answers of replica `replica`, ids `${replica}-${i}`. */
function spoolOf(replica: string, n: number): string {
  const records = Array.from({ length: n }, (_, i) => ({ ...spoolRecord(`${replica}-${i}`, "flagged", `2026-11-01T0${i}:00:00.000Z`), replica }));
  return writeSpool(join(tempDir(), replica), records, []);
}

const labelOf = (id: string): Record<string, unknown> => ({ v: 1, id, reviewer: "ana", time: "2026-12-01T10:00:00.000Z", label: 1, agreement: "disagree", kind: "flagged" });

/** POSTs a label request over https, trusting the fixtures' CA for the name groundwatch. */
function postLabel(base: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/v1/review/labels`,
      { method: "POST", agent: false, ca: testCa(), servername: "groundwatch", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(data)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

/** An https stand-in for a replica on 127.0.0.2: it says it holds every answer (naming another address, `via`, as where to send labels) and answers a POST with `onPost`. */
async function fakeHolder(replica: string, onPost: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; posts: () => number }> {
  let posts = 0;
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    if (req.method === "POST") {
      posts++;
      return onPost(req, res);
    }
    res.writeHead(200, { [REPLICA_HEADER]: replica, "content-type": "application/json" }).end(JSON.stringify({ replica, holds: true, via: "127.0.0.1:1" }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  return { url: `https://127.0.0.2:${(server.address() as AddressInfo).port}`, posts: () => posts };
}

describe("a label forwarded between replicas", () => {
  it("lands in the holder's labels file over https with the peers' CA and server name, the forward counted ok", async () => {
    const dirs = [spoolOf("r1", 2), spoolOf("r2", 3), spoolOf("r3", 2)];
    const outcomes: PeerOutcome[] = [];
    const deployment = await startReviewDeployment(
      dirs.map((dir, i) => ({ dir, replica: `r${i + 1}`, tls })),
      TOKEN,
      { ca: testCa(), serverName: "groundwatch", count: (o) => outcomes.push(o) },
    );
    open.push(deployment);
    const [a] = deployment.replicas as [ReviewReplica];
    const written = await postLabel(a.url, { label: labelOf("r2-2"), seen: [] });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body).toMatchObject({ written: labelOf("r2-2"), replica: "r2", partial: false });
    expect(readLabelRecords(labelsPath(dirs[1] as string)).labels.map((l) => l.id)).toEqual(["r2-2"]);
    expect(readLabelRecords(labelsPath(dirs[0] as string)).labels).toEqual([]);
    expect(readLabelRecords(labelsPath(dirs[2] as string)).labels).toEqual([]);
    // Asking who holds it: r1 itself and r2, r3 (self once), then the forward: one more ok.
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(3);
    expect(outcomes.filter((o) => o !== "ok" && o !== "self")).toEqual([]);
  });

  it("reaches no peer without the peers' CA: the label is not found (404), the answer partial, the failure counted, nothing written", async () => {
    const dirs = [spoolOf("r1", 1), spoolOf("r2", 1)];
    const outcomes: PeerOutcome[] = [];
    // Node's own trust store does not know the private CA: the holder is not reached at all.
    const deployment = await startReviewDeployment(
      dirs.map((dir, i) => ({ dir, replica: `r${i + 1}`, tls })),
      TOKEN,
      { serverName: "groundwatch", count: (o) => outcomes.push(o) },
    );
    open.push(deployment);
    const [a] = deployment.replicas as [ReviewReplica];
    const out = await postLabel(a.url, { label: labelOf("r2-0"), seen: [] });
    expect(out.status).toBe(404);
    // (This stand-in of the list knows no address of its own: r1 cannot even ask itself who it is.)
    expect(out.body).toMatchObject({ partial: true, replicas: { answered: ["r1"] } });
    expect((out.body.replicas as { failed: Array<{ reason: string }> }).failed.map((f) => f.reason)).toEqual(["unreachable", "unreachable"]);
    expect(outcomes).toContain("unreachable");
    expect(readLabelRecords(labelsPath(dirs[1] as string)).labels).toEqual([]);
  });

  it("bounds a forward to a holder that never answers or refuses the token: 502, partial, the reason counted, and sends it only where it asked", async () => {
    const dir = spoolOf("r1", 1);
    const silent = await fakeHolder("slow", () => undefined);
    const refusing = await fakeHolder("wrong-token", (_req, res) => res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}'));
    for (const [holder, reason] of [
      [silent, "timeout"],
      [refusing, "unauthorized"],
    ] as const) {
      const outcomes: PeerOutcome[] = [];
      const deployment = await startReviewDeployment([{ dir, replica: "r1", tls }], TOKEN, { urls: [holder.url], ca: testCa(), serverName: "groundwatch", timeoutMs: 500, count: (o) => outcomes.push(o) });
      open.push(deployment);
      const [a] = deployment.replicas as [ReviewReplica];
      const started = Date.now();
      const out = await postLabel(a.url, { label: labelOf("elsewhere-0"), seen: [] });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(out.status, JSON.stringify(out.body)).toBe(502);
      expect(out.body).toMatchObject({ partial: true, replicas: { failed: [{ peer: holder.url, replica: reason === "timeout" ? "slow" : "wrong-token", reason }] } });
      // Sent to the address r1 called, once: the `via` its reply names (127.0.0.1:1) is not used.
      expect(holder.posts()).toBe(1);
      expect(outcomes).toEqual(expect.arrayContaining(["ok", reason]));
    }
    expect(readLabelRecords(labelsPath(dir)).labels).toEqual([]);
  });

  it("refuses a label for an answer review delete removed (404 unknown answer), on the holder and through a peer", async () => {
    const dirs = [spoolOf("r1", 1), spoolOf("r2", 2)];
    const deployment = await startReviewDeployment(
      dirs.map((dir, i) => ({ dir, replica: `r${i + 1}`, tls })),
      TOKEN,
      { ca: testCa(), serverName: "groundwatch" },
    );
    open.push(deployment);
    const [a, b] = deployment.replicas as [ReviewReplica, ReviewReplica];
    // Held (and indexed) first: the index has read the segment before the delete.
    expect((await postLabel(b.url, { label: labelOf("r2-1"), seen: [] })).status).toBe(200);
    const gone = spoolRecord("r2-0", "flagged", "2026-11-01T00:00:00.000Z") satisfies SpoolRecord;
    expect(deleteTrace(dirs[1] as string, gone.traceId as string).records).toBe(1);
    const direct = await postLabel(b.url, { label: labelOf("r2-0"), seen: [] });
    expect(direct.status).toBe(404);
    expect(direct.body.error).toMatch(/no answer with this id/);
    const forwarded = await postLabel(a.url, { label: labelOf("r2-0"), seen: [] });
    expect(forwarded.status).toBe(404);
    expect(forwarded.body).toMatchObject({ partial: false });
    expect(readLabelRecords(labelsPath(dirs[1] as string)).labels.map((l) => l.id)).toEqual(["r2-1"]);
    // The other answer of the segment is still held.
    expect((await postLabel(a.url, { label: { ...labelOf("r2-1"), reviewer: "bo" }, seen: [{ reviewer: "ana", time: "2026-12-01T10:00:00.000Z" }] })).status).toBe(200);
  });
});
