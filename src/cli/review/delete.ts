import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { labelsPath, segmentFiles } from "../../review/spool-files.ts";
import { UsageError, parseFlags, runCommand } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import type { CommandIo } from "../io.ts";

export const REVIEW_DELETE_HELP = `groundwatch review delete — remove one trace's answers and labels from a review spool

Usage:
  groundwatch review delete --dir DIR --trace TRACE_ID [--labels FILE]

Removes every spooled answer of the trace (32 hex digits) from every segment of DIR, and every
label of those answers from the labels file (DIR/labels.jsonl, or --labels FILE). Each file that
holds one is rewritten to a temporary file beside it and renamed over it, so a reader sees the old
file or the new one, never half of each. A partial last line (a write cut by a crash) that names the
trace is removed too. Prints how many answers and labels it removed.

  --dir DIR         the spool directory (groundwatch serve --review-dir)
  --trace ID        the trace id, as on the evaluation span (groundwatch flagged shows it)
  --labels FILE     the labels file (default DIR/labels.jsonl)

Exit codes: 0 done (also when the trace had nothing spooled), 1 a file could not be rewritten,
2 bad flags (no such directory, not a trace id).
`;

const TRACE_ID = /^[0-9a-f]{32}$/;

/** What a line says about the trace: it is one of its records (or a torn line naming it), and the record's id. */
function lineOf(line: string, traceId: string): { drop: boolean; id?: string } {
  if (!line.includes(traceId)) return { drop: false };
  try {
    const v = JSON.parse(line) as { id?: unknown; traceId?: unknown };
    const id = typeof v.id === "string" ? v.id : undefined;
    return { drop: v.traceId === traceId || (id?.startsWith(`${traceId}-`) ?? false), ...(id !== undefined ? { id } : {}) };
  } catch {
    // A torn line that names the trace: nothing of it is left behind.
    return { drop: true };
  }
}

/**
 * Rewrites `path` without the lines `drop` picks, atomically (temporary file, then rename; the file
 * removed when nothing is left). Returns the lines removed; a file without any is left untouched.
 */
function rewriteWithout(path: string, drop: (line: string) => boolean): string[] {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const removed: string[] = [];
  const kept: string[] = [];
  lines.forEach((line, i) => {
    if (line === "" && i === lines.length - 1) return;
    if (line !== "" && drop(line)) removed.push(line);
    else kept.push(line);
  });
  if (removed.length === 0) return removed;
  const rest = kept.length === 0 ? "" : `${kept.join("\n")}${text.endsWith("\n") ? "\n" : ""}`;
  if (rest === "") {
    unlinkSync(path);
    return removed;
  }
  const tmp = `${path}.delete-${process.pid}.tmp`;
  writeFileSync(tmp, rest, { mode: statSync(path).mode & 0o777 });
  renameSync(tmp, path);
  return removed;
}

/** Removes a trace's spooled answers and their labels; returns the counts. */
export function deleteTrace(dir: string, traceId: string, labels: string = labelsPath(dir)): { records: number; segments: number; labels: number } {
  const ids = new Set<string>();
  let records = 0;
  let segments = 0;
  for (const file of segmentFiles(dir)) {
    const removed = rewriteWithout(file, (line) => {
      const seen = lineOf(line, traceId);
      if (seen.drop && seen.id !== undefined) ids.add(seen.id);
      return seen.drop;
    });
    if (removed.length > 0) segments++;
    records += removed.length;
  }
  let labelCount = 0;
  if (existsSync(labels)) {
    labelCount = rewriteWithout(labels, (line) => {
      if (!line.includes(traceId) && ![...ids].some((id) => line.includes(id))) return false;
      try {
        const id = (JSON.parse(line) as { id?: unknown }).id;
        return typeof id === "string" && (ids.has(id) || id.startsWith(`${traceId}-`));
      } catch {
        return line.includes(traceId);
      }
    }).length;
  }
  return { records, segments, labels: labelCount };
}

/** `groundwatch review delete`. */
export function runReviewDelete(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("review delete", REVIEW_DELETE_HELP, io, async () => {
    const { values } = parseFlags(argv, { dir: { type: "string" }, trace: { type: "string" }, labels: { type: "string" } });
    if (values.dir === undefined) throw new UsageError("--dir DIR is required (the spool directory)", true);
    if (values.trace === undefined) throw new UsageError("--trace TRACE_ID is required", true);
    const traceId = values.trace.trim().toLowerCase();
    if (!TRACE_ID.test(traceId) || /^0+$/.test(traceId)) throw new UsageError(`--trace: ${JSON.stringify(values.trace.slice(0, 80))} is not a trace id (32 hex digits)`);
    const dir = resolve(io.cwd, values.dir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--dir: ${values.dir} is not a directory`);
    const labels = values.labels !== undefined ? resolve(io.cwd, values.labels) : labelsPath(dir);
    const done = deleteTrace(dir, traceId, labels);
    io.stdout.write(`removed ${done.records} spooled answer${done.records === 1 ? "" : "s"} (from ${done.segments} segment${done.segments === 1 ? "" : "s"}) and ${done.labels} label${done.labels === 1 ? "" : "s"} of trace ${traceId}\n`);
    return EXIT.ok;
  });
}
