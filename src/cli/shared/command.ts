import type { Stats } from "node:fs";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { parseArgs } from "node:util";
import type { Calibration, ReadCalibrationOptions } from "../../config/calibration-file.ts";
import { BUNDLED_EXAMPLES_DIR, readCalibrationFile } from "../../config/calibration-file.ts";
import { isConfigError } from "../../config/errors.ts";
import { loadConfigFile } from "../../config/file.ts";
import { parseNumber } from "../../config/parse.ts";
import type { HubSettings } from "../../config/hub.ts";
import { resolveBackendSettings, resolveHubSettings } from "../../config/hub.ts";
import type { ResolvedScoreOptions, ScoreOptions } from "../../config/score-options.ts";
import { resolveScoreOptions } from "../../config/score-options.ts";
import { createTextAnalyzer } from "../../core/text.ts";
import type { EntailmentBackend } from "../../core/backend.ts";
import { createBackend } from "../../nli/registry.ts";
import type { Scorer } from "../../scoring/scorer.ts";
import { createResolvedScorer } from "../../scoring/scorer.ts";
import { backendOptionsFromFlags } from "./backend-flags.ts";
import { exitCodeOf } from "./exit-codes.ts";
import { didYouMean } from "./suggest.ts";
import type { CommandIo } from "./io.ts";
import { GroundwatchError, isGroundwatchError } from "../../errors/groundwatch-error.ts";

/** Bad flags or configuration: the command prints the message and exits 2. */
export class UsageError extends GroundwatchError {
  override readonly name = "UsageError";
  override readonly code = "usage";
  constructor(
    message: string,
    readonly showHelp = false,
  ) {
    super(message);
  }
}

/** --help was given: print the help and exit 0. */
class HelpRequested extends GroundwatchError {
  override readonly code = "help_requested";
}


/**
 * Runs a command body: --help prints the help, any other error prints its message (and, for a
 * UsageError that asks for it, where to find the help); the exit code is the error code's
 * (exit-codes.ts `EXIT_BY_ERROR_CODE`: bad flags and configuration 2, --help 0), 1 for anything else.
 */
export async function runCommand(name: string, help: string, io: CommandIo, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (isGroundwatchError(error, "help_requested")) {
      io.stdout.write(help);
      return exitCodeOf(error);
    }
    // One line of reason and where to look, not the whole help (kubectl and gh do the same).
    const hint = error instanceof UsageError && error.showHelp ? `Run "groundwatch ${name} --help" for usage.\n` : "";
    io.stderr.write(`groundwatch ${name}: ${(error as Error).message}\n${hint}`);
    return exitCodeOf(error);
  }
}

/** What parseFlags returns for the flag spec `O` (spelled out so declarations can name it). */
export type ParsedFlags<O extends NonNullable<ParseArgsConfig["options"]>> = ReturnType<typeof parseArgs<{ args: string[]; options: O & { help: { type: "boolean"; short: "h" } }; strict: true; allowPositionals: boolean }>>;

/** A parse error from node:util's parseArgs as one short line, with a suggestion for a mistyped flag. */
function flagError(error: Error & { code?: string }, argv: readonly string[], options: NonNullable<ParseArgsConfig["options"]>): string {
  const flags = Object.keys(options).map((f) => `--${f}`);
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const given = /'(-[^']*)'/.exec(error.message)?.[1] ?? argv.find((a) => a.startsWith("-") && !flags.includes(a.split("=")[0] ?? a)) ?? "";
    const name = given.split("=")[0] ?? given;
    const suggestion = name.startsWith("--") ? didYouMean(name, flags) : undefined;
    return `unknown flag ${name}${suggestion ? ` (did you mean ${suggestion}?)` : ""}`;
  }
  if (error.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const given = /'([^']*)'/.exec(error.message)?.[1];
    return `unexpected argument ${given !== undefined ? JSON.stringify(given) : ""}: this command takes flags only`.replace("argument :", "argument:");
  }
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = /'(--?[\w-]+)/.exec(error.message)?.[1];
    return flag ? `${flag} needs a value` : error.message;
  }
  return error.message;
}

/** Parses flags strictly; a parse error is a one-line UsageError (with a hint to --help), and --help ends the command. */
export function parseFlags<O extends NonNullable<ParseArgsConfig["options"]>>(argv: readonly string[], options: O, allowPositionals = false): ParsedFlags<O> {
  let parsed: ParsedFlags<O>;
  try {
    parsed = parseArgs({ args: [...argv], options: { ...options, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(flagError(error as Error, argv, { ...options, help: { type: "boolean" } }), true);
  }
  if ((parsed.values as { help?: boolean }).help) throw new HelpRequested();
  return parsed;
}

/**
 * Where a command reads its rows: the --input flag (or `flag`), else the first positional
 * argument, else standard input when it is piped (not a terminal). "-" is standard input.
 * A file is checked to exist. Nothing given at an interactive terminal is a UsageError.
 */
export function inputSource(given: string | undefined, positionals: readonly string[], io: CommandIo, flag = "input"): string {
  if (given !== undefined && positionals.length > 0) throw new UsageError(`give the input once: --${flag} ${given} or ${positionals[0] ?? ""}, not both`, true);
  if (positionals.length > 1) throw new UsageError(`one input file at a time (got ${positionals.length}: ${positionals.slice(0, 3).join(", ")})`, true);
  const input = given ?? positionals[0];
  if (input === undefined) {
    // Piped or redirected: read it. At an interactive terminal it would sit waiting for typing.
    if ((io.stdin as { isTTY?: boolean }).isTTY !== true) return "-";
    throw new UsageError(`no input: give a file (groundwatch … FILE or --${flag} FILE), or pipe rows to standard input`, true);
  }
  return inputPath(input, io, flag);
}

/**
 * Why an input path cannot be read as rows, or undefined when it can: a regular file, or a pipe (a
 * named pipe made by mkfifo, or the /dev/fd/N a shell's process substitution `<(…)` names), read
 * line by line as standard input is. A directory is not text; a device (a terminal, /dev/zero, a
 * disk) or a socket has no end or no lines to speak of, so it is refused rather than read without
 * bound.
 */
function unreadableAsRows(stat: Stats): string | undefined {
  if (stat.isFile() || stat.isFIFO()) return undefined;
  if (stat.isDirectory()) return "it is a directory";
  const kind = stat.isCharacterDevice() ? "a character device (a terminal, /dev/zero…)" : stat.isBlockDevice() ? "a block device" : stat.isSocket() ? "a socket" : "neither a file nor a pipe";
  return `it is ${kind}: give a file or a pipe, or - for standard input`;
}

/** The --input path ("-" for standard input), checked to exist and to be a file or a pipe. */
export function inputPath(input: string | undefined, io: CommandIo, flag = "input"): string {
  if (!input) throw new UsageError(`--${flag} is required`, true);
  if (input === "-") return "-";
  const path = resolve(io.cwd, input);
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot read ${input}: ${code === "ENOENT" ? `no such file${bundledExampleHint(input)}` : code === "EACCES" ? "permission denied" : (error as Error).message}`);
  }
  const unreadable = unreadableAsRows(stat);
  if (unreadable) throw new UsageError(`cannot read ${input}: ${unreadable}`);
  return path;
}

/**
 * For a missing file under an examples/ folder (the README's commands run from a checkout of the
 * repository): where groundwatch's bundled examples are, and that `groundwatch init` writes a
 * starter set for the user's own data. Empty for any other path.
 */
export function bundledExampleHint(input: string): string {
  if (!/(^|[\\/])examples[\\/]/.test(input)) return "";
  return `. groundwatch's bundled examples are in ${BUNDLED_EXAMPLES_DIR} (in a project that installed groundwatch: node_modules/groundwatch/examples/); for your own data, \`groundwatch init\` writes a starter set (groundwatch-eval.jsonl) to label and extend`;
}

/** A number flag (read by config/parse.ts), or undefined when absent; anything else, an empty value included, is a UsageError naming the flag. */
export function numberFlag(flag: string, value: string | undefined, check: (n: number) => boolean, expected: string): number | undefined {
  if (value === undefined) return undefined;
  let n: number | undefined;
  try {
    n = parseNumber(`--${flag}`, value, { min: -Number.MAX_VALUE, max: Number.MAX_VALUE });
  } catch {
    n = undefined;
  }
  if (n === undefined || !check(n)) throw new UsageError(`--${flag} must be ${expected} (got ${JSON.stringify(value)})`);
  return n;
}

/**
 * Reads the calibration.json a flag names through the one reader (config/calibration-file.ts); a bad
 * file is a UsageError naming the flag and the path (never its content), so the command exits 2.
 */
export function readCalibrationFlag(flag: string, value: string, io: CommandIo, options: ReadCalibrationOptions = {}): Calibration {
  try {
    return readCalibrationFile(resolve(io.cwd, value), flag, options);
  } catch (error) {
    if (isConfigError(error)) throw new UsageError(`cannot read ${flag} ${value}: ${error.expected}`);
    throw error;
  }
}

/** The scoring options from the backend flags, the environment and --config. */
export function scoreOptionsFromFlags(values: Parameters<typeof backendOptionsFromFlags>[0] & { config?: string | boolean | undefined }, io: CommandIo, extra: ScoreOptions = {}): { options: ScoreOptions; file: ScoreOptions | undefined } {
  const flags = backendOptionsFromFlags(values);
  if (flags.error) throw new UsageError(flags.error);
  const file = typeof values.config === "string" ? loadConfigFile(resolve(io.cwd, values.config)).scoring : undefined;
  return { options: { ...flags.options, ...extra }, file };
}

/** What a command's scoring needs, resolved once at the CLI edge: nli receives these values, never the environment. */
export interface CliScoring {
  /** Backend flags > environment > --config's scoring section > default. */
  readonly scoring: ResolvedScoreOptions;
  /** The Hugging Face hub: cache folder, endpoint, token, offline. */
  readonly hub: HubSettings;
  /** GROUNDWATCH_JUDGE_API_KEY; undefined when unset. */
  readonly judgeApiKey: string | undefined;
}

/** Resolves a command's scoring from its flags, the environment and --config, once. */
export function resolveCliScoring(values: Parameters<typeof scoreOptionsFromFlags>[0], io: CommandIo, extra: ScoreOptions = {}): CliScoring {
  const { options, file } = scoreOptionsFromFlags(values, io, extra);
  const scoring = resolveScoreOptions(options, { env: io.env, ...(file ? { file } : {}) });
  return { scoring, hub: resolveHubSettings(io.env), judgeApiKey: resolveBackendSettings(io.env).judgeApiKey };
}

/**
 * The scorer for already resolved scoring options (`resolveCliScoring`, or eval's resolution with
 * its calibration's threshold): scoring receives values, never the environment.
 */
export function scorerFor(scoring: ResolvedScoreOptions, io: CommandIo): Promise<Scorer> {
  return createResolvedScorer(scoring, { settings: resolveBackendSettings(io.env) });
}

/** Creates the backend the flags ask for, printing its warnings. */
export async function openBackend(values: Parameters<typeof scoreOptionsFromFlags>[0], io: CommandIo): Promise<EntailmentBackend> {
  const { scoring, hub, judgeApiKey } = resolveCliScoring(values, io);
  // Only the entailment port is used here: a span detector refining it would be loaded for nothing (backend spans keeps its own).
  const created = await createBackend(scoring.backend === "spans" ? scoring : { ...scoring, spanModel: undefined }, { analyzer: createTextAnalyzer(), settings: { hubCacheDir: hub.cacheDir, judgeApiKey } });
  for (const w of created.warnings) io.stderr.write(`groundwatch: WARNING: ${w}\n`);
  return created.backend;
}
