import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { wilsonInterval } from "../core/calibration.ts";
import type { ContextInput } from "../core/context.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { createScorer } from "../nli/scorer.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./backend-flags.ts";
import { UsageError, inputPath, numberFlag, parseFlags, runCommand, scoreOptionsFromFlags } from "./command.ts";
import { createIdChecker } from "./unique-ids.ts";
import type { EvalReport, EvalRow } from "./eval-report.ts";
import { reportHtml, reportJunit, reportMarkdown } from "./eval-report.ts";
import { EXIT } from "./exit-codes.ts";
import { inputLines, makeOutputDir, outputDir, readTextFile, writeOutputFile } from "./files.ts";
import type { CommandIo } from "./io.ts";
import { sanitizeForTerminal } from "./io.ts";
import { parseSamples } from "./score-rows.ts";
import type { TargetOptions } from "./target.ts";
import { DEFAULT_MAX_REPLY_BYTES, askTarget, renderRequest } from "./target.ts";

export const EVAL_HELP: string = `groundwatch eval — a CI release gate on a fixed evaluation set

Usage:
  groundwatch eval --set eval.jsonl [--floor 0.9] [--max-hallucination-rate 0.05]
                   [--baseline previous/report.json] [--target URL] [--out DIR]

Rows: {"id" (unique), "question", "context", "answer"?, "label"?, "samples"?}. Without --target every row
needs its answer; with --target the answers (and resamples) come from your RAG endpoint:
  --target URL              POST endpoint of the RAG service
  --request JSON            request body, {{question}} where the question goes (default {"question":"{{question}}"})
  --answer-path PATH        dot path of the answer in the reply (default "answer")
  --samples-path PATH       dot path of an array of resamples in the reply (optional)
  --concurrency N           requests in flight (default 4); --timeout-ms N (default 30000); --retries N (default 2)
  --max-reply-bytes N       largest reply read (default ${DEFAULT_MAX_REPLY_BYTES}); a larger one fails its row

Gate: fails when mean groundedness < --floor, the hallucination rate (ungrounded / scorable) >
--max-hallucination-rate, or, with --baseline, any row regressed (was grounded, now not; or its
score fell by more than 0.1). Writes report.json, report.md (also appended to
$GITHUB_STEP_SUMMARY when set), junit.xml (one testcase per row) and a self-contained report.html
to --out (default groundwatch-report/).

Exit codes: 0 passed, 1 gate failed, 2 bad flags, configuration or input.

${BACKEND_FLAGS_HELP}`;

interface SetRow {
  readonly id: string | number;
  readonly question: string | undefined;
  readonly context: ContextInput;
  readonly answer: string | undefined;
  readonly label?: 0 | 1;
  readonly samples?: Sample[];
}

function parseSetRow(line: string, n: number): SetRow {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (error) {
    throw new UsageError(`line ${n}: not valid JSON (${(error as Error).message})`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError(`line ${n}: expected a JSON object`);
  const o = v as Record<string, unknown>;
  if (typeof o.id !== "string" && typeof o.id !== "number") throw new UsageError(`line ${n}: "id" must be a string or a number`);
  if (o.question !== undefined && typeof o.question !== "string") throw new UsageError(`line ${n}: "question" must be a string`);
  const ctx = o.context;
  if (typeof ctx !== "string" && !(Array.isArray(ctx) && ctx.every((d) => typeof d === "string"))) throw new UsageError(`line ${n}: "context" must be a string or an array of strings`);
  if (o.answer !== undefined && typeof o.answer !== "string") throw new UsageError(`line ${n}: "answer" must be a string`);
  if (o.label !== undefined && o.label !== 0 && o.label !== 1) throw new UsageError(`line ${n}: "label" must be 1 (grounded) or 0 (not grounded)`);
  let samples: Sample[] | undefined;
  if (o.samples !== undefined) {
    const s = parseSamples(o.samples, o.logprobs);
    if (typeof s === "string") throw new UsageError(`line ${n}: ${s}`);
    samples = s;
  }
  return {
    id: o.id,
    question: o.question as string | undefined,
    context: ctx as ContextInput,
    answer: o.answer as string | undefined,
    ...(o.label === 0 || o.label === 1 ? { label: o.label } : {}),
    ...(samples ? { samples } : {}),
  };
}

/** Runs `groundwatch eval`; resolves to the exit code. */
export function runEval(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("eval", EVAL_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      set: { type: "string" },
      floor: { type: "string" },
      "max-hallucination-rate": { type: "string" },
      baseline: { type: "string" },
      target: { type: "string" },
      request: { type: "string" },
      "answer-path": { type: "string" },
      "samples-path": { type: "string" },
      concurrency: { type: "string" },
      "timeout-ms": { type: "string" },
      retries: { type: "string" },
      "max-reply-bytes": { type: "string" },
      out: { type: "string" },
      ...BACKEND_FLAGS,
    });
    const source = inputPath(args.set, io);
    const floor = numberFlag("floor", args.floor, (n) => n >= 0 && n <= 1, "a number from 0 to 1");
    const maxRate = numberFlag("max-hallucination-rate", args["max-hallucination-rate"], (n) => n >= 0 && n <= 1, "a rate from 0 to 1");
    const concurrency = numberFlag("concurrency", args.concurrency, (n) => Number.isInteger(n) && n >= 1 && n <= 256, "an integer from 1 to 256") ?? 4;
    // Checked before any row is scored: a bad --out should not cost a whole run.
    const out = outputDir("--out", args.out ?? "groundwatch-report", io);
    let baseline: EvalReport | undefined;
    if (args.baseline) {
      try {
        baseline = JSON.parse(readTextFile(resolve(io.cwd, args.baseline))) as EvalReport;
        if (!Array.isArray(baseline.rows)) throw new Error('no "rows"');
      } catch (error) {
        throw new UsageError(`cannot read --baseline ${args.baseline}: ${(error as Error).message}`);
      }
    }
    let target: TargetOptions | undefined;
    if (args.target) {
      if (!/^https?:\/\//.test(args.target)) throw new UsageError(`--target must be an http(s) URL (got ${JSON.stringify(args.target)})`);
      const requestTemplate = args.request ?? '{"question":"{{question}}"}';
      try {
        renderRequest(requestTemplate, "probe");
      } catch {
        throw new UsageError(`--request is not a JSON template: ${requestTemplate}`);
      }
      target = {
        url: args.target,
        requestTemplate,
        answerPath: args["answer-path"] ?? "answer",
        ...(args["samples-path"] ? { samplesPath: args["samples-path"] } : {}),
        timeoutMs: numberFlag("timeout-ms", args["timeout-ms"], (n) => n > 0, "a positive number") ?? 30_000,
        attempts: (numberFlag("retries", args.retries, (n) => Number.isInteger(n) && n >= 0, "a whole number") ?? 2) + 1,
        maxReplyBytes: numberFlag("max-reply-bytes", args["max-reply-bytes"], (n) => Number.isSafeInteger(n) && n >= 1, "a positive whole number of bytes") ?? DEFAULT_MAX_REPLY_BYTES,
      };
    }

    const set: SetRow[] = [];
    const checkId = createIdChecker("the report, junit.xml and --baseline match rows by id");
    let n = 0;
    for await (const line of inputLines(source, io)) {
      n++;
      if (line.trim() === "") continue;
      const row = parseSetRow(line, n);
      checkId(row.id, n);
      if (row.answer === undefined && !target) throw new UsageError(`line ${n}: no "answer", and no --target to ask for one`);
      if (target && row.question === undefined) throw new UsageError(`line ${n}: --target needs a "question"`);
      set.push(row);
    }
    if (set.length === 0) throw new UsageError("the set is empty");

    const { options, file } = scoreOptionsFromFlags(args, io);
    const scorer = await createScorer(options, { env: io.env, ...(file ? { file } : {}) });
    for (const w of scorer.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);
    const results = new Array<EvalRow>(set.length);
    let done = 0;
    const tty = io.stderr.isTTY === true;
    const progress = (): void => {
      if (!tty) return;
      const width = 30;
      const filled = Math.round((done / set.length) * width);
      io.stderr.write(`\r  [${"#".repeat(filled).padEnd(width)}] ${done}/${set.length}`);
    };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < set.length) {
        const i = next++;
        const row = set[i] as SetRow;
        let answer = row.answer ?? "";
        let samples = row.samples;
        let error: string | undefined;
        if (target && row.answer === undefined) {
          try {
            const got = await askTarget(target, row.question ?? "");
            answer = got.answer;
            if (got.samples) samples = got.samples;
          } catch (e) {
            error = (e as Error).message;
          }
        }
        if (error !== undefined) {
          results[i] = { id: row.id, question: row.question, answer: "", verdict: "unscorable", score: null, reason: "target_error", claims: [], error, ...(row.label !== undefined ? { label: row.label } : {}) };
        } else {
          const r = await scorer.score({ answer, context: row.context, ...(row.question !== undefined ? { question: row.question } : {}), ...(samples ? { samples } : {}) });
          results[i] = {
            id: row.id,
            question: row.question,
            answer,
            verdict: r.verdict,
            score: r.score,
            ...(r.verdict === "unscorable" ? { reason: r.reason } : {}),
            claims: r.claims,
            ...(row.label !== undefined ? { label: row.label } : {}),
            ...(r.combined ? { combined: r.combined.verdict } : {}),
          };
        }
        done++;
        progress();
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, set.length) }, worker));
    } finally {
      await scorer.close();
    }
    if (tty) io.stderr.write("\n");

    const scorable = results.filter((r) => r.verdict !== "unscorable");
    const ungrounded = scorable.filter((r) => r.verdict === "ungrounded").length;
    const mean = scorable.length ? scorable.reduce((a, r) => a + (r.score ?? 0), 0) / scorable.length : null;
    const rate = scorable.length ? ungrounded / scorable.length : null;
    const failures: string[] = [];
    if (floor !== undefined && (mean === null || mean < floor)) failures.push(`mean groundedness ${mean === null ? "not measurable" : mean.toFixed(3)} is below the floor ${floor}`);
    if (maxRate !== undefined && (rate === null || rate > maxRate)) failures.push(`hallucination rate ${rate === null ? "not measurable" : `${(100 * rate).toFixed(1)}%`} is above the maximum ${(100 * maxRate).toFixed(1)}%`);
    const regressions: Array<EvalReport["regressions"][number]> = [];
    if (baseline) {
      const before = new Map(baseline.rows.map((r) => [String(r.id), r]));
      for (const r of results) {
        const b = before.get(String(r.id));
        if (!b) continue;
        const worse = (b.verdict === "grounded" && r.verdict !== "grounded") || (b.score !== null && r.score !== null && r.score < b.score - 0.1) || (b.score !== null && r.score === null);
        if (worse) regressions.push({ id: r.id, before: b.verdict, after: r.verdict, scoreBefore: b.score, scoreAfter: r.score });
      }
      if (regressions.length > 0) failures.push(`${regressions.length} row(s) regressed against the baseline`);
    }
    const report: EvalReport = {
      version: 1,
      createdAt: new Date().toISOString(),
      set: args.set ?? "",
      backend: scorer.backend,
      threshold: scorer.threshold,
      summary: {
        rows: results.length,
        scorable: scorable.length,
        unscorable: results.length - scorable.length,
        meanGroundedness: mean,
        hallucinationRate: rate,
        hallucinationInterval: scorable.length ? wilsonInterval(ungrounded, scorable.length) : null,
      },
      gate: { passed: failures.length === 0, ...(floor !== undefined ? { floor } : {}), ...(maxRate !== undefined ? { maxHallucinationRate: maxRate } : {}), failures },
      regressions,
      rows: results,
    };
    makeOutputDir("--out", out);
    const md = reportMarkdown(report);
    writeOutputFile("--out", resolve(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    writeOutputFile("--out", resolve(out, "report.md"), md);
    writeOutputFile("--out", resolve(out, "junit.xml"), reportJunit(report));
    writeOutputFile("--out", resolve(out, "report.html"), reportHtml(report));
    if (io.env.GITHUB_STEP_SUMMARY) {
      // The summary is a courtesy copy: failing to append it must not hide the gate's result.
      try {
        appendFileSync(io.env.GITHUB_STEP_SUMMARY, md);
      } catch (error) {
        io.stderr.write(`groundwatch eval: WARNING: cannot append to $GITHUB_STEP_SUMMARY ${sanitizeForTerminal(io.env.GITHUB_STEP_SUMMARY)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
      }
    }
    io.stdout.write(md);
    io.stdout.write(`\nreports in ${out}: report.json, report.md, junit.xml, report.html\n`);
    return report.gate.passed ? EXIT.ok : EXIT.failure;
  });
}
