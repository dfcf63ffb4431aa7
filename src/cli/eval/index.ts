import { resolve } from "node:path";
import { withCalibratedThresholds } from "../../config/calibration-file.ts";
import { ConfigError } from "../../config/errors.ts";
import { loadConfigFile } from "../../config/file.ts";
import { SCORE_ENV, resolveScoreSources } from "../../config/score-options.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "../shared/backend-flags.ts";
import { UsageError, inputPath, numberFlag, parseFlags, readCalibrationFlag, runCommand, scoreOptionsFromFlags, scorerFor } from "../shared/command.ts";
import { DEFAULT_MAX_HALLUCINATION_RATE, DEFAULT_MAX_UNSCORABLE_SHARE, describeGateSource, evaluateGate } from "./gate.ts";
import { scoreSet } from "./score-set.ts";
import { readSet } from "./set.ts";
import { readBaseline, regressionsAgainst, summarise } from "./summary.ts";
import { targetFromFlags } from "./target-flags.ts";
import type { EvalReport, EvalRow, GateSource, GateSpec } from "./types.ts";
import { writeReports } from "./write.ts";
import { labelSummary } from "../report/labels.ts";
import { describeProduction, productionTally } from "../../review/export.ts";
import { EXIT } from "../shared/exit-codes.ts";
import { outputDir } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import { DEFAULT_MAX_REPLY_BYTES } from "./target.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import { parseRate } from "../../config/parse.ts";
import { explainCalibrationFailure } from "../../core/calibration.ts";

export const EVAL_HELP: string = `groundwatch eval — a CI release gate on a fixed evaluation set

Usage:
  groundwatch eval --set eval.jsonl [--max-hallucination-rate 0.05] [--min-grounded-share 0.9]
                   [--max-citation-error-rate 0.02] [--min-label-agreement 0.9]
                   [--calibration calibration.json] [--baseline previous/report.json]
                   [--target URL [--context-path PATH]] [--out DIR] [--no-gate]

Rows (JSONL, or one JSON array), in any of three conventions; "id" defaults to the line number:
  groundwatch  {"id", "question", "context", "answer", "label"?, "samples"?}
  RAGAS        {"user_input", "retrieved_contexts", "response", "reference"?}
  DeepEval     {"input", "retrieval_context" (or "context"), "actual_output", "expected_output"?}
Without --target every row needs its answer and context; with --target the answers (and, with
--context-path, the retrieved documents) come from your RAG endpoint:
  --target URL              POST endpoint of the RAG service
  --request JSON            request body, {{question}} where the question goes (default {"question":"{{question}}"})
  --answer-path PATH        where the answer is in the reply (default "answer")
  --context-path PATH       where the retrieved documents are: a string, an array of strings, or
                            a field of each object with [*], e.g. "sources[*].text" (rows may then
                            omit the context; the reply's documents replace the row's)
  --samples-path PATH       an array of resamples in the reply (optional)
  --concurrency N           requests in flight (default 4); --timeout-ms N (default 30000); --retries N (default 2)
  --max-reply-bytes N       largest reply read (default ${DEFAULT_MAX_REPLY_BYTES}); a larger one fails its row
Paths: keys joined by dots, [N] (or .N) for an array element, [*] for every element.

Gate (always applied unless --no-gate; each limit from its flag, else the config file's "eval"
section, else the default; every report says which applied and where each number came from):
  --max-hallucination-rate R  most ungrounded answers among the scorable ones (default ${DEFAULT_MAX_HALLUCINATION_RATE})
  --max-unscorable-share U    most rows that could not be scored (no context, a failed --target call;
                              default ${DEFAULT_MAX_UNSCORABLE_SHARE}): the rates must not rest on a remnant
  --min-grounded-share S      least share of all rows grounded at the threshold (unscorable rows
                              count as not grounded); backend-independent (default: not applied)
  --min-mean-score M          floor on the mean raw score; its scale depends on the backend, so
                              it does not transfer between backends (default: not applied)
  --floor M                   deprecated name of --min-mean-score (warns)
  --max-citation-error-rate R most citation errors among the citations the answers make ([1],
                              (source: name)): markers naming a document that was not retrieved,
                              and misattributed ones (another document supports the claim); a set
                              with no citations cannot be measured and fails it (default: not applied)
  --min-label-agreement A     least share of the labelled rows scored whose verdict agrees with their
                              "label" (1 grounded, 0 not): the gate on a regressions set from
                              production review (groundwatch review export --only disagreements);
                              a set without labels cannot be measured and fails it (default: not applied)
  --baseline FILE             a previous report.json: any row that regressed (was grounded, now
                              not; or its score fell by more than 0.1) fails the gate
  --no-gate                   report only: exit 0 whatever the numbers; not with the limits above
                              (with --baseline, regressions are listed but fail nothing)
Answer threshold (an answer is grounded when its score reaches it): --threshold T, else
${SCORE_ENV.threshold}, else the config file's scoring.threshold, else the --calibration file's,
else the backend's default.

Writes report.json, report.md (also appended to $GITHUB_STEP_SUMMARY when set), junit.xml and a
self-contained report.html to --out (default groundwatch-report/). junit.xml agrees with the exit
code: a testcase per gate criterion fails when it fails; a row's testcase fails only when the gate
failed and the row counts against it; other findings are in <system-out>. A triage-tier backend
(offline) is called out at the top of every report.

Exit codes: 0 passed (or --no-gate), 1 gate failed, 2 bad flags, configuration or input.

${BACKEND_FLAGS_HELP}`;

/** The config file's "eval" section (gate limits), when the file has one. */
function configGate(path: string | undefined, io: CommandIo): Record<string, unknown> {
  if (path === undefined) return {};
  // Read through the shared loader, which rejects unknown sections and keys by name.
  const section = (loadConfigFile(resolve(io.cwd, path)) as { eval?: unknown }).eval;
  if (section === undefined) return {};
  if (!isPlainObject(section)) throw new ConfigError("config file eval", section, "expected an object");
  return section as Record<string, unknown>;
}

/** Runs `groundwatch eval`; resolves to the exit code. */
export function runEval(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("eval", EVAL_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      set: { type: "string" },
      threshold: { type: "string" },
      calibration: { type: "string" },
      "max-hallucination-rate": { type: "string" },
      "max-unscorable-share": { type: "string" },
      "min-grounded-share": { type: "string" },
      "min-mean-score": { type: "string" },
      "max-citation-error-rate": { type: "string" },
      "min-label-agreement": { type: "string" },
      floor: { type: "string" },
      "no-gate": { type: "boolean" },
      baseline: { type: "string" },
      target: { type: "string" },
      request: { type: "string" },
      "answer-path": { type: "string" },
      "samples-path": { type: "string" },
      "context-path": { type: "string" },
      concurrency: { type: "string" },
      "timeout-ms": { type: "string" },
      retries: { type: "string" },
      "max-reply-bytes": { type: "string" },
      out: { type: "string" },
      ...BACKEND_FLAGS,
    });
    if (args.set === undefined) throw new UsageError("--set is required", true);
    const source = inputPath(args.set, io);
    const notices: string[] = [];
    const warn = (message: string): void => {
      io.stderr.write(`groundwatch eval: WARNING: ${sanitizeForTerminal(message)}\n`);
      notices.push(message);
    };

    // The gate, resolved before anything is scored: a bad limit should not cost a whole run.
    const noGate = args["no-gate"] === true;
    const gateFlags = (["max-hallucination-rate", "max-unscorable-share", "min-grounded-share", "min-mean-score", "max-citation-error-rate", "min-label-agreement", "floor"] as const).filter((f) => args[f] !== undefined);
    if (noGate && gateFlags.length > 0) throw new UsageError(`--no-gate runs without a gate, so --${gateFlags[0] ?? ""} would not apply: drop one of them`);
    if (args.floor !== undefined && args["min-mean-score"] !== undefined) throw new UsageError("--floor is the deprecated name of --min-mean-score: give only --min-mean-score");
    const rate = (flag: string, value: string | undefined): number | undefined => numberFlag(flag, value, (n) => n >= 0 && n <= 1, "a number from 0 to 1");
    const maxRateFlag = rate("max-hallucination-rate", args["max-hallucination-rate"]);
    const maxUnscorableFlag = rate("max-unscorable-share", args["max-unscorable-share"]);
    const minShareFlag = rate("min-grounded-share", args["min-grounded-share"]);
    const minMeanFlag = rate("min-mean-score", args["min-mean-score"]) ?? rate("floor", args.floor);
    const maxCitationFlag = rate("max-citation-error-rate", args["max-citation-error-rate"]);
    const minAgreementFlag = rate("min-label-agreement", args["min-label-agreement"]);
    if (args.floor !== undefined) {
      warn("--floor is deprecated: it is a floor on the raw mean score, whose scale depends on the backend (a fully grounded set can average under 0.8). It now means --min-mean-score; for a backend-independent floor use --min-grounded-share.");
    }
    let spec: GateSpec | "report-only" = "report-only";
    if (!noGate) {
      const fromConfig = configGate(args.config, io);
      const config = (key: string): GateSource => ({ kind: "config", file: args.config ?? "", key: `eval.${key}` });
      const pick = (flag: string, flagValue: number | undefined, key: string): { value: number; source: GateSource } | undefined => {
        if (flagValue !== undefined) return { value: flagValue, source: { kind: "flag", flag: flag === "--min-mean-score" && args.floor !== undefined ? "--floor (deprecated)" : flag } };
        const v = parseRate(`config file eval.${key}`, fromConfig[key], "a number");
        return v !== undefined ? { value: v, source: config(key) } : undefined;
      };
      const maxRate = pick("--max-hallucination-rate", maxRateFlag, "maxHallucinationRate") ?? { value: DEFAULT_MAX_HALLUCINATION_RATE, source: { kind: "default" } as const };
      const maxUnscorable = pick("--max-unscorable-share", maxUnscorableFlag, "maxUnscorableShare") ?? { value: DEFAULT_MAX_UNSCORABLE_SHARE, source: { kind: "default" } as const };
      const minShare = pick("--min-grounded-share", minShareFlag, "minGroundedShare");
      const minMean = pick("--min-mean-score", minMeanFlag, "minMeanScore");
      const maxCitation = pick("--max-citation-error-rate", maxCitationFlag, "maxCitationErrorRate");
      const minAgreement = minAgreementFlag !== undefined ? { value: minAgreementFlag, source: { kind: "flag", flag: "--min-label-agreement" } as const } : undefined;
      spec = { maxHallucinationRate: maxRate, maxUnscorableShare: maxUnscorable, ...(minShare ? { minGroundedShare: minShare } : {}), ...(minMean ? { minMeanScore: minMean } : {}), ...(maxCitation ? { maxCitationErrorRate: maxCitation } : {}), ...(minAgreement ? { minLabelAgreement: minAgreement } : {}), ...(args.baseline ? { baseline: { source: { kind: "flag", flag: "--baseline" } } } : {}) };
    }

    const concurrency = numberFlag("concurrency", args.concurrency, (n) => Number.isInteger(n) && n >= 1 && n <= 256, "an integer from 1 to 256") ?? 4;
    // Checked before any row is scored: a bad --out should not cost a whole run.
    const out = outputDir("--out", args.out ?? "groundwatch-report", io);
    const baseline = args.baseline ? readBaseline(args.baseline, io) : undefined;
    const target = targetFromFlags(args);

    // The answer threshold, as everywhere in groundwatch: an explicit one (--threshold > environment >
    // config file) beats the calibration's, which beats the backend's fitted default.
    const thresholdFlag = numberFlag("threshold", args.threshold, (n) => n >= 0 && n <= 1, "a number from 0 to 1");
    // The gate needs only the threshold: a file without reference scores (for drift) is read as having none.
    const calibration = args.calibration !== undefined ? readCalibrationFlag("--calibration", args.calibration, io, { requireReferenceScores: false }) : undefined;
    const scoring = scoreOptionsFromFlags(args, io, thresholdFlag !== undefined ? { threshold: thresholdFlag } : {});
    // Where the threshold comes from is the resolver's answer, not a second reading of the environment.
    const resolution = resolveScoreSources(scoring.options, { env: io.env, ...(scoring.file ? { file: scoring.file } : {}) });
    const thresholdFrom = resolution.sources.threshold;
    let thresholdSource: GateSource | undefined;
    if (thresholdFrom === "option") thresholdSource = { kind: "flag", flag: "--threshold" };
    else if (thresholdFrom === "env") thresholdSource = { kind: "env", variable: SCORE_ENV.threshold };
    else if (thresholdFrom === "file") thresholdSource = { kind: "config", file: args.config ?? "", key: "scoring.threshold" };
    else if (calibration) thresholdSource = { kind: "calibration", file: args.calibration ?? "" };
    if (calibration) {
      if (thresholdSource?.kind !== "calibration") warn(`the threshold of --calibration ${args.calibration ?? ""} (${calibration.threshold}) is not used: ${describeGateSource(thresholdSource as GateSource)} sets the threshold`);
      else {
        const failed = explainCalibrationFailure(calibration);
        if (failed) warn(`--calibration ${args.calibration ?? ""} did not establish a signal: ${failed.verdict}, so its threshold ${calibration.threshold} is not evidence; ${failed.advice}`);
      }
    }

    const production = productionTally();
    const set = await readSet(source, io, { target: target !== undefined, contextPath: target?.contextPath !== undefined }, production);
    // Rows exported from production review (groundwatch review export) say where their labels came from.
    const fromProduction = production.provenance();
    if (fromProduction) notices.push(describeProduction(fromProduction));
    if (target) {
      // The service's answers are what the gate is about: a row's own answer is not scored.
      const answered = set.filter((r) => r.answer !== undefined).length;
      if (answered > 0) warn(`--target: ${answered} of ${set.length} rows carry their own answer; every row is sent to ${target.url} and its reply is scored instead`);
    }

    // Resolved once (above): the calibration's threshold, when it is the one in force, replaces the resolved default.
    // Its relevance thresholds apply where none is set (flag, environment or config file).
    const scorer = await scorerFor(withCalibratedThresholds(thresholdSource?.kind === "calibration" && calibration ? { ...resolution.values, threshold: calibration.threshold } : resolution.values, calibration), io);
    for (const w of scorer.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);
    thresholdSource ??= scorer.entailment.recommendedThreshold !== undefined ? { kind: "backend", backend: scorer.backend.name } : { kind: "default" };
    if (calibration?.backend !== undefined && calibration.backend.name !== scorer.backend.name) {
      warn(`--calibration ${args.calibration ?? ""} was made with the ${calibration.backend.name} backend, but this run scores with ${scorer.backend.name}: its threshold may not transfer`);
    }
    const triage = scorer.backend.tier === "triage";
    if (triage) {
      notices.unshift(
        `scored with the ${scorer.backend.name} backend, tier triage: a heuristic for trends and for finding answers to review, not for release decisions on its own. For a decision, use a production backend with --require-production: --backend onnx after groundwatch model pull, or --backend judge.`,
      );
    }

    let results: EvalRow[];
    try {
      results = await scoreSet(set, { scorer, target, concurrency, io });
    } finally {
      await scorer.close();
    }

    const summary = summarise(results);
    const regressions = baseline ? regressionsAgainst(baseline, results) : [];
    const report: EvalReport = {
      version: 2,
      createdAt: new Date().toISOString(),
      set: args.set,
      backend: scorer.backend,
      triage,
      threshold: scorer.threshold,
      thresholdSource,
      notices,
      ...(fromProduction ? { production: fromProduction } : {}),
      summary,
      gate: evaluateGate(spec, summary, regressions.length, { value: scorer.threshold, source: thresholdSource }, labelSummary(results)),
      regressions,
      rows: results,
    };
    writeReports(out, report, io);
    return report.gate.passed === false ? EXIT.failure : EXIT.ok;
  });
}
