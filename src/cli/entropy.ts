import type { Writable } from "node:stream";
import type { Claim } from "../core/claims/index.ts";
import { splitClaims } from "../core/claims/index.ts";
import type { ClaimConsistencyResult, ClaimRef } from "../core/entropy/claim-consistency.ts";
import { claimConsistency } from "../core/entropy/claim-consistency.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { semanticEntropy } from "../core/entropy/semantic-entropy.ts";
import type { EntailmentBackend } from "../core/backend.ts";
import type { NliCache } from "../core/nli-cache.ts";
import { createNliCache } from "../core/nli-cache.ts";
import type { TextAnalyzer } from "../core/text.ts";
import { createTextAnalyzer } from "../core/text.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { resolveScoreOptions } from "../config/score-options.ts";
import { DEFAULT_SETTINGS } from "../config/defaults.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./shared/backend-flags.ts";
import { inputSource, numberFlag, openBackend, parseFlags, runCommand, scoreOptionsFromFlags } from "./shared/command.ts";
import { explainEntropy } from "./shared/explain.ts";
import { outputFile } from "./shared/files.ts";
import type { CommandIo } from "./shared/io.ts";
import { sanitizeForTerminal, writeLine } from "./shared/io.ts";
import { runRowCommand } from "./shared/rows.ts";
import { parseSamples } from "./shared/score-rows.ts";
import { jsonForTerminal } from "../core/safe-text.ts";
import { isPlainObject } from "../core/plain-object.ts";

/** Entailment calls per row when --max-calls is not given: enough for about 100 samples, and never unbounded. */
const DEFAULT_ENTROPY_ROW_CALLS = 10_000;

export const ENTROPY_HELP: string = `groundwatch entropy — semantic entropy of resampled answers

Usage:
  groundwatch entropy rows.jsonl [--output out.jsonl] [--explain] [--threshold T]
  cat rows.jsonl | groundwatch entropy --explain

Input: one JSON object a line: {"id", "question", "samples": [string | {"text", "logprobs"?}],
       "logprobs"?: [per sample: token log-probabilities or one mean], "requested"?: N,
       "answer"?: the answer the samples were redrawn for}.
Output: per row the clusters (members, mass), each sample's cluster, every entailment judgement,
       entropy (nats), normalised entropy, naive and lexical entropy, agreement, estimator,
       Chao1 and Miller–Madow diagnostics, reliable / abstained with reasons, and the backend.
       With an answer, also its claims, each with "resampleSupport" ({supported, contradicted,
       of}: in how many samples it is entailed and contradicted), "unstableClaims" (entailed by
       fewer than --unstable-share of the samples: the model would not say them again) and
       "claimConsistency" (counts, reliability, entailment calls).

Options:
  FILE, --input, -i FILE  rows ("-" or nothing, when piped: standard input)
  --output, -o FILE     JSONL results (default: standard output, unless --explain)
  --explain             print a readable audit trail per row to standard output
  --threshold T         normalised entropy at which --explain calls a row uncertain (default 0.5)
  --max-calls N         entailment budget per row, checked before any call (default 10000: about
                        100 samples; a row over it is reported unreliable with the reason); the
                        claims of an answer get what entropy left
  --unstable-share S    a claim entailed by fewer than this share of the samples is unstable
                        (default 0.5; env GROUNDWATCH_UNSTABLE_SHARE)
  --skip-invalid        report and skip malformed rows instead of stopping
  --help, -h            show this help

${BACKEND_FLAGS_HELP}
Exit codes: 0 done, 1 failure while running, 2 bad flags or configuration, 3 malformed input row.
`;

interface Row {
  readonly id: string | number;
  readonly question: string;
  readonly samples: Sample[];
  readonly requested?: number;
  readonly answer?: string;
}

/** How the claims of a row's answer are checked against its samples. */
interface ClaimSettings {
  readonly resolved: ResolvedScoreOptions;
  readonly unstableShare: number;
}

function parseRow(line: string, n: number): Row | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (error) {
    return `line ${n}: not valid JSON (${(error as Error).message})`;
  }
  if (!isPlainObject(v)) return `line ${n}: expected a JSON object`;
  const o = v as Record<string, unknown>;
  if (typeof o.id !== "string" && typeof o.id !== "number") return `line ${n}: "id" must be a string or a number`;
  if (typeof o.question !== "string") return `line ${n}: "question" must be a string`;
  if (o.requested !== undefined && (typeof o.requested !== "number" || !Number.isInteger(o.requested) || o.requested < 1)) return `line ${n}: "requested" must be a positive integer`;
  if (o.answer !== undefined && o.answer !== null && typeof o.answer !== "string") return `line ${n}: "answer" must be a string when present`;
  const samples = parseSamples(o.samples, o.logprobs);
  if (typeof samples === "string") return `line ${n}: ${samples}`;
  return {
    id: o.id,
    question: o.question,
    samples,
    ...(typeof o.requested === "number" ? { requested: o.requested } : {}),
    ...(typeof o.answer === "string" ? { answer: o.answer } : {}),
  };
}

/** Runs `groundwatch entropy`; resolves to the exit code. */
export function runEntropy(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("entropy", ENTROPY_HELP, io, async () => {
    const { values: args, positionals } = parseFlags(argv, {
      input: { type: "string", short: "i" },
      output: { type: "string", short: "o" },
      explain: { type: "boolean" },
      threshold: { type: "string" },
      "max-calls": { type: "string" },
      "unstable-share": { type: "string" },
      "skip-invalid": { type: "boolean" },
      ...BACKEND_FLAGS,
    }, true);
    const source = inputSource(args.input, positionals, io);
    const threshold = numberFlag("threshold", args.threshold, (n) => n >= 0 && n <= 1, "a number from 0 to 1") ?? 0.5;
    const maxCalls = numberFlag("max-calls", args["max-calls"], (n) => Number.isInteger(n) && n >= 1, "a positive integer") ?? DEFAULT_ENTROPY_ROW_CALLS;
    const unstableShareFlag = numberFlag("unstable-share", args["unstable-share"], (n) => n >= 0 && n <= 1, "a number from 0 to 1");
    const { options, file } = scoreOptionsFromFlags(args, io, unstableShareFlag !== undefined ? { unstableShare: unstableShareFlag } : {});
    const resolved = resolveScoreOptions(options, { env: io.env, ...(file ? { file } : {}) });
    // Checked before the backend loads; opened (and truncated) only once it has.
    const output = args.output ? outputFile("--output", args.output, io) : undefined;
    const backend = await openBackend(args, io);
    const claims: ClaimSettings = { resolved, unstableShare: resolved.unstableShare };
    return measureEntropyRows({ output, explain: args.explain, "skip-invalid": args["skip-invalid"] }, source, threshold, maxCalls, claims, backend, io);
  });
}

async function measureEntropyRows(
  args: { output: string | undefined; explain?: boolean | undefined; "skip-invalid"?: boolean | undefined },
  source: string,
  threshold: number,
  maxCalls: number,
  claimSettings: ClaimSettings,
  backend: EntailmentBackend,
  io: CommandIo,
): Promise<number> {
  const cache = createNliCache();
  const counts = { rows: 0, unreliable: 0, abstained: 0, answers: 0, withUnstable: 0 };
  let analyzer: TextAnalyzer | undefined;
  return runRowCommand<Row>({
    name: "entropy",
    io,
    source,
    output: args.output,
    skipInvalid: args["skip-invalid"] === true,
    backend,
    close: () => backend.close(),
    parse: (line, n) => {
      const row = parseRow(line, n);
      return typeof row === "string" ? { error: row } : { row };
    },
    handle: async (row, out) => {
      // With --explain the audit trail takes standard output; the JSON rows then go only to --output.
      const jsonOut: Writable | undefined = args.output !== undefined || !args.explain ? out : undefined;
      const result = await semanticEntropy({
        question: row.question,
        samples: row.samples,
        backend,
        options: { cache, ...(row.requested !== undefined ? { requested: row.requested } : {}), maxEntailmentCalls: maxCalls },
      });
      let claims: { readonly claims: readonly Claim[]; readonly result: ClaimConsistencyResult } | undefined;
      if (row.answer !== undefined) {
        analyzer ??= createTextAnalyzer({ maxTokenChars: claimSettings.resolved.maxTokenChars });
        claims = await checkClaims(row, analyzer, backend, claimSettings, Math.max(0, maxCalls - result.entailmentCalls), cache);
        counts.answers++;
        if (claims.result.unstableClaims.length > 0) counts.withUnstable++;
      }
      counts.rows++;
      if (!result.reliable) counts.unreliable++;
      if (result.abstained) counts.abstained++;
      if (jsonOut) {
        const extra = claims
          ? {
              claims: claims.claims.map((c, i) => {
                const support = claims.result.support[i];
                return { index: c.index, text: c.text, start: c.start, end: c.end, ...(support ? { resampleSupport: support } : {}) };
              }),
              unstableClaims: claims.result.unstableClaims,
              claimConsistency: claims.result.summary,
            }
          : {};
        await writeLine(jsonOut, jsonForTerminal({ id: row.id, ...result, ...extra }));
      }
      if (args.explain) io.stdout.write(explainEntropy(row.id, result, threshold) + (claims ? explainClaims(claims.claims, claims.result) : ""));
    },
    summary: (invalid) => {
      const answers = counts.answers > 0 ? `; ${counts.withUnstable} of ${counts.answers} answers with unstable claims` : "";
      return `${counts.rows} measured (${counts.unreliable} unreliable, ${counts.abstained} abstained), ${invalid} invalid${answers}`;
    },
  });
}

/** Splits a row's answer into claims and checks each against the row's samples. */
async function checkClaims(
  row: Row,
  analyzer: TextAnalyzer,
  backend: EntailmentBackend,
  settings: ClaimSettings,
  budget: number,
  cache: NliCache,
): Promise<{ claims: Claim[]; result: ClaimConsistencyResult }> {
  const { resolved } = settings;
  const claims = splitClaims(row.answer ?? "", analyzer)
    .filter((s): s is Claim => s.kind === "claim")
    .slice(0, resolved.maxClaims);
  const result = await claimConsistency({
    question: row.question,
    claims: claims satisfies readonly ClaimRef[],
    samples: row.samples,
    backend,
    analyzer,
    options: {
      threshold: resolved.threshold ?? backend.recommendedThreshold ?? DEFAULT_SETTINGS.threshold,
      unstableShare: settings.unstableShare,
      tokenBudget: resolved.tokenBudget,
      topK: resolved.topK,
      maxEntailmentCalls: budget,
      cache,
      ...(row.requested !== undefined ? { requested: row.requested } : {}),
    },
  });
  return { claims, result };
}

function clip(text: string, width: number): string {
  const flat = sanitizeForTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/**
 * Which claims of the answer the samples say again: per claim, how many samples entail and
 * contradict it, the unstable ones marked, and whether the measurement can be trusted.
 */
export function explainClaims(claims: readonly Claim[], r: ClaimConsistencyResult): string {
  const s = r.summary;
  const share = `${Math.round(s.unstableShare * 100)}%`;
  const lines = [`claims of the answer, checked against ${s.samples} samples (unstable: entailed by fewer than ${share} of them):`];
  if (claims.length === 0) lines.push("  (no checkable claim in the answer)");
  const unstable = new Set(r.unstableClaims.map((c) => c.index));
  claims.forEach((c, i) => {
    const support = r.support[i];
    if (!support) {
      lines.push(`  ?  not checked               "${clip(c.text, 60)}"`);
      return;
    }
    const mark = unstable.has(c.index) ? "✗" : s.degenerate ? "?" : "✓";
    const counts = `${support.supported}/${support.of} entail, ${support.contradicted} contradict`.padEnd(26);
    lines.push(`  ${mark}  ${counts}  "${clip(c.text, 60)}"${unstable.has(c.index) ? "  ← UNSTABLE" : ""}`);
  });
  let verdict: string;
  if (claims.length === 0) verdict = "no claims to check";
  else if (s.degenerate) verdict = `UNRELIABLE — not evidence of stability: ${s.reasons.join("; ")}${s.unstable > 0 ? ` (${s.unstable} claim(s) unstable even so)` : ""}`;
  else if (s.unstable > 0) verdict = `UNSTABLE — ${s.unstable} of ${s.claims} claims entailed by fewer than ${share} of the samples: the model would not say ${s.unstable === 1 ? "it" : "them"} again${s.reliable ? "" : `; ${s.reasons.join("; ")}`}`;
  else if (!s.reliable) verdict = `NOT MEASURED — ${s.reasons.join("; ")}`;
  else verdict = `STABLE — every claim entailed by at least ${share} of the samples`;
  lines.push(`claim stability: ${clip(verdict, 300)}`);
  lines.push(`entailment calls ${s.entailmentCalls} (every claim against every sample, both ways: ${s.naiveCalls})`);
  return lines.join("\n") + "\n";
}
