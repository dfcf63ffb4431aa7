/** Review spools and labels in the contract's layout, for the tests of what writes and reads them (writer, delete, export, precision, evidence). */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LabelRecord, SpoolKind, SpoolRecord } from "../../src/review/record.ts";
import { agreementOf } from "../../src/review/record.ts";
import { labelsPath, segmentName } from "../../src/review/spool-files.ts";

/** A spooled answer: a flagged one is ungrounded (score 0.1), a grounded sample grounded (0.9), kept at `sampleRate`. */
export function spoolRecord(id: string, kind: SpoolKind, time: string, sampleRate = kind === "flagged" ? 1 : 0.05): SpoolRecord {
  const flagged = kind === "flagged";
  return {
    v: 1,
    id,
    kind,
    time,
    route: "/ask",
    traceId: `${id.padStart(32, "0")}`,
    spanId: "00000000000000aa",
    replica: "r1",
    question: "Where is the office?",
    answer: flagged ? `The office ${id} moved to the Moon in 1890.` : `The office ${id} is in Paris. It opened in 1990.`,
    documents: [{ id: "facts", text: `The office ${id} is in Paris. It opened in 1990.` }],
    verdict: flagged ? "ungrounded" : "grounded",
    score: flagged ? 0.1 : 0.9,
    threshold: 0.5,
    claims: [],
    backend: { name: "offline", version: "1", tier: "triage" },
    sampleRate,
  };
}

/** One reviewer's label of a spooled answer. */
export function reviewLabel(record: SpoolRecord, reviewer: string, label: 0 | 1, time = "2026-11-20T12:00:00.000Z"): LabelRecord {
  return { v: 1, id: record.id, reviewer, time, label, kind: record.kind, agreement: agreementOf(record.kind, label) };
}

/** Writes `records` as one segment of replica r1 in `dir` and `labels` to its labels.jsonl; returns the dir. */
export function writeSpool(dir: string, records: readonly SpoolRecord[], labels: readonly LabelRecord[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, segmentName("r1", Date.parse("2026-11-01T00:00:00Z"), 0)), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  for (const l of labels) appendFileSync(labelsPath(dir), `${JSON.stringify(l)}\n`);
  return dir;
}

/**
 * The fixture, in the period (7 days): 12 flagged answers, 10 reviewed, 8 of them called not
 * grounded (the flag was right); 25 grounded samples drawn at 5%, 20 reviewed, 1 called not
 * grounded (a miss). One more flagged answer, reviewed, lies after the period and must not count.
 */
export function precisionFixture(): { records: SpoolRecord[]; labels: LabelRecord[] } {
  const day = (i: number, hour: number): string => `2026-11-0${(i % 7) + 1}T${String(hour).padStart(2, "0")}:00:00.000Z`;
  const flagged = Array.from({ length: 12 }, (_, i) => spoolRecord(`f${i}`, "flagged", day(i, 9)));
  const grounded = Array.from({ length: 25 }, (_, i) => spoolRecord(`g${i}`, "grounded_sample", day(i, 15)));
  const late = spoolRecord("late", "flagged", "2026-11-08T00:00:00.000Z");
  const labels = [
    ...flagged.slice(0, 10).map((r, i) => reviewLabel(r, "ann", i < 8 ? 0 : 1)),
    ...grounded.slice(0, 20).map((r, i) => reviewLabel(r, "ann", i === 0 ? 0 : 1)),
    reviewLabel(late, "ann", 1),
  ];
  return { records: [...flagged, ...grounded, late], labels };
}

/** A FIFO at `path` (mkfifo): opening it to read or write blocks until the other side opens, unless O_NONBLOCK. */
export function fifo(path: string): string {
  execFileSync("mkfifo", [path]);
  return path;
}
