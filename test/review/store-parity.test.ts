import { afterEach, describe, expect, it } from "vitest";
import { createRemoteStore } from "../../src/cli/review/remote-store.ts";
import { exportRows, majorityLabels } from "../../src/review/export.ts";
import { monitorPrecision } from "../../src/review/precision.ts";
import { reviewOrder } from "../../src/review/queue.ts";
import { openReviewSession } from "../../src/review/session.ts";
import { currentLabels, labelsPath, readLabelRecords } from "../../src/review/spool-files.ts";
import type { ReviewSnapshot, ReviewStore } from "../../src/review/store.ts";
import { createDirectoryStore } from "../../src/review/store.ts";
import { replicaSpools } from "../helpers/review-fixture-replicas.ts";
import { startReviewDeployment } from "../helpers/review-replicas.ts";

const TOKEN = "store-parity-token-0123456789";
const FROM = Date.parse("2026-11-01T00:00:00Z") / 1000;
const TO = Date.parse("2026-11-08T00:00:00Z") / 1000;
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** The figures every reader takes from a store: the review order, the export, evidence's precision. */
function figures(read: ReviewSnapshot): unknown {
  const majority = majorityLabels(currentLabels(read.labels));
  return {
    order: reviewOrder(read.records).map((r) => r.id),
    rows: exportRows(read.records, majority).rows,
    disagreements: exportRows(read.records, majority, "disagreements").rows,
    precision: monitorPrecision({ records: read.records, labels: majority.labels, from: FROM, to: TO }),
  };
}

async function bothStores(): Promise<{ dir: ReviewStore; remote: ReviewStore; spools: ReturnType<typeof replicaSpools>; url: string }> {
  const spools = replicaSpools();
  const deployment = await startReviewDeployment(spools.map((s) => ({ dir: s.dir, replica: s.replica })), TOKEN);
  open.push(deployment);
  const url = deployment.replicas[1]?.url ?? "";
  return { spools, url, dir: createDirectoryStore({ dirs: spools.map((s) => s.dir) }), remote: createRemoteStore({ url, token: TOKEN }) };
}

describe("the review store port: spool directories and a deployment's collectors read alike", () => {
  it("gives the same review order, export rows and evidence figures over the same records", async () => {
    const { dir, remote } = await bothStores();
    const [d, r] = [await dir.load(), await remote.load()];
    expect(r.missing).toEqual([]);
    expect(r.records).toEqual(d.records);
    expect(figures(r)).toEqual(figures(d));
    expect((figures(d) as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
  });

  it("a session over the collectors writes each label to the holder's labels file, and learns of another reviewer's label written since it loaded", async () => {
    const { remote, spools, url } = await bothStores();
    const ana = await openReviewSession({ store: remote, reviewer: "ana", now: () => new Date("2026-12-01T10:00:00Z") });
    const bo = await openReviewSession({ store: createRemoteStore({ url, token: TOKEN }), reviewer: "bo", now: () => new Date("2026-12-01T10:05:00Z") });
    const target = spools[2]?.records[5]?.id ?? "";
    expect(await bo.label({ id: target, agreement: "agree" })).toMatchObject({ replica: "r3" });
    // ana's session loaded before bo's label: refused, bo's label told; written once ana knows it.
    const refused = await ana.label({ id: target, agreement: "disagree" });
    expect(refused).toEqual({ conflict: [expect.objectContaining({ reviewer: "bo", id: target, agreement: "agree" })] });
    expect(ana.othersOf(target).map((l) => l.reviewer)).toEqual(["bo"]);
    expect(await ana.label({ id: target, agreement: "disagree" })).toMatchObject({ written: { reviewer: "ana", id: target }, replica: "r3" });
    const r3 = readLabelRecords(labelsPath(spools[2]?.dir ?? "")).labels.filter((l) => l.id === target);
    expect(r3.map((l) => l.reviewer)).toEqual(["bo", "ana"]);
    for (const s of spools.slice(0, 2)) expect(readLabelRecords(labelsPath(s.dir)).labels.some((l) => l.id === target)).toBe(false);
    // Undo is never refused, and goes to the holder too.
    expect(await ana.undo()).toBe(target);
    expect(readLabelRecords(labelsPath(spools[2]?.dir ?? "")).labels.at(-1)).toMatchObject({ reviewer: "ana", undo: true });
  });

  it("says which replicas did not answer, and what it read from the others", async () => {
    const spools = replicaSpools();
    const deployment = await startReviewDeployment(spools.map((s) => ({ dir: s.dir, replica: s.replica })), TOKEN);
    open.push(deployment);
    await deployment.replicas[2]?.close();
    const read = await createRemoteStore({ url: deployment.replicas[0]?.url ?? "", token: TOKEN }).load();
    expect(read.missing).toEqual([{ peer: deployment.replicas[2]?.url, reason: "unreachable" }]);
    expect(new Set(read.records.map((r) => r.replica))).toEqual(new Set(["r1", "r2"]));
  });

  it("fails with what went wrong: an unreachable collector, a refused token", async () => {
    const { url } = await bothStores();
    await expect(createRemoteStore({ url, token: "wrong-token-wrong-token" }).load()).rejects.toThrow(/refused the token \(401\)/);
    await expect(createRemoteStore({ url: "http://127.0.0.1:9", token: TOKEN }).load()).rejects.toThrow(/cannot reach the collector at http:\/\/127\.0\.0\.1:9/);
  });
});
