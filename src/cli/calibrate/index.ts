import { createHash } from "node:crypto";
import { bundledExampleHashes } from "../../config/calibration-file.ts";
import type { RelevanceFitRow } from "../../core/relevance-fit.ts";
import type { RelevanceCalibration } from "./relevance.ts";
import { calibrateRelevance, relevanceLines } from "./relevance.ts";
import { calibrateDrift } from "./drift.ts";
import { cascadeCollector, cascadeLines } from "./cascade.ts";
import { spanCollector, spanLines, spansScoring } from "./spans.ts";
import type { Criterion } from "../../core/calibration.ts";
import { aurocWithInterval, calibrationVerdict, labelsToSettle } from "../../core/calibration.ts";
import type { Blocked, CausedFitRow } from "../../core/calibration-fit.ts";
import { blockedBy, classOutcomes, fitThreshold } from "../../core/calibration-fit.ts";
import { CAUSES } from "../../core/cause.ts";
import { comparedCalibration, thresholdInForce, writeCalibrationReport } from "./report.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "../shared/backend-flags.ts";
import { UsageError, inputPath, numberFlag, parseFlags, resolveCliScoring, runCommand, scorerFor } from "../shared/command.ts";
import { createIdChecker } from "./unique-ids.ts";
import { EXIT } from "../shared/exit-codes.ts";
import { inputLines, outputFile, readsOnce, sha256OfFile, writeOutputFile } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import { parseScoreRow } from "../shared/score-rows.ts";
import { productionTally } from "../../review/export.ts";

export const CALIBRATE_HELP: string = `groundwatch calibrate — choose a threshold from labelled answers, with the evidence for it

Usage:
  groundwatch calibrate --set labelled.jsonl --criterion youden|f1|accuracy|target_fpr|target_recall
                        [--target-fpr 0.05] [--target-recall 0.9] [--out calibration.json]
                        [--unscorable exclude|as-ungrounded] [--compare calibration.json]

Rows: {"id" (unique), "context", "answer", "label": 1 (grounded) | 0 (not), "question"?,
       "cause"?: "retrieval" | "generation" | "citation" | "mixed" | "unknown"}.
Scores every row with the chosen backend, then reports AUROC (Mann–Whitney, mid-ranks for ties)
with a 95% Hanley–McNeil interval, the threshold the criterion picks with its TPR and FPR, and the
rows whose label the score contradicts most (review candidates, not verdicts).

Every rate is counted from the verdicts the scorer gives at that threshold, as groundwatch eval
--calibration reports them on the same set: an answer with a contradicted claim, or citing a
document that was not retrieved, is ungrounded whatever its score (it ranks lowest in the AUROC
too). The threshold stored splits the fitted rows exactly as the rates say: midway between the
chosen score and the next lower one, as a short decimal (never rounded across a score).

Before writing, it shows what the new threshold does to each class of the set beside the
threshold in force (--compare calibration.json, else the --out file when it exists, else the
scoring threshold the flags, environment or config set, else the backend's default): grounded
answers passed, and not-grounded ones caught by their labelled cause. calibration.json keeps that
comparison (groundwatch evidence shows it) and every fitted row's id, label, score and verdict
rule (groundwatch doctor re-scores a sample and checks the rates the file claims). Writes
calibration.json: threshold, TPR/FPR, backend (name, version: the model, tier), date, AUROC with
interval, the reference score distribution the SDK and the collector use for drift, and the set's
fingerprint: its path as given, rows, the sha256 of its bytes (of its lines, each ending in "\n",
for standard input) and whether it is one of groundwatch's bundled examples (by hash, whatever its
name). Rows exported from production review (groundwatch review export: a "review" with its
reviewers and time) make it say so: dataset.production {rows, reviewers, from, to}. Their drift
reference is kept per route, each answer weighted by the rate it was sampled at (driftReference);
a set mixing them with other rows, or exported with --only disagreements, is no drift reference.

It also fits the cascade's thresholds ("cascade" in calibration.json: the offline scores at which
a claim is decided without a model call with --cascade on) on half the set, by a hash of each row's
id, and checks them on the other half: decided answers must be right 97% of the time on both, else
it records 1 and 0, which decide nothing. A scorer using the calibration reads them where none is set.

With a span detector (--span-model) it records the span threshold ("spans" in calibration.json):
with --backend spans it is 1 - the fitted threshold (a token is unsupported at or above it);
refining a claim backend, it is fitted on the answer labels (an answer is flagged by its spans when
its highest token probability reaches it, chosen by the same criterion), or recorded as not fitted
with the reason. A scorer using the calibration reads it where --span-threshold is not set.

It also fits the relevance thresholds the cause of an ungrounded answer is read with (as
"relevance" in calibration.json, with their evidence): the context threshold from each row's own
context against another row's context swapped in (seeded; relevance to the question, or without
one to the answer), rows with a "cause" label of "retrieval" or "generation" used as labelled
(the other causes say nothing about the context's relevance); the answer threshold from each
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
      compare: { type: "string" },
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
    const compared = comparedCalibration(args.compare, io);
    const scoring = resolveCliScoring(args, io).scoring;
    const scorer = await scorerFor(spansScoring(scoring), io);
    for (const w of scorer.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);
    const cascade = await cascadeCollector(scoring, scorer, io);
    const spanRows = spanCollector(scorer);

    const read: Array<{ id: string | number; label: 0 | 1; score: number | null; blocked: Blocked | undefined; cause: string | undefined }> = [];
    const fitRows: RelevanceFitRow[] = [];
    let relevance: RelevanceCalibration | undefined;
    // Standard input or a pipe cannot be read twice: its fingerprint is the hash of its lines, each ending in "\n".
    const stdinHash = readsOnce(source) ? createHash("sha256") : undefined;
    const checkId = createIdChecker("the review candidates name rows by id");
    // Rows exported from production review (groundwatch review export) carry their review: the calibration says so.
    const production = productionTally();
    // Rows from production review carry their route and sample rate: the drift reference is weighted per route.
    const reference = calibrateDrift();
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
        reference.add(parsed.row.id, value);
        if (label !== 0 && label !== 1) throw new UsageError(`line ${n}: "label" must be 1 (grounded) or 0 (not grounded) (got ${JSON.stringify(label)})`);
        if (cause !== undefined && !(CAUSES as readonly unknown[]).includes(cause)) throw new UsageError(`line ${n}: "cause" must be one of ${CAUSES.map((c) => `"${c}"`).join(", ")} when present (got ${JSON.stringify(cause)})`);
        const labelledCause = cause as string | undefined;
        const { question, answer, context } = parsed.row;
        // Relevance can be fitted only from causes that say whether the context addressed the question.
        fitRows.push({ question, answer, context, cause: labelledCause === "retrieval" || labelledCause === "generation" ? labelledCause : undefined });
        const r = await scorer.score({ answer, context });
        await cascade.add(parsed.row.id, label, r, { answer, context });
        spanRows.add(label, r);
        read.push({ id: parsed.row.id, label, score: r.verdict === "unscorable" ? null : r.score, blocked: blockedBy(r), cause: label === 0 ? labelledCause : undefined });
      }
      try {
        relevance = await calibrateRelevance(fitRows, scorer, scoring);
      } catch (error) {
        io.stderr.write(`groundwatch calibrate: WARNING: relevance thresholds not fitted: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`);
      }
    } finally {
      await scorer.close();
      await cascade.close();
    }
    const cascadeFit = cascade.fit();
    const unscorable = read.filter((r) => r.score === null);
    // exclude: an unscorable row has no score to rank, so it is no evidence either way.
    // as-ungrounded: it fits as score 0 and is flagged at every threshold, failing closed, as live traffic is alerted on.
    const rows = read.flatMap((r) => (r.score !== null ? [{ ...r, score: r.score, unscorable: false }] : unscorablePolicy === "as-ungrounded" ? [{ ...r, score: 0, unscorable: true }] : []));
    const excluded = read.length - rows.length;
    const positives = rows.filter((r) => r.label === 1).length;
    if (positives === 0 || positives === rows.length) {
      const after = excluded > 0 ? ` after excluding ${excluded} unscorable row${excluded === 1 ? "" : "s"} (--unscorable exclude)` : "";
      throw new UsageError(`the set needs both labels${after}: it has ${positives} grounded and ${rows.length - positives} not grounded rows`);
    }
    // The AUROC of the verdict rule: an answer ungrounded at every threshold ranks below every other.
    const est = aurocWithInterval(
      rows.map((r) => (r.blocked ? -1 : r.score)),
      rows.map((r) => r.label),
    );
    const fitted: CausedFitRow[] = rows;
    const fit = fitThreshold(fitted, criterion, criterion === "target_fpr" ? targetFpr : targetRecall);
    const spans = spanRows.fit(fit.threshold, criterion, criterion === "target_fpr" ? targetFpr : targetRecall);
    const inForce = thresholdInForce({ compared, out: outPath, scoring, scorerThreshold: scorer.threshold, backend: scorer.backend.name });
    const classes = classOutcomes(fitted, inForce.threshold, fit.threshold, ["retrieval", "generation", "citation"]);
    const verdict = calibrationVerdict(est);
    const settle = verdict === "pass" ? 0 : labelsToSettle(est);
    // Review candidates: grounded-labelled rows the scorer rates lowest, and the reverse. Never an
    // unscorable row: its score says nothing about its label (a refusal labelled 1 is often right).
    // Ranked by the verdict rule: an answer with a contradicted claim is as ungrounded as a score of 0,
    // so one labelled 0 agrees with its verdict and is no candidate, and one labelled 1 is the strongest.
    const scored = rows.filter((r) => !r.unscorable);
    const rank = (r: (typeof scored)[number]): number => (r.blocked ? 0 : r.score);
    const audit = [...scored.filter((r) => r.label === 1).sort((a, b) => rank(a) - rank(b)).slice(0, auditSize), ...scored.filter((r) => r.label === 0 && !r.blocked).sort((a, b) => rank(b) - rank(a)).slice(0, auditSize)]
      .sort((a, b) => Math.abs(rank(b) - b.label) - Math.abs(rank(a) - a.label))
      .slice(0, auditSize)
      .map((r) => ({ id: r.id, label: r.label, score: Number(r.score.toFixed(6)), ...(r.blocked ? { blocked: r.blocked } : {}) }));
    const sha256 = stdinHash ? stdinHash.digest("hex") : await sha256OfFile(source);
    // By hash, not by name: a copy of examples/labelled.jsonl under another name is still the example.
    const bundled = bundledExampleHashes().has(sha256);
    const fromProduction = production.provenance();
    const drift = reference.build(scored);
    const calibration = {
      version: 1,
      createdAt: new Date().toISOString(),
      backend: scorer.backend,
      criterion,
      ...(criterion === "target_fpr" ? { targetFpr } : criterion === "target_recall" ? { targetRecall } : {}),
      // Stored as chosen: it splits the fitted rows exactly as tpr, fpr and counts say (doctor checks it).
      threshold: fit.threshold,
      tpr: fit.tpr,
      fpr: fit.fpr,
      precision: fit.precision,
      counts: { groundedPassed: fit.groundedPassed, groundedFlagged: fit.groundedFlagged, ungroundedPassed: fit.ungroundedPassed, ungroundedFlagged: fit.ungroundedFlagged },
      // rows/positives/negatives: what the AUROC and the threshold were fitted on.
      // The fingerprint: path as given, sha256 of the bytes, and whether they are groundwatch's own examples.
      dataset: { path: args.set, rows: rows.length, positives, negatives: rows.length - positives, unscorable: unscorable.length, sha256, bundled, ...(fromProduction ? { production: fromProduction } : {}) },
      unscorablePolicy,
      excluded: { unscorable: excluded },
      auroc: { value: est.auroc, low: est.low, high: est.high, continuityCorrected: est.continuityCorrected },
      verdict,
      labelsToSettle: settle ?? null,
      // The drift reference: live unscorable answers have no score and never enter drift, so neither do these.
      // A review export's is weighted per route (driftReference), or refused when its rows cannot stand for the traffic.
      ...drift.fields,
      audit,
      ...(relevance ? { relevance } : {}),
      // The cascade's thresholds on this set (read back where --cascade-support-above/-unsupport-below are not set).
      cascade: cascadeFit,
      // The span threshold: alone, 1 − threshold; refining, fitted on the answer labels (null when it could not be).
      ...(spans ? { spans } : {}),
      // What the new threshold does to each class beside the threshold in force (groundwatch evidence shows it).
      comparison: { inForce, classes },
      // Every fitted row as the threshold was fitted to it: doctor recounts the rates and re-scores a sample.
      fittedRows: rows.map((r) => ({ id: r.id, label: r.label, score: r.score, ...(r.blocked ? { blocked: r.blocked } : {}), ...(r.cause !== undefined ? { cause: r.cause } : {}) })),
    };
    writeCalibrationReport(io, { est, fit, criterion, inForce, classes, unscorable, unscorablePolicy, rows: rows.length, positives, verdict, settle, production: fromProduction, relevance: relevanceLines(relevance, scorer.relevanceThresholds), audit, outPath, bundled, set: String(args.set) });
    writeOutputFile("--out", outPath, `${JSON.stringify(calibration, null, 2)}\n`);
    // With the span detector alone no pair goes to a model, so there is nothing for the cascade to save (it is off there).
    if (scoring.backend === "spans") io.stdout.write("cascade thresholds: fitted on the offline scores for a claim detector; with --backend spans the cascade is off (no pair goes to a model)\n");
    else for (const l of cascadeLines(cascadeFit)) io.stdout.write(`${l}\n`);
    for (const l of spanLines(spans)) io.stdout.write(`${l}\n`);
    for (const l of drift.lines) io.stdout.write(`${l}\n`);
    if (drift.warning) io.stderr.write(drift.warning);
    io.stdout.write(`wrote ${outPath}\n`);
    return verdict === "pass" ? EXIT.ok : EXIT.failure;
  });
}

