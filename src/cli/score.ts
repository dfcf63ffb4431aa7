import { statSync } from "node:fs";
import type { Scorer, Evaluation } from "../scoring/scorer.ts";
import type { CommandIo } from "./shared/io.ts";
import { writeLine } from "./shared/io.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./shared/backend-flags.ts";
import { UsageError, inputSource, numberFlag, parseFlags, resolveCliScoring, runCommand, scorerFor } from "./shared/command.ts";
import { runRowCommand } from "./shared/rows.ts";
import type { ScoreRow } from "./shared/score-rows.ts";
import { parseScoreRow } from "./shared/score-rows.ts";
import { outputFile } from "./shared/files.ts";
import { formatResultBlock, modelWorkLine, tableHeader } from "./shared/table.ts";
import { markStyleFor } from "./shared/spans.ts";
import type { CallsByEngine } from "../core/result.ts";
import type { EntailmentCounts } from "../evaluation/types.ts";
import { entailmentCounts } from "../evaluation/summary.ts";
import { jsonForTerminal } from "../core/safe-text.ts";

export const SCORE_HELP: string = `groundwatch score — check each answer's claims against its retrieved context

Usage:
  groundwatch score rows.jsonl [--output out.jsonl] [--format jsonl|json|table] [--backend NAME] [--model DIR|REPO] [--threshold T]
  cat rows.jsonl | groundwatch score --format table

Input: one JSON object a line: {"id", "context": string | string[], "answer", "question"?,
       "samples"?: [string | {"text", "logprobs"?}], "logprobs"?: [...]}. "-", or no file when
       rows are piped in, reads standard input. A context document may be {"text", "id"?,
       "title"?, "url"?}: citations in the answer ([1], [1, 3], [^2], (source: name)) are then
       checked against the documents they name.
       With samples (resamples of the same question at temperature > 0) each row also gets
       semantic entropy ("entropy") and a combined verdict ("combined": pass | fail | unscorable),
       each claim gets "resampleSupport" (in how many resamples it is entailed or contradicted),
       and the row gets "unstableClaims" (claims few resamples support) and "claimConsistency".
Output: one JSON object a line: the row's id, score (0–1, higher = better grounded,
       the least supported claim's score), verdict (grounded | ungrounded | unscorable),
       reason when unscorable, threshold, claims (text, offsets, verdict, score,
       evidence with document index and offsets), skipped sentences, the backend, and
       "limits" when an input limit cut the row (answer_chars, context_chars, documents,
       token_chars, claims, samples, entailment_calls; GROUNDWATCH_MAX_* set them).
       An answer with citations also gets "citations" ({found, valid, invalid,
       misattributed}), and each cited claim its citations with their status (supported,
       misattributed, unsupported, contradicted, not_retrieved); --format table shows them
       under each claim.
       An ungrounded answer gets "cause" (retrieval | generation | citation | mixed | unknown),
       each failing claim its "cause", and every row "relevance" (the documents' relevance to
       the question per document and the best, the answer's relevance to the question, or why
       it was not measured); without a question, each failing claim its "relevance". --format
       table shows them on a line under the verdict. GROUNDWATCH_RELEVANCE=false turns this off.
       With a span detector, every row gets "spans" (the words it marked unsupported: start,
       end, probability, claim, text; [] when none) and "callsByEngine" ({claims, spans}), and
       each claim the spans in it; --format table shows the answer with them marked (bold red
       on a terminal, [[ … ]] in a file, a pipe or with NO_COLOR), each span with its
       probability and claim, and "marked: «…» p=0.91" under each claim they fall in.

Options:
  FILE, --input, -i FILE  rows to score (or standard input, when piped)
  --output, -o FILE     where to write results (default: standard output)
  --format F            jsonl (default: one result a line), json (one array), or table (for reading)
  --threshold T         answer threshold in [0, 1] (default: the backend's fitted one)
  --top-k N             context windows checked per claim (default 3)
  --token-budget N      largest context window in model tokens (default 400)
  --skip-invalid        report and skip malformed rows instead of stopping
  --help, -h            show this help

${BACKEND_FLAGS_HELP}
Exit codes:
  0  every row was read; results written
  1  a failure while running (backend could not load, output not writable)
  2  bad flags or configuration
  3  a malformed input row (the error names its line); not with --skip-invalid
`;

interface Summary {
  rows: number;
  grounded: number;
  ungrounded: number;
  unscorable: number;
}

/** One result as score writes it (jsonl and json): the fields are chosen here, each optional one only when the result has it. */
export function toOutputRow(id: string | number, r: Evaluation): Record<string, unknown> {
  return {
    ...(r.combined ? { combined: r.combined } : {}),
    id,
    score: r.score,
    verdict: r.verdict,
    ...(r.verdict === "unscorable" ? { reason: r.reason, detail: r.detail } : { threshold: r.threshold }),
    claims: r.claims,
    // With a span detector: the words it marked (offsets, probability, claim, text), [] when none.
    ...(r.spans ? { spans: r.spans } : {}),
    // With a span detector that failed (refine mode): why there are no spans; the claim verdicts stand.
    ...(r.spansUnmeasured ? { spansUnmeasured: r.spansUnmeasured } : {}),
    skipped: r.skipped,
    backend: r.backend,
    // Pairs sent to the backend for groundedness; callsSaved only when some were decided without a model call.
    entailmentCalls: r.entailmentCalls,
    ...(r.callsSaved ? { callsSaved: r.callsSaved } : {}),
    // With a span detector: model work by engine (claim pairs, span detector inputs).
    ...(r.callsByEngine ? { callsByEngine: r.callsByEngine } : {}),
    // Only when the answer cites something ([1], (source: name)): markers found, valid, invalid, misattributed.
    ...(r.citations ? { citations: r.citations } : {}),
    // Only when an input limit cut the row, so ordinary rows read as before.
    ...(r.limits.length > 0 ? { limits: r.limits } : {}),
    ...(r.entropy ? { entropy: r.entropy } : {}),
    // With resamples: which claims the model would not say again (each claim carries resampleSupport).
    ...(r.unstableClaims ? { unstableClaims: r.unstableClaims } : {}),
    ...(r.claimConsistency ? { claimConsistency: r.claimConsistency } : {}),
    // Why an ungrounded answer is not grounded, and how relevant the documents and the answer are.
    ...(r.verdict === "ungrounded" && r.cause ? { cause: r.cause } : {}),
    ...(r.verdict === "ungrounded" && r.causeReason ? { causeReason: r.causeReason } : {}),
    ...(r.relevance ? { relevance: r.relevance } : {}),
  };
}

/** Runs `groundwatch score`; resolves to the exit code. */
export function runScore(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("score", SCORE_HELP, io, async () => {
    const { values: args, positionals } = parseFlags(
      argv,
      {
        input: { type: "string", short: "i" },
        output: { type: "string", short: "o" },
        format: { type: "string" },
        ...BACKEND_FLAGS,
        threshold: { type: "string" },
        "top-k": { type: "string" },
        "token-budget": { type: "string" },
        "skip-invalid": { type: "boolean" },
      },
      true,
    );
    const source = inputSource(args.input, positionals, io);
    const format = args.format ?? "jsonl";
    if (format !== "jsonl" && format !== "json" && format !== "table") throw new UsageError(`--format must be jsonl, json or table (got ${JSON.stringify(format)})`, true);
    // Checked before the backend loads (which can take seconds); opened only once it has.
    const output = args.output !== undefined ? outputFile("--output", args.output, io) : undefined;
    const threshold = numberFlag("threshold", args.threshold, () => true, "a number");
    const topK = numberFlag("top-k", args["top-k"], () => true, "a number");
    const tokenBudget = numberFlag("token-budget", args["token-budget"], () => true, "a number");
    const { scoring } = resolveCliScoring(args, io, {
      ...(threshold !== undefined ? { threshold } : {}),
      ...(topK !== undefined ? { topK } : {}),
      ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    });
    const scorer = await scorerFor(scoring, io);
    for (const w of scorer.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);
    if (scorer.backend.tier === "triage" && scorer.warnings.length === 0) {
      io.stderr.write(`groundwatch: scoring with the ${scorer.backend.name} backend (${scorer.backend.version}): triage-grade results, not for paging or release decisions alone\n`);
    }
    return scoreRows(output, args["skip-invalid"] === true, source, format, scorer, io);
  });
}

async function scoreRows(output: string | undefined, skipInvalid: boolean, inputPath: string, format: "jsonl" | "json" | "table", scorer: Scorer, io: CommandIo): Promise<number> {
  const totalBytes = inputPath === "-" ? 0 : statSync(inputPath).size;
  const summary: Summary = { rows: 0, grounded: 0, ungrounded: 0, unscorable: 0 };
  // The run's model work, for the table's closing line.
  let work: EntailmentCounts = { calls: 0, saved: { verbatim: 0, cache: 0, triage: 0 } };
  // With a span detector: its work and the claim detector's, over the run (undefined without one).
  let byEngine: CallsByEngine | undefined;
  // Marked words in colour only on a terminal without NO_COLOR; never in a file.
  const style = output === undefined ? markStyleFor(io.stdout, io.env) : { color: false };
  const showProgress = io.stderr.isTTY === true;
  const started = Date.now();
  let lastProgress = 0;
  let bytesRead = 0;
  let written = 0;
  return runRowCommand<ScoreRow>({
    name: "score",
    io,
    source: inputPath,
    output,
    skipInvalid,
    backend: scorer.entailment,
    close: () => scorer.close(),
    parse: (line, lineNumber) => {
      bytesRead += Buffer.byteLength(line) + 1;
      const parsed = parseScoreRow(line, lineNumber);
      return parsed.ok ? { row: parsed.row } : { error: parsed.error };
    },
    start: async (out) => {
      if (format === "table") for (const l of tableHeader()) await writeLine(out, l);
      if (format === "json") await writeLine(out, "[");
    },
    handle: async (row, out) => {
      const result = await scorer.score({
        answer: row.answer,
        context: row.context,
        ...(row.question !== undefined ? { question: row.question } : {}),
        ...(row.samples ? { samples: row.samples } : {}),
      });
      summary.rows++;
      summary[result.verdict]++;
      const counts = entailmentCounts(result);
      work = { calls: work.calls + counts.calls, saved: { verbatim: work.saved.verbatim + counts.saved.verbatim, cache: work.saved.cache + counts.saved.cache, triage: work.saved.triage + counts.saved.triage } };
      if (result.callsByEngine) byEngine = { claims: (byEngine?.claims ?? 0) + result.callsByEngine.claims, spans: (byEngine?.spans ?? 0) + result.callsByEngine.spans };
      if (format === "table") {
        for (const l of formatResultBlock(row.id, row.answer, result, row.context, style)) await writeLine(out, l);
      } else if (format === "json") {
        // One array, streamed: a separator before every element but the first.
        await writeLine(out, `${written > 0 ? "," : ""}${jsonForTerminal(toOutputRow(row.id, result))}`);
      } else {
        await writeLine(out, jsonForTerminal(toOutputRow(row.id, result)));
      }
      written++;
      if (showProgress && Date.now() - lastProgress > 200) {
        lastProgress = Date.now();
        const rate = summary.rows / Math.max(0.001, (Date.now() - started) / 1000);
        const pct = totalBytes > 0 ? ` ${((100 * bytesRead) / totalBytes).toFixed(1)}%` : "";
        io.stderr.write(`\r  scored ${summary.rows} rows${pct} (${rate.toFixed(0)} rows/s)   `);
      }
    },
    finish: async (out) => {
      if (format === "json") await writeLine(out, "]");
      if (format === "table") await writeLine(out, modelWorkLine(work, byEngine));
    },
    done: () => {
      if (showProgress) io.stderr.write("\n");
    },
    summary: (invalid) =>
      `${summary.rows} scored (${summary.grounded} grounded, ${summary.ungrounded} ungrounded, ${summary.unscorable} unscorable), ${invalid} invalid${skipInvalid && invalid > 0 ? " (skipped)" : ""}, threshold ${scorer.threshold.toFixed(3)}`,
  });
}
