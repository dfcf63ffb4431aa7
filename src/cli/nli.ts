import type { Writable } from "node:stream";
import type { EntailmentBackend, NliPair } from "../core/backend.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./shared/backend-flags.ts";
import { inputSource, numberFlag, openBackend, parseFlags, runCommand } from "./shared/command.ts";
import { EXIT } from "./shared/exit-codes.ts";
import { outputFile } from "./shared/files.ts";
import type { CommandIo } from "./shared/io.ts";
import { writeLine } from "./shared/io.ts";
import { runRowCommand } from "./shared/rows.ts";
import { jsonForTerminal } from "../core/safe-text.ts";
import { isPlainObject } from "../core/plain-object.ts";

export const NLI_HELP: string = `groundwatch nli — classify (premise, hypothesis) pairs with an entailment backend

Usage:
  groundwatch nli pairs.jsonl [--output out.jsonl] [--backend NAME] [--model DIR|REPO]
  cat pairs.jsonl | groundwatch nli

The quickest way to check a model and its label mapping.
Input: one JSON object a line: {"id", "premise", "hypothesis"}; "-" reads standard input.
Output: {"id", "entailment", "neutral", "contradiction", "label"} (label = the most likely class),
        plus "truncated_tokens" when the pair was cut to fit the model, or {"id", "error"}
        when the backend could not classify it (never a guessed label).

Options:
  FILE, --input, -i FILE  pairs to classify ("-" or nothing, when piped: standard input)
  --output, -o FILE     where to write results (default: standard output)
  --batch N             pairs per backend call (default 32)
  --skip-invalid        report and skip malformed rows instead of stopping
  --help, -h            show this help

${BACKEND_FLAGS_HELP}
Exit codes:
  0  every row was classified
  1  a failure while running, or some pairs could not be classified (see "error" rows)
  2  bad flags or configuration
  3  a malformed input row (the error names its line); not with --skip-invalid
`;

interface Row {
  readonly id: string | number;
  readonly pair: NliPair;
}

function parseRow(line: string, n: number): { row: Row } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (error) {
    return { error: `line ${n}: not valid JSON (${(error as Error).message})` };
  }
  if (!isPlainObject(v)) return { error: `line ${n}: expected a JSON object` };
  const o = v as Record<string, unknown>;
  if (typeof o.id !== "string" && typeof o.id !== "number") return { error: `line ${n}: "id" must be a string or a number` };
  for (const k of ["premise", "hypothesis"] as const) if (typeof o[k] !== "string") return { error: `line ${n}: "${k}" must be a string` };
  return { row: { id: o.id, pair: { premise: o.premise as string, hypothesis: o.hypothesis as string } } };
}

function labelOf(r: { entailment: number; neutral: number; contradiction: number }): string {
  const ranked = (["entailment", "neutral", "contradiction"] as const).map((k) => [k, r[k]] as const).sort((a, b) => b[1] - a[1]);
  return ranked[0]?.[0] ?? "neutral";
}

/** Runs `groundwatch nli`; resolves to the exit code. */
export function runNli(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("nli", NLI_HELP, io, async () => {
    const { values: args, positionals } = parseFlags(argv, { input: { type: "string", short: "i" }, output: { type: "string", short: "o" }, batch: { type: "string" }, "skip-invalid": { type: "boolean" }, ...BACKEND_FLAGS }, true);
    const source = inputSource(args.input, positionals, io);
    const batchSize = numberFlag("batch", args.batch, (n) => Number.isInteger(n) && n >= 1, "a positive integer") ?? 32;
    // Checked before the backend loads; opened (and truncated) only once it has.
    const output = args.output ? outputFile("--output", args.output, io) : undefined;
    const backend = await openBackend(args, io);
    io.stderr.write(`groundwatch nli: backend ${backend.name} ${backend.version} (tier ${backend.tier})\n`);
    return classifyRows(source, output, args["skip-invalid"] === true, batchSize, backend, io);
  });
}

/** Classifies the pairs in batches of `batchSize`; a failed batch is retried pair by pair, so each failure names its pair. */
async function classifyRows(source: string, output: string | undefined, skipInvalid: boolean, batchSize: number, backend: EntailmentBackend, io: CommandIo): Promise<number> {
  const counts = { classified: 0, failed: 0 };
  let batch: Row[] = [];
  const flush = async (out: Writable): Promise<void> => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    let results: Array<Record<string, unknown>>;
    try {
      const r = await backend.classify(rows.map((x) => x.pair));
      results = r.map((x) => ({ entailment: x.entailment, neutral: x.neutral, contradiction: x.contradiction, label: labelOf(x), ...(x.truncatedTokens ? { truncated_tokens: x.truncatedTokens } : {}) }));
    } catch {
      // Attribute the failure to the pairs that caused it: classify them one by one.
      results = [];
      for (const row of rows) {
        try {
          const [x] = await backend.classify([row.pair]);
          results.push(x ? { entailment: x.entailment, neutral: x.neutral, contradiction: x.contradiction, label: labelOf(x) } : { error: "no result" });
        } catch (error) {
          results.push({ error: (error as Error).message });
        }
      }
    }
    for (const [i, row] of rows.entries()) {
      const r = results[i] ?? { error: "no result" };
      if ("error" in r) counts.failed++;
      else counts.classified++;
      await writeLine(out, jsonForTerminal({ id: row.id, ...r }));
    }
  };
  const exit = await runRowCommand<Row>({
    name: "nli",
    io,
    source,
    output,
    skipInvalid,
    backend,
    close: () => backend.close(),
    parse: parseRow,
    handle: async (row, out) => {
      batch.push(row);
      if (batch.length >= batchSize) await flush(out);
    },
    finish: flush,
    summary: (invalid) => `${counts.classified} classified, ${counts.failed} failed, ${invalid} invalid`,
  });
  return exit === EXIT.ok && counts.failed > 0 ? EXIT.failure : exit;
}
