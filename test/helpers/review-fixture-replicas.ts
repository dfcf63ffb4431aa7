/** Three replicas' spools with labels in each one's labels file, for the parity of the directory and the remote review stores. */
import { join } from "node:path";
import type { LabelRecord, SpoolRecord } from "../../src/review/record.ts";
import { tempDir } from "./cli.ts";
import { reviewLabel, spoolRecord, writeSpool } from "./review-spool.ts";

/**
 * Replicas r1, r2, r3 in one period (2026-11-01 to 2026-11-08): flagged answers and grounded samples
 * at mixed times, each replica's labels (two reviewers, a split, an undo) in its own labels file.
 */
export function replicaSpools(): Array<{ dir: string; replica: string; records: SpoolRecord[]; labels: LabelRecord[] }> {
  const root = tempDir();
  return ["r1", "r2", "r3"].map((replica, k) => {
    const records = Array.from({ length: 6 + k }, (_, i) => ({ ...spoolRecord(`${replica}-${i}`, i % 3 === 2 ? "grounded_sample" : "flagged", `2026-11-0${1 + ((i * 3 + k) % 7)}T${String((i * 5 + k) % 24).padStart(2, "0")}:00:00.000Z`), replica }));
    const labels: LabelRecord[] = [
      ...records.slice(0, 4).map((r, i) => reviewLabel(r, "ann", i % 2 === 0 ? 0 : 1)),
      ...records.slice(1, 3).map((r) => reviewLabel(r, "bo", 1, "2026-11-21T12:00:00.000Z")),
      { v: 1, id: records[0]?.id ?? "", reviewer: "ann", time: "2026-11-22T12:00:00.000Z", kind: "flagged", undo: true },
    ];
    return { dir: writeSpool(join(root, replica), records, labels), replica, records, labels };
  });
}
