import type { Stats } from "node:fs";
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { EXIT } from "./shared/exit-codes.ts";
import type { CommandIo } from "./shared/io.ts";
import { UsageError, parseFlags, runCommand } from "./shared/command.ts";
import { COLLECTOR_ENV, CONFIG_FILE_ENV, JUDGE_API_KEY_ENV_NAME } from "../config/env.ts";

export const INIT_HELP: string = `groundwatch init — start a project: a commented config file and a small eval set

Usage:
  groundwatch init [--dir DIR] [--force]

Writes, in DIR (default: the current directory):
  groundwatch.yaml        every section (scoring, sampling, monitor, collector) with its common
                          settings, each commented; used by --config FILE (or GROUNDWATCH_CONFIG)
  groundwatch-eval.jsonl  six example rows (grounded and not) for "groundwatch eval"
Existing files are left alone unless --force is given. A symbolic link in their place is never
written through: init refuses it, and --force replaces the link itself (its target is untouched).

Options:
  --dir DIR     where to write (created if missing)
  --force       overwrite existing files (a link is replaced, never its target)
  --help, -h    show this help

Exit codes: 0 written, 1 cannot write, 2 bad flags, or a file or link already there (without --force).
`;

/** The commented starting configuration. Every active value here is the default, so it changes nothing until edited. */
export const INIT_CONFIG = `# groundwatch configuration. Used by: groundwatch serve/score/eval/... --config groundwatch.yaml,
# or ${CONFIG_FILE_ENV}=groundwatch.yaml for the SDK (createMonitor) and the CLI.
# Order of precedence: command-line flag or code option > environment variable > this file > default.
# Unknown keys are errors, so a typo never passes silently.

scoring:
  # Entailment backend: auto (onnx when a model is configured or pulled, else offline),
  # offline (embedded, TRIAGE-GRADE: trends only, not paging or release decisions),
  # onnx (a local NLI model: "groundwatch model pull"), or judge (an OpenAI-compatible endpoint).
  backend: auto
  # model: Xenova/nli-deberta-v3-xsmall   # onnx: a directory or a pulled Hugging Face repo id
  # threshold: 0.5                        # answer threshold; default: the backend's fitted one,
  #                                       # or the threshold of --calibration calibration.json
  # judgeUrl: https://api.openai.com/v1   # judge: API key in ${JUDGE_API_KEY_ENV_NAME}, never here
  # judgeModel: gpt-4o-mini
  # maxAnswerChars: 20000                 # input limits: what is cut is reported as "limits"
  # maxContextChars: 200000
  # maxSamples: 20

sampling:
  # Share of answers scored, per route template (most specific match wins; "*" patterns allowed).
  default: 0.05
  # routes:
  #   /api/answer: 1.0
  #   /api/internal/*: 0

monitor:
  # The SDK's scoring queue, off the request path. Full queue: dropped and counted, never blocking.
  queueSize: 1000
  # workers: 1                # scoring worker threads
  # timeoutMs: 30000          # per observation; a runaway one is stopped and its worker replaced
  # captureContent: false     # record unsupported claims and evidence on spans (passed through redact)
  # calibrationFile: calibration.json   # from "groundwatch calibrate": threshold and drift reference

collector:
  # groundwatch serve. Any host other than 127.0.0.1 requires ${COLLECTOR_ENV.token} (16+ characters).
  host: 127.0.0.1
  port: 4319
  # traceTimeoutMs: 5000      # how long a trace waits for its remaining spans
  # promptContext: "off"      # off | system | a regular expression with a (?<context>...) group
  # maxTraceAgeMs: 30000      # a trace is settled this long after its first record, however often it is refreshed
  # requestTimeoutMs: 60000   # a request's headers and body must arrive within it (slower: 408)
  # maxConnections: 1024      # connections open at once; one over it is closed
  # maxConnectionsPerAddress: 256   # connections from one address (an IPv6 /64) at once
  # healthPort: 4320          # a listener for /healthz and /readyz only: point the orchestrator's probes at it
`;

/** Six rows in groundwatch's own eval format: three answers the context supports, three it does not. */
export const INIT_EVAL_SET: readonly object[] = [
  { id: "returns-window", question: "How long do I have to return an item?", context: ["Returns: new, unopened items may be returned within 30 days of delivery for a full refund."], answer: "You can return new, unopened items within 30 days of delivery for a full refund.", label: 1 },
  { id: "returns-window-wrong", question: "How long do I have to return an item?", context: ["Returns: new, unopened items may be returned within 30 days of delivery for a full refund."], answer: "You can return items within 90 days of delivery.", label: 0 },
  { id: "shipping-cost", question: "How much is express shipping?", context: ["Shipping: standard shipping is free on orders over $50. Express shipping costs $15."], answer: "Express shipping costs $15.", label: 1 },
  { id: "shipping-invented", question: "Do you ship abroad?", context: ["Shipping: standard shipping is free on orders over $50. Express shipping costs $15."], answer: "We ship free of charge to every country in Europe.", label: 0 },
  { id: "warranty", question: "How long is the warranty?", context: ["Warranty: every appliance carries a two-year manufacturer warranty covering parts and labour."], answer: "Appliances have a two-year warranty that covers parts and labour.", label: 1 },
  { id: "warranty-contradicted", question: "How long is the warranty?", context: ["Warranty: every appliance carries a two-year manufacturer warranty covering parts and labour."], answer: "The warranty lasts five years and covers accidental damage.", label: 0 },
];

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes `text` as a new file at `path`: whatever is there (with --force) is unlinked first, a
 * link included, so a link is replaced and never written through; the file is created with
 * O_EXCL | O_NOFOLLOW, so a link planted in between fails the write instead of being followed.
 */
function writeNewFile(path: string, text: string, replace: boolean): void {
  const there = replace ? lstatOrUndefined(path) : undefined;
  if (there && !there.isDirectory()) unlinkSync(path);
  const fd = openSync(path, CREATE, 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Runs `groundwatch init`; resolves to the exit code. */
export function runInit(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("init", INIT_HELP, io, async () => {
    const { values: args } = parseFlags(argv, { dir: { type: "string" }, force: { type: "boolean" } });
    const dir = resolve(io.cwd, args.dir ?? ".");
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`--dir ${args.dir ?? "."} is a file, not a directory`);
    const files: Array<[string, string]> = [
      ["groundwatch.yaml", INIT_CONFIG],
      ["groundwatch-eval.jsonl", `${INIT_EVAL_SET.map((r) => JSON.stringify(r)).join("\n")}\n`],
    ];
    const shown = (p: string): string => relative(io.cwd, p) || p;
    // A link counts as there even when it dangles: writing would create its target.
    const present = files.map(([name]) => join(dir, name)).filter((p) => lstatOrUndefined(p) !== undefined);
    const links = present.filter((p) => lstatOrUndefined(p)?.isSymbolicLink());
    if (links.length > 0 && !args.force) throw new UsageError(`${links.map(shown).join(" and ")} ${links.length === 1 ? "is a symbolic link" : "are symbolic links"}: nothing written, and never through a link (--force replaces the link itself, not its target)`);
    if (present.length > 0 && !args.force) throw new UsageError(`${present.map(shown).join(" and ")} already exist${present.length === 1 ? "s" : ""}: nothing written (--force overwrites)`);
    try {
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of files) writeNewFile(join(dir, name), text, args.force === true);
    } catch (error) {
      io.stderr.write(`groundwatch init: cannot write in ${dir}: ${(error as Error).message}\n`);
      return EXIT.failure;
    }
    // Shown relative to where the user is, unless that would climb out of it.
    const rel = relative(io.cwd, dir);
    const where = rel.startsWith("..") ? dir : rel;
    const at = (name: string): string => (where ? join(where, name) : name);
    const next: Array<[string, string]> = [
      [`groundwatch eval --set ${at("groundwatch-eval.jsonl")} --config ${at("groundwatch.yaml")}`, "the release gate: it fails (exit 1) on this set, where 3 of the 6 answers are made up"],
      [`groundwatch score ${at("groundwatch-eval.jsonl")} --format table`, "each answer's claims and their evidence"],
      [`groundwatch serve --config ${at("groundwatch.yaml")}`, "the collector on 127.0.0.1:4319"],
    ];
    const width = Math.max(...next.map(([command]) => command.length));
    io.stdout.write([`wrote ${at("groundwatch.yaml")} and ${at("groundwatch-eval.jsonl")}`, "", "Next:", ...next.map(([command, what]) => `  ${command.padEnd(width)}   # ${what}`), ""].join("\n"));
    return EXIT.ok;
  });
}
