import { createReadStream, createWriteStream, statSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { isConfigError } from "../config/errors.ts";
import { loadConfigFile } from "../config/file.ts";
import { resolveScoreOptions } from "../config/score-options.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { semanticEntropy } from "../core/entropy/semantic-entropy.ts";
import { createTextAnalyzer } from "../core/text.ts";
import type { EntailmentBackend, NliResult } from "../nli/backend.ts";
import { createBackend } from "../nli/registry.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP, backendOptionsFromFlags } from "./backend-flags.ts";
import { EXIT } from "./exit-codes.ts";
import { explainEntropy } from "./explain.ts";
import type { CommandIo } from "./io.ts";
import { writeLine } from "./io.ts";
import { parseSamples } from "./score-rows.ts";
import { describeUsage } from "./usage.ts";

export const ENTROPY_HELP: string = `groundwatch entropy — semantic entropy of resampled answers

Usage:
  groundwatch entropy --input rows.jsonl [--output out.jsonl] [--explain] [--threshold T]

Input: one JSON object a line: {"id", "question", "samples": [string | {"text", "logprobs"?}],
       "logprobs"?: [per sample: token log-probabilities or one mean], "requested"?: N}.
Output: per row the clusters (members, mass), each sample's cluster, every entailment judgement,
       entropy (nats), normalised entropy, naive and lexical entropy, agreement, estimator,
       Chao1 and Miller–Madow diagnostics, reliable / abstained with reasons, and the backend.

Options:
  --input, -i FILE      rows (required; "-" reads standard input)
  --output, -o FILE     JSONL results (default: standard output, unless --explain)
  --explain             print a readable audit trail per row to standard output
  --threshold T         normalised entropy at which --explain calls a row uncertain (default 0.5)
  --max-calls N         entailment budget per row, checked before any call
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
}

function parseRow(line: string, n: number): Row | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (error) {
    return `line ${n}: not valid JSON (${(error as Error).message})`;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return `line ${n}: expected a JSON object`;
  const o = v as Record<string, unknown>;
  if (typeof o.id !== "string" && typeof o.id !== "number") return `line ${n}: "id" must be a string or a number`;
  if (typeof o.question !== "string") return `line ${n}: "question" must be a string`;
  if (o.requested !== undefined && (typeof o.requested !== "number" || !Number.isInteger(o.requested) || o.requested < 1)) return `line ${n}: "requested" must be a positive integer`;
  const samples = parseSamples(o.samples, o.logprobs);
  if (typeof samples === "string") return `line ${n}: ${samples}`;
  return { id: o.id, question: o.question, samples, ...(typeof o.requested === "number" ? { requested: o.requested } : {}) };
}

/** Runs `groundwatch entropy`; resolves to the exit code. */
export async function runEntropy(argv: readonly string[], io: CommandIo): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: [...argv],
      options: {
        input: { type: "string", short: "i" },
        output: { type: "string", short: "o" },
        explain: { type: "boolean" },
        threshold: { type: "string" },
        "max-calls": { type: "string" },
        "skip-invalid": { type: "boolean" },
        help: { type: "boolean", short: "h" },
        ...BACKEND_FLAGS,
      },
      strict: true,
    }).values;
  } catch (error) {
    io.stderr.write(`groundwatch entropy: ${(error as Error).message}\n\n${ENTROPY_HELP}`);
    return EXIT.usage;
  }
  if (args.help) {
    io.stdout.write(ENTROPY_HELP);
    return EXIT.ok;
  }
  if (!args.input) {
    io.stderr.write(`groundwatch entropy: --input is required\n\n${ENTROPY_HELP}`);
    return EXIT.usage;
  }
  const threshold = args.threshold === undefined ? 0.5 : Number(args.threshold);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    io.stderr.write(`groundwatch entropy: --threshold must be a number from 0 to 1 (got ${JSON.stringify(args.threshold)})\n`);
    return EXIT.usage;
  }
  const maxCalls = args["max-calls"] === undefined ? undefined : Number(args["max-calls"]);
  if (maxCalls !== undefined && (!Number.isInteger(maxCalls) || maxCalls < 1)) {
    io.stderr.write(`groundwatch entropy: --max-calls must be a positive integer (got ${JSON.stringify(args["max-calls"])})\n`);
    return EXIT.usage;
  }
  const inputPath = args.input === "-" ? "-" : resolve(io.cwd, args.input);
  if (inputPath !== "-") {
    try {
      statSync(inputPath);
    } catch (error) {
      io.stderr.write(`groundwatch entropy: cannot read --input ${args.input}: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
  }
  const flags = backendOptionsFromFlags(args);
  if (flags.error) {
    io.stderr.write(`groundwatch entropy: ${flags.error}\n`);
    return EXIT.usage;
  }
  let backend: EntailmentBackend;
  try {
    const file = args.config ? loadConfigFile(resolve(io.cwd, args.config)).scoring : undefined;
    const created = await createBackend(resolveScoreOptions(flags.options, { env: io.env, ...(file ? { file } : {}) }), { analyzer: createTextAnalyzer(), env: io.env });
    for (const w of created.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);
    backend = created.backend;
  } catch (error) {
    io.stderr.write(`groundwatch entropy: ${(error as Error).message}\n`);
    return isConfigError(error) ? EXIT.usage : EXIT.failure;
  }
  const jsonOut: Writable | undefined = args.output ? createWriteStream(resolve(io.cwd, args.output)) : args.explain ? undefined : io.stdout;
  const lines = createInterface({ input: inputPath === "-" ? io.stdin : createReadStream(inputPath), crlfDelay: Infinity });
  const cache = new Map<string, NliResult>();
  const counts = { rows: 0, unreliable: 0, abstained: 0, invalid: 0 };
  let exit: number = EXIT.ok;
  try {
    let n = 0;
    for await (const line of lines) {
      n++;
      if (line.trim() === "") continue;
      const row = parseRow(line, n);
      if (typeof row === "string") {
        counts.invalid++;
        io.stderr.write(`groundwatch entropy: ${row}\n`);
        if (!args["skip-invalid"]) {
          exit = EXIT.invalidInput;
          break;
        }
        continue;
      }
      const result = await semanticEntropy({
        question: row.question,
        samples: row.samples,
        backend,
        options: { cache, ...(row.requested !== undefined ? { requested: row.requested } : {}), ...(maxCalls !== undefined ? { maxEntailmentCalls: maxCalls } : {}) },
      });
      if (cache.size > 10_000) cache.clear();
      counts.rows++;
      if (!result.reliable) counts.unreliable++;
      if (result.abstained) counts.abstained++;
      if (jsonOut) await writeLine(jsonOut, JSON.stringify({ id: row.id, ...result }));
      if (args.explain) io.stdout.write(explainEntropy(row.id, result, threshold));
    }
  } catch (error) {
    io.stderr.write(`groundwatch entropy: ${(error as Error).message}\n`);
    exit = EXIT.failure;
  } finally {
    lines.close();
    if (args.output && jsonOut) await new Promise<void>((r) => jsonOut.end(r));
    await backend.close();
  }
  const usage = describeUsage(backend);
  if (usage) io.stderr.write(`groundwatch entropy: ${usage}\n`);
  io.stderr.write(`groundwatch entropy: ${counts.rows} measured (${counts.unreliable} unreliable, ${counts.abstained} abstained), ${counts.invalid} invalid\n`);
  return exit;
}
