/**
 * Spool records for the terminal review's tests, written directly in the contract's layout
 * (`segmentName`, one JSON line a record), so the tests need no collector.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { SpoolRecord } from "../../src/review/record.ts";
import { REVIEW_RECORD_VERSION } from "../../src/review/record.ts";
import { segmentName } from "../../src/review/spool-files.ts";

export const RETURNS_TEXT = "Items can be returned within 30 days of delivery. Refunds go to the original payment method.";

/** A flagged answer on /ask whose one claim misquotes the returns window (evidence: the first sentence). */
export function spoolRecord(overrides: Partial<SpoolRecord> = {}): SpoolRecord {
  return {
    v: REVIEW_RECORD_VERSION,
    id: "t1-s1",
    kind: "flagged",
    time: "2026-12-01T10:00:00.000Z",
    route: "/ask",
    traceId: "t1",
    spanId: "s1",
    replica: "r1",
    question: "How long do I have to return an item?",
    answer: "You can return items within 90 days. Refunds go to the original payment method.",
    documents: [{ id: "returns", title: "Returns policy", text: RETURNS_TEXT }],
    verdict: "ungrounded",
    score: 0.12,
    threshold: 0.5,
    cause: "generation",
    claims: [
      { index: 0, text: "You can return items within 90 days.", start: 0, end: 36, verdict: "contradicted", score: 0.05, cause: "generation", evidence: { doc: 0, start: 0, end: 49 } },
      { index: 1, text: "Refunds go to the original payment method.", start: 37, end: 79, verdict: "supported", score: 0.93, evidence: { doc: 0, start: 50, end: RETURNS_TEXT.length } },
    ],
    backend: { name: "offline", version: "1", tier: "triage" },
    sampleRate: 1,
    ...overrides,
  };
}

/** Appends records to segment `seq` of `replica` in `dir` (created when absent), one line each. */
export function writeSegment(dir: string, records: readonly SpoolRecord[], replica = "r1", seq = 0): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, segmentName(replica, Date.UTC(2026, 11, 1), seq));
  appendFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return path;
}
