import { resolve } from "node:path";
import { exportRows, EXPORT_ONLY, majorityLabels } from "../../review/export.ts";
import type { ExportOnly } from "../../review/export.ts";
import { currentLabels } from "../../review/spool-files.ts";
import { createDirectoryStore } from "../../review/store.ts";
import { COLLECTOR_ENV } from "../../config/env.ts";
import { UsageError, parseFlags, runCommand } from "../shared/command.ts";
import { EXIT } from "../shared/exit-codes.ts";
import { outputFile, writeOutputFile } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import { resolveCollectorUrl } from "./options.ts";
import { createRemoteStore } from "./remote-store.ts";
import { reportMissing, reportSkippedFiles } from "./skips.ts";

export const REVIEW_EXPORT_HELP = `groundwatch review export — reviewed answers as eval-set rows

Usage:
  groundwatch review export --dir D [--dir D2]... [--labels FILE] --out FILE
                            [--only disagreements|all] [--reviewer NAME]
  groundwatch review export --url URL [--token T] --out FILE [--only …] [--reviewer NAME]

Writes one JSONL row per reviewed answer of the spools (replicas merge), in the rows that
"groundwatch eval --set" and "groundwatch calibrate --set" read as they are:
  {"id", "question", "context": [{"id", "title"?, "url"?, "text"}], "answer", "label": 1|0,
   "claimLabels"?: [{"index", "text", "start", "end", "label"}],
   "spanLabels"?: [{"span", "start", "end", "probability", "claim", "text", "verdict": "wrong", "votes"}],
   "review": {"traceId", "spanId", "reviewers", "votes", "reviewedAt", "time", "kind", "route",
              "replica", "verdict", "score", "threshold", "cause", "backend", "agreement",
              "sampleRate", "reviewedShare" | "selected"}}
sampleRate is the rate the answer's kind was spooled at (1 flagged, the grounded sample rate);
reviewedShare the share of its route's spooled answers of its kind that the export holds. With
them calibrate weights each answer by the traffic it stands for and keeps a drift reference per
route. --only disagreements rows carry "selected": "disagreements" instead: chosen by their label,
they are no drift reference.
A document without an id gets its position (1-based). A link, FIFO or device under a spool
name is passed over and named on stderr. Labels are those in force (a reviewer's
last label of an answer, undo taken into account), from --labels (default: labels.jsonl of every
--dir). Several reviewers of one answer make one row with the majority label; an even split
is left out and counted. calibrate and eval name such a set's production provenance.
spanLabels are the spans (words a span detector marked unsupported) that more than half of the
answer's reviewers marked wrong: the detector's false alarms, with its probability.
  --only disagreements  only answers whose label disagrees with groundwatch's verdict: the
                        regression set to gate releases on (groundwatch eval --set)
  --reviewer NAME       only that reviewer's labels
  --url URL             a collector (serve with --review-dir) instead of --dir: the answers and labels
                        of every replica of its deployment, read over its API (replicas that do not
                        answer are named on stderr: the rows cover the others)
  --token T             the collector's bearer token with --url (default ${COLLECTOR_ENV.token})

Exit codes: 0 written, 1 the collector (--url) could not be read, 2 bad flags or input.
`;

/** Runs `groundwatch review export`; resolves to the exit code. */
export function runReviewExport(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("review export", REVIEW_EXPORT_HELP, io, async () => {
    const { values: args } = parseFlags(argv, { dir: { type: "string", multiple: true }, labels: { type: "string" }, out: { type: "string" }, only: { type: "string" }, reviewer: { type: "string" }, url: { type: "string" }, token: { type: "string" } });
    const remote = resolveCollectorUrl({ ...args, collectorToken: args.token }, io);
    const dirs = (args.dir ?? []).map((d) => resolve(io.cwd, d));
    if (!remote && dirs.length === 0) throw new UsageError("--dir is required (a spool directory; repeat it for each replica), or --url (a collector)", true);
    if (args.out === undefined) throw new UsageError("--out is required", true);
    const only = (args.only ?? "all") as ExportOnly;
    if (!EXPORT_ONLY.includes(only)) throw new UsageError(`--only must be one of ${EXPORT_ONLY.join(", ")} (got ${JSON.stringify(args.only)})`);
    if (args.reviewer !== undefined && args.reviewer.trim() === "") throw new UsageError("--reviewer must name a reviewer");
    const out = outputFile("--out", args.out, io);
    const store = remote ? createRemoteStore(remote) : createDirectoryStore({ dirs, labelsFile: args.labels !== undefined ? resolve(io.cwd, args.labels) : undefined, unreadableLabels: "report" });
    const read = await store.load();
    reportMissing("review export", read.missing, io.stderr);
    reportSkippedFiles("review export", read.skippedFiles, io.stderr);
    const majority = majorityLabels(currentLabels(read.labels), args.reviewer);
    const result = exportRows(read.records, majority, only);
    writeOutputFile("--out", out, result.rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const left = [
      result.ties > 0 ? `${result.ties} tied (reviewers evenly split)` : "",
      result.agreeing > 0 ? `${result.agreeing} agreeing with groundwatch (--only disagreements)` : "",
      result.notInSpool > 0 ? `${result.notInSpool} labelled but not in the spools` : "",
      read.unreadable.spoolLines + read.unreadable.labelLines > 0 ? `${read.unreadable.spoolLines + read.unreadable.labelLines} unreadable lines skipped` : "",
    ].filter((s) => s !== "");
    const wrongSpans = result.rows.reduce((n, r) => n + (r.spanLabels?.length ?? 0), 0);
    const spans = wrongSpans > 0 ? ` (${wrongSpans} span${wrongSpans === 1 ? "" : "s"} marked wrong)` : "";
    io.stdout.write(`wrote ${result.rows.length} row${result.rows.length === 1 ? "" : "s"} to ${out}${spans}${left.length > 0 ? `; left out: ${left.join(", ")}` : ""}\n`);
    return EXIT.ok;
  });
}
