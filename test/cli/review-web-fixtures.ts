import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SpoolRecord } from "../../src/review/record.ts";
import { REVIEW_RECORD_VERSION } from "../../src/review/record.ts";
import { segmentName } from "../../src/review/spool-files.ts";

/** Spooled answers for the review page's tests: a flagged one with a contradicted claim and evidence, and a grounded sample. */
export function spoolRecord(id: string, overrides: Partial<SpoolRecord> = {}): SpoolRecord {
  const doc = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
  const answer = "Items may be returned within 90 days. Refunds are full.";
  return {
    v: REVIEW_RECORD_VERSION,
    id,
    kind: "flagged",
    time: "2026-12-01T10:00:00.000Z",
    route: "/api/returns",
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    replica: "r1",
    question: "How long do I have to return an item?",
    answer,
    documents: [{ id: "returns-policy", title: "Returns", text: doc }],
    verdict: "ungrounded",
    score: 0.12,
    threshold: 0.5,
    cause: "generation",
    claims: [
      { index: 0, text: "Items may be returned within 90 days.", start: 0, end: 37, verdict: "contradicted", score: 0.05, cause: "generation", evidence: { doc: 0, start: 9, end: 84 } },
      { index: 1, text: "Refunds are full.", start: 38, end: 55, verdict: "supported", score: 0.91 },
    ],
    backend: { name: "offline", version: "1", tier: "triage" },
    sampleRate: 1,
    ...overrides,
  };
}

/** Writes records to one segment of a spool directory (created), as the collector would. */
export function writeSpool(dir: string, records: readonly SpoolRecord[], replica = "r1", startMs = 1_764_583_200_000): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, segmentName(replica, startMs, 0)), records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}
