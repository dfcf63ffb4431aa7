import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REVIEW_PAGE_MAX_LIMIT } from "../../src/collector/review-pages.ts";
import { labelsPath, readLabelRecords } from "../../src/review/spool-files.ts";
import type { LabelRecord, SpoolRecord } from "../../src/review/record.ts";
import { tempDir } from "../helpers/cli.ts";
import type { ReviewReplica } from "../helpers/review-replicas.ts";
import { startReviewDeployment, startReviewReplica } from "../helpers/review-replicas.ts";
import { reviewLabel, spoolRecord, writeSpool } from "../helpers/review-spool.ts";

const TOKEN = "review-route-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** A spool of `n` flagged answers of replica `replica`, ids `${replica}-${i}`. */
function spoolOf(replica: string, n: number, labels: (records: SpoolRecord[]) => LabelRecord[] = () => []): string {
  const records = Array.from({ length: n }, (_, i) => ({ ...spoolRecord(`${replica}-${i}`, "flagged", `2026-11-01T${String(i % 24).padStart(2, "0")}:00:00.000Z`), replica }));
  return writeSpool(join(tempDir(), replica), records, labels(records));
}

async function get(base: string, path: string, headers: Record<string, string> = auth): Promise<{ status: number; body: Record<string, unknown>; replica: string | null }> {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, replica: res.headers.get("x-groundwatch-replica") };
}

async function post(base: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/v1/review/labels`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function replica(dir: string | undefined, name = "r1"): Promise<ReviewReplica> {
  const r = await startReviewReplica({ dir, replica: name, token: TOKEN });
  open.push(r);
  return r;
}

/** Every record id a client reads page by page, and the pages it took. */
async function readAll(base: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor = "";
  let pages = 0;
  for (;;) {
    const { body } = await get(base, `/v1/review/records?limit=${limit}${cursor ? `&after=${cursor}` : ""}`);
    pages++;
    ids.push(...(body.records as Array<{ record: SpoolRecord }>).map((e) => e.record.id));
    if (body.more !== true) return { ids, pages };
    cursor = body.cursor as string;
  }
}

describe("the collector's review API", () => {
  it("refuses a request without the bearer token (401) and names --review-dir when the collector has no spool (404)", async () => {
    const withSpool = await replica(spoolOf("r1", 2));
    expect((await get(withSpool.url, "/v1/review/records", {})).status).toBe(401);
    expect((await get(withSpool.url, "/v1/review/labels", { authorization: "Bearer wrong-token-wrong-token" })).status).toBe(401);
    const without = await replica(undefined);
    const reply = await get(without.url, "/v1/review/records");
    expect(reply.status).toBe(404);
    expect(reply.body.error).toContain("--review-dir");
    expect((await post(without.url, {})).status).toBe(404);
  });

  it("pages the spool's records oldest first, each once, every reply naming the replica, with a limit cap", async () => {
    const r = await replica(spoolOf("r1", 25));
    const first = await get(r.url, "/v1/review/records?limit=10");
    expect(first.replica).toBe("r1");
    expect(first.body).toMatchObject({ replica: "r1", more: true, partial: false, replicas: { answered: ["r1"], failed: [] } });
    expect((first.body.records as unknown[])[0]).toMatchObject({ replica: "r1", record: { id: "r1-0" } });
    const all = await readAll(r.url, 10);
    expect(all.ids).toEqual(Array.from({ length: 25 }, (_, i) => `r1-${i}`));
    expect(all.pages).toBe(3);
    // A limit over the cap is read as the cap; a bad limit or cursor is a 400 naming it.
    const big = await get(r.url, `/v1/review/records?limit=${REVIEW_PAGE_MAX_LIMIT * 10}`);
    expect(big.body.more).toBe(false);
    expect((await get(r.url, "/v1/review/records?limit=0")).body.error).toContain("limit");
    expect((await get(r.url, "/v1/review/records?after=not-a-cursor!")).body.error).toContain("after");
  });

  it("writes a label to the holder's labels file, and refuses one (409, nothing written) when others labelled the answer unseen", async () => {
    const dir = spoolOf("r1", 2, (records) => [reviewLabel(records[1] as SpoolRecord, "bo", 0)]);
    const r = await replica(dir);
    const label = { v: 1, id: "r1-0", reviewer: "ana", time: "2026-12-01T10:00:00.000Z", label: 0, agreement: "agree", kind: "flagged" };
    const ok = await post(r.url, { label, seen: [] });
    expect(ok).toEqual({ status: 200, body: { written: label, replica: "r1" } });
    // bo labelled r1-1 before ana's session knew it: refused with bo's label, then written once ana has seen it.
    const other = { ...label, id: "r1-1" };
    const refused = await post(r.url, { label: other, seen: [] });
    expect(refused.status).toBe(409);
    expect(refused.body.conflict).toEqual([expect.objectContaining({ reviewer: "bo", id: "r1-1", agreement: "agree" })]);
    expect(readLabelRecords(labelsPath(dir)).labels.filter((l) => l.reviewer === "ana").map((l) => l.id)).toEqual(["r1-0"]);
    const anyway = await post(r.url, { label: other, seen: [{ reviewer: "bo", time: "2026-11-20T12:00:00.000Z" }] });
    expect(anyway.status).toBe(200);
    expect(readLabelRecords(labelsPath(dir)).labels.filter((l) => l.reviewer === "ana").map((l) => l.id)).toEqual(["r1-0", "r1-1"]);
    // A body that is not a label, and an id no replica holds.
    expect((await post(r.url, { label: { ...label, label: 7 } })).status).toBe(400);
    expect((await post(r.url, { label: { ...label, id: "nope" }, seen: [] })).status).toBe(404);
  });

  it("answers for the whole deployment: every replica's records once, the labels of all, and a label forwarded to the replica holding its answer", async () => {
    const dirs = [spoolOf("r1", 3), spoolOf("r2", 4), spoolOf("r3", 5)];
    const deployment = await startReviewDeployment(dirs.map((dir, i) => ({ dir, replica: `r${i + 1}` })), TOKEN);
    open.push(deployment);
    const [a] = deployment.replicas as [ReviewReplica];
    const all = await readAll(a.url, 2);
    expect([...all.ids].sort()).toEqual([...dirs.flatMap((_, i) => Array.from({ length: i + 3 }, (__, j) => `r${i + 1}-${j}`))].sort());
    expect(new Set(all.ids).size).toBe(all.ids.length);
    // Asked of r1, a label of r3's answer lands in r3's labels file, and nowhere else.
    const label = { v: 1, id: "r3-4", reviewer: "ana", time: "2026-12-01T10:00:00.000Z", label: 1, agreement: "disagree", kind: "flagged" };
    const written = await post(a.url, { label, seen: [] });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body).toMatchObject({ written: label, replica: "r3", partial: false });
    expect(readFileSync(labelsPath(dirs[2] as string), "utf8")).toContain('"id":"r3-4"');
    expect(readLabelRecords(labelsPath(dirs[0] as string)).labels).toEqual([]);
    const labels = await get(a.url, "/v1/review/labels");
    expect(labels.body.labels).toEqual([{ replica: "r3", label }]);
  });

  it("marks a merged answer partial and names the replica that did not answer", async () => {
    const dirs = [spoolOf("r1", 2), spoolOf("r2", 2)];
    const deployment = await startReviewDeployment(dirs.map((dir, i) => ({ dir, replica: `r${i + 1}` })), TOKEN);
    open.push(deployment);
    const [a, b] = deployment.replicas as [ReviewReplica, ReviewReplica];
    await b.close();
    const reply = await get(a.url, "/v1/review/records");
    expect(reply.body).toMatchObject({ partial: true, replicas: { answered: ["r1"], failed: [{ peer: b.url, reason: "unreachable" }] } });
    expect((reply.body.records as unknown[]).length).toBe(2);
  });
});
