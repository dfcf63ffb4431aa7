import type { Writable } from "node:stream";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { semanticEntropy } from "../core/entropy/semantic-entropy.ts";
import type { EntailmentBackend, NliResult } from "../core/backend.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./backend-flags.ts";
import { inputSource, numberFlag, openBackend, parseFlags, runCommand } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import { explainEntropy } from "./explain.ts";
import { closeOutputStream, inputLines, openOutputStream, outputFile } from "./files.ts";
import type { CommandIo } from "./io.ts";
import { isBrokenPipe, writeLine } from "./io.ts";
import { parseSamples } from "./score-rows.ts";
import { describeUsage } from "./usage.ts";

/** Entailment calls per row when --max-calls is not given: enough for about 100 samples, and never unbounded. */
const DEFAULT_ENTROPY_ROW_CALLS = 10_000;

export const ENTROPY_HELP: string = `groundwatch entropy — semantic entropy of resampled answers

Usage:
  groundwatch entropy rows.jsonl [--output out.jsonl] [--explain] [--threshold T]
  cat rows.jsonl | groundwatch entropy --explain

Input: one JSON object a line: {"id", "question", "samples": [string | {"text", "logprobs"?}],
       "logprobs"?: [per sample: token log-probabilities or one mean], "requested"?: N}.
Output: per row the clusters (members, mass), each sample's cluster, every entailment judgement,
       entropy (nats), normalised entropy, naive and lexical entropy, agreement, estimator,
       Chao1 and Miller–Madow diagnostics, reliable / abstained with reasons, and the backend.

Options:
  FILE, --input, -i FILE  rows ("-" or nothing, when piped: standard input)
  --output, -o FILE     JSONL results (default: standard output, unless --explain)
  --explain             print a readable audit trail per row to standard output
  --threshold T         normalised entropy at which --explain calls a row uncertain (default 0.5)
  --max-calls N         entailment budget per row, checked before any call (default 10000: about
                        100 samples; a row over it is reported unreliable with the reason)
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
export function runEntropy(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("entropy", ENTROPY_HELP, io, async () => {
    const { values: args, positionals } = parseFlags(argv, {
      input: { type: "string", short: "i" },
      output: { type: "string", short: "o" },
      explain: { type: "boolean" },
      threshold: { type: "string" },
      "max-calls": { type: "string" },
      "skip-invalid": { type: "boolean" },
      ...BACKEND_FLAGS,
    }, true);
    const source = inputSource(args.input, positionals, io);
    const threshold = numberFlag("threshold", args.threshold, (n) => n >= 0 && n <= 1, "a number from 0 to 1") ?? 0.5;
    const maxCalls = numberFlag("max-calls", args["max-calls"], (n) => Number.isInteger(n) && n >= 1, "a positive integer") ?? DEFAULT_ENTROPY_ROW_CALLS;
    // Checked before the backend loads; opened (and truncated) only once it has.
    const output = args.output ? outputFile("--output", args.output, io) : undefined;
    const backend = await openBackend(args, io);
    return measureRows({ output, explain: args.explain, "skip-invalid": args["skip-invalid"] }, source, threshold, maxCalls, backend, io);
  });
}

async function measureRows(
  args: { output: string | undefined; explain?: boolean | undefined; "skip-invalid"?: boolean | undefined },
  source: string,
  threshold: number,
  maxCalls: number,
  backend: EntailmentBackend,
  io: CommandIo,
): Promise<number> {
  let file: ReturnType<typeof openOutputStream> | undefined;
  try {
    file = args.output ? openOutputStream("--output", args.output) : undefined;
  } catch (error) {
    await backend.close();
    throw error;
  }
  const jsonOut: Writable | undefined = file ?? (args.explain ? undefined : io.stdout);
  const cache = new Map<string, NliResult>();
  const counts = { rows: 0, unreliable: 0, abstained: 0, invalid: 0 };
  let exit: number = EXIT.ok;
  try {
    let n = 0;
    for await (const line of inputLines(source, io)) {
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
        options: { cache, ...(row.requested !== undefined ? { requested: row.requested } : {}), maxEntailmentCalls: maxCalls },
      });
      if (cache.size > 10_000) cache.clear();
      counts.rows++;
      if (!result.reliable) counts.unreliable++;
      if (result.abstained) counts.abstained++;
      if (jsonOut) await writeLine(jsonOut, JSON.stringify({ id: row.id, ...result }));
      if (args.explain) io.stdout.write(explainEntropy(row.id, result, threshold));
    }
  } catch (error) {
    // `| head` closed the output: stop quietly.
    if (!isBrokenPipe(error)) {
      io.stderr.write(`groundwatch entropy: ${(error as Error).message}\n`);
      exit = EXIT.failure;
    }
  } finally {
    if (file) {
      await closeOutputStream(file).catch((error: unknown) => {
        io.stderr.write(`groundwatch entropy: cannot write --output ${args.output ?? ""}: ${(error as Error).message}\n`);
        exit = EXIT.failure;
      });
    }
    await backend.close();
  }
  const usage = describeUsage(backend);
  if (usage) io.stderr.write(`groundwatch entropy: ${usage}\n`);
  io.stderr.write(`groundwatch entropy: ${counts.rows} measured (${counts.unreliable} unreliable, ${counts.abstained} abstained), ${counts.invalid} invalid\n`);
  return exit;
}
