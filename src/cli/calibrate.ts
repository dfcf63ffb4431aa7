import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { bundledExampleHashes } from "../config/calibration-file.ts";
import type { RelevanceFitRow } from "../core/relevance-fit.ts";
import type { RelevanceCalibration } from "./calibrate-relevance.ts";
import { calibrateRelevance, relevanceLines } from "./calibrate-relevance.ts";
import type { Criterion } from "../core/calibration.ts";
import { aurocWithInterval, calibrationVerdict, chooseThreshold, labelsToSettle } from "../core/calibration.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./backend-flags.ts";
import { UsageError, inputPath, numberFlag, parseFlags, resolveCliScoring, runCommand, scorerFor } from "./command.ts";
import { createIdChecker } from "./unique-ids.ts";
import { EXIT } from "./exit-codes.ts";
import { inputLines, outputFile, readsOnce, writeOutputFile } from "./files.ts";
import type { CommandIo } from "./io.ts";
import { sanitizeForTerminal } from "./io.ts";
import { parseScoreRow } from "./score-rows.ts";
import { describeProduction, productionTally } from "../review/export.ts";

export const CALIBRATE_HELP: string = `groundwatch calibrate — choose a threshold from labelled answers, with the evidence for it

Usage:
  groundwatch calibrate --set labelled.jsonl --criterion youden|f1|accuracy|target_fpr|target_recall
                        [--target-fpr 0.05] [--target-recall 0.9] [--out calibration.json]
                        [--unscorable exclude|as-ungrounded]

Rows: {"id" (unique), "context", "answer", "label": 1 (grounded) | 0 (not), "question"?,
       "cause"?: "retrieval" | "generation"}.
Scores every row with the chosen backend, then reports AUROC (Mann–Whitney, mid-ranks for ties)
with a 95% Hanley–McNeil interval, the threshold the criterion picks with its TPR and FPR, and the
rows whose label the score contradicts most (review candidates, not verdicts). Writes
calibration.json: threshold, TPR/FPR, backend (name, version: the model, tier), date, AUROC with
interval, the reference score distribution the SDK and the collector use for drift, and the set's
fingerprint: its path as given, rows, the sha256 of its bytes (of its lines, each ending in "\n",
for standard input) and whether it is one of groundwatch's bundled examples (by hash, whatever its
name). Rows exported from production review (groundwatch review export: a "review" with its
reviewers and time) make it say so: dataset.production {rows, reviewers, from, to}.

It also fits the relevance thresholds the cause of an ungrounded answer is read with (as
"relevance" in calibration.json, with their evidence): the context threshold from each row's own
context against another row's context swapped in (seeded; relevance to the question, or without
one to the answer), rows with a "cause" label used as labelled; the answer threshold from each
answer against another question's answer, on rows with a question. At least 20 examples of each
kind are needed; with fewer, calibrate says so and the backend's default stays in force.

A calibration on the bundled examples (examples/labelled.jsonl) is a demo of the command:
serve, doctor, evidence and the SDK warn that it is not your data, and refuse it as a drift reference.

Rows the backend cannot score (no checkable claim, e.g. a refusal; empty context) have no score:
--unscorable exclude (the default) leaves them out of the AUROC, the threshold, the reference
scores and the review candidates, and counts them (excluded.unscorable in calibration.json);
--unscorable as-ungrounded fits them as score 0, as the alerting does for live traffic. Either
way they are never review candidates: a correct refusal is not a label error.

Exit codes: 0 the set establishes a signal (interval excludes 0.5, right direction)
            1 it does not (weak or anti-correlated): the threshold is not evidence
            2 bad flags, configuration or input

${BACKEND_FLAGS_HELP}`;

const CRITERIA: readonly Criterion[] = ["youden", "f1", "accuracy", "target_fpr", "target_recall"];
/** How rows the backend cannot score enter the fit. */
type UnscorablePolicy = "exclude" | "as-ungrounded";
const UNSCORABLE_POLICIES: readonly UnscorablePolicy[] = ["exclude", "as-ungrounded"];

/** The sha256 of a file's bytes, read as a stream. */
function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** Runs `groundwatch calibrate`; resolves to the exit code. */
export function runCalibrate(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("calibrate", CALIBRATE_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      set: { type: "string" },
      criterion: { type: "string" },
      "target-fpr": { type: "string" },
      "target-recall": { type: "string" },
      out: { type: "string" },
      "audit-size": { type: "string" },
      unscorable: { type: "string" },
      ...BACKEND_FLAGS,
    });
    const source = inputPath(args.set, io);
    const criterion = (args.criterion ?? "youden") as Criterion;
    if (!CRITERIA.includes(criterion)) throw new UsageError(`--criterion must be one of ${CRITERIA.join(", ")} (got ${JSON.stringify(args.criterion)})`);
    const targetFpr = numberFlag("target-fpr", args["target-fpr"], (n) => n >= 0 && n <= 1, "a rate from 0 to 1") ?? 0.05;
    const targetRecall = numberFlag("target-recall", args["target-recall"], (n) => n >= 0 && n <= 1, "a rate from 0 to 1") ?? 0.9;
    const unscorablePolicy = (args.unscorable ?? "exclude") as UnscorablePolicy;
    if (!UNSCORABLE_POLICIES.includes(unscorablePolicy)) throw new UsageError(`--unscorable must be one of ${UNSCORABLE_POLICIES.join(", ")} (got ${JSON.stringify(args.unscorable)})`);
    const auditSize = numberFlag("audit-size", args["audit-size"], (n) => Number.isInteger(n) && n >= 0, "a whole number") ?? 10;
    // Checked before any row is scored: a bad --out should not cost a whole run.
    const outPath = outputFile("--out", args.out ?? "calibration.json", io);
    const scoring = resolveCliScoring(args, io).scoring;
    const scorer = await scorerFor(scoring, io);
    for (const w of scorer.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);

    const read: Array<{ id: string | number; label: 0 | 1; score: number | null }> = [];
    const fitRows: RelevanceFitRow[] = [];
    let relevance: RelevanceCalibration | undefined;
    // Standard input or a pipe cannot be read twice: its fingerprint is the hash of its lines, each ending in "\n".
    const stdinHash = readsOnce(source) ? createHash("sha256") : undefined;
    const checkId = createIdChecker("the review candidates name rows by id");
    // Rows exported from production review (groundwatch review export) carry their review: the calibration says so.
    const production = productionTally();
    let n = 0;
    try {
      for await (const line of inputLines(source, io)) {
        n++;
        stdinHash?.update(`${line}\n`);
        if (line.trim() === "") continue;
        const parsed = parseScoreRow(line, n);
        if (!parsed.ok) throw new UsageError(parsed.error);
        checkId(parsed.row.id, n);
        const value = JSON.parse(line) as { label?: unknown; cause?: unknown };
        const { label, cause } = value;
        production.add(value);
        if (label !== 0 && label !== 1) throw new UsageError(`line ${n}: "label" must be 1 (grounded) or 0 (not grounded) (got ${JSON.stringify(label)})`);
        if (cause !== undefined && cause !== "retrieval" && cause !== "generation") throw new UsageError(`line ${n}: "cause" must be "retrieval" or "generation" when present (got ${JSON.stringify(cause)})`);
        const { question, answer, context } = parsed.row;
        fitRows.push({ question, answer, context, cause });
        const r = await scorer.score({ answer, context });
        read.push({ id: parsed.row.id, label, score: r.verdict === "unscorable" ? null : r.score });
      }
      try {
        relevance = await calibrateRelevance(fitRows, scorer, scoring);
      } catch (error) {
        io.stderr.write(`groundwatch calibrate: WARNING: relevance thresholds not fitted: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`);
      }
    } finally {
      await scorer.close();
    }
    const unscorable = read.filter((r) => r.score === null);
    // exclude: an unscorable row has no score to rank, so it is no evidence either way.
    // as-ungrounded: it fits as score 0, failing closed, as live traffic is alerted on.
    const rows = read.flatMap((r) => (r.score !== null ? [{ ...r, score: r.score, unscorable: false }] : unscorablePolicy === "as-ungrounded" ? [{ ...r, score: 0, unscorable: true }] : []));
    const excluded = read.length - rows.length;
    const positives = rows.filter((r) => r.label === 1).length;
    if (positives === 0 || positives === rows.length) {
      const after = excluded > 0 ? ` after excluding ${excluded} unscorable row${excluded === 1 ? "" : "s"} (--unscorable exclude)` : "";
      throw new UsageError(`the set needs both labels${after}: it has ${positives} grounded and ${rows.length - positives} not grounded rows`);
    }
    const scores = rows.map((r) => r.score);
    const labels = rows.map((r) => r.label);
    const est = aurocWithInterval(scores, labels);
    const choice = chooseThreshold(scores, labels, criterion, criterion === "target_fpr" ? targetFpr : targetRecall);
    const verdict = calibrationVerdict(est);
    const settle = verdict === "pass" ? 0 : labelsToSettle(est);
    // Review candidates: grounded-labelled rows the scorer rates lowest, and the reverse. Never an
    // unscorable row: its score says nothing about its label (a refusal labelled 1 is often right).
    const scored = rows.filter((r) => !r.unscorable);
    const audit = [...scored.filter((r) => r.label === 1).sort((a, b) => a.score - b.score).slice(0, auditSize), ...scored.filter((r) => r.label === 0).sort((a, b) => b.score - a.score).slice(0, auditSize)]
      .sort((a, b) => Math.abs(b.score - b.label) - Math.abs(a.score - a.label))
      .slice(0, auditSize)
      .map((r) => ({ id: r.id, label: r.label, score: Number(r.score.toFixed(6)) }));
    const sha256 = stdinHash ? stdinHash.digest("hex") : await hashFile(source);
    // By hash, not by name: a copy of examples/labelled.jsonl under another name is still the example.
    const bundled = bundledExampleHashes().has(sha256);
    const fromProduction = production.provenance();
    const calibration = {
      version: 1,
      createdAt: new Date().toISOString(),
      backend: scorer.backend,
      criterion,
      ...(criterion === "target_fpr" ? { targetFpr } : criterion === "target_recall" ? { targetRecall } : {}),
      threshold: Number(choice.threshold.toFixed(6)),
      tpr: choice.tpr,
      fpr: choice.fpr,
      precision: choice.precision,
      // rows/positives/negatives: what the AUROC and the threshold were fitted on.
      // The fingerprint: path as given, sha256 of the bytes, and whether they are groundwatch's own examples.
      dataset: { path: args.set, rows: rows.length, positives, negatives: rows.length - positives, unscorable: unscorable.length, sha256, bundled, ...(fromProduction ? { production: fromProduction } : {}) },
      unscorablePolicy,
      excluded: { unscorable: excluded },
      auroc: { value: est.auroc, low: est.low, high: est.high, continuityCorrected: est.continuityCorrected },
      verdict,
      labelsToSettle: settle ?? null,
      // The drift reference: live unscorable answers have no score and never enter drift, so neither do these.
      referenceScores: scored.map((r) => Number(r.score.toFixed(6))),
      audit,
      ...(relevance ? { relevance } : {}),
    };
    writeOutputFile("--out", outPath, `${JSON.stringify(calibration, null, 2)}\n`);
    const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
    if (unscorable.length > 0) {
      const grounded = unscorable.filter((r) => r.label === 1).length;
      const split = `${grounded} labelled grounded, ${unscorable.length - grounded} not`;
      io.stdout.write(
        unscorablePolicy === "exclude"
          ? `excluded ${unscorable.length} unscorable row${unscorable.length === 1 ? "" : "s"} from the fit (${split}): the backend could not score them (no checkable claim, e.g. a refusal, or no context); --unscorable as-ungrounded fits them as score 0\n`
          : `fitted ${unscorable.length} unscorable row${unscorable.length === 1 ? "" : "s"} as score 0 (${split}; --unscorable as-ungrounded)\n`,
      );
    }
    if (fromProduction) io.stdout.write(`${describeProduction(fromProduction)} (dataset.production in calibration.json)\n`);
    io.stdout.write(`AUROC ${est.auroc.toFixed(3)} [${est.low.toFixed(3)}, ${est.high.toFixed(3)}] on ${rows.length} rows (${positives} grounded, ${rows.length - positives} not)${est.continuityCorrected ? " — perfect separation; interval continuity-corrected" : ""}\n`);
    if (verdict === "pass") io.stdout.write("PASS: the interval excludes 0.5 — the score separates grounded from ungrounded answers on this set.\n");
    else if (verdict === "anti-correlated") io.stdout.write("FAIL: ANTI-CORRELATED — higher scores go with answers labelled NOT grounded. Check which way the labels point (1 must mean grounded) before anything else.\n");
    else io.stdout.write(`FAIL: the interval includes 0.5 — this set has not established a signal. ${settle === undefined ? "No realistic set would settle it at this effect size: the signal is not there." : `About ${settle} more labelled rows would settle it at this effect size.`}\n`);
    io.stdout.write(`threshold ${choice.threshold.toFixed(4)} (${criterion}): TPR ${pct(choice.tpr)}, FPR ${pct(choice.fpr)}, precision ${pct(choice.precision)}\n`);
    for (const l of relevanceLines(relevance, scorer.relevanceThresholds)) io.stdout.write(`${l}\n`);
    if (audit.length > 0) {
      io.stdout.write("label review candidates (the score disagrees most; not verdicts):\n");
      for (const a of audit) io.stdout.write(`  ${sanitizeForTerminal(String(a.id))}: label ${a.label}, score ${a.score.toFixed(3)}\n`);
    }
    io.stdout.write(`wrote ${outPath}\n`);
    if (bundled) {
      io.stderr.write(
        `groundwatch calibrate: WARNING: ${sanitizeForTerminal(String(args.set))} is one of groundwatch's bundled examples: this run demonstrates the command, it does not calibrate your service. serve, doctor, evidence and the SDK will say so, and will refuse its reference scores for drift. Label answers of your own (groundwatch init writes a starter set) and calibrate on them.\n`,
      );
    }
    return verdict === "pass" ? EXIT.ok : EXIT.failure;
  });
}
