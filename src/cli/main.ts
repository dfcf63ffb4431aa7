import { readFileSync } from "node:fs";
import { format } from "node:util";
import type { DiagLogger } from "@opentelemetry/api";
import { diag } from "@opentelemetry/api";
import { EXIT } from "./shared/exit-codes.ts";
import { otelLogLevel } from "./shared/log-level.ts";
import type { CommandIo } from "./shared/io.ts";
import { sanitizeForTerminal } from "./shared/io.ts";
import { didYouMean } from "./shared/suggest.ts";

const HELP = `groundwatch — groundedness monitoring for retrieval-augmented generation

Usage: groundwatch <command> [options]

Commands:
  score     check answers' claims against their retrieved context (JSONL in, JSONL or a table out)
  entropy   semantic entropy of resampled answers (--explain for an audit trail)
  nli       classify (premise, hypothesis) pairs with a backend: check a model and its labels
  doctor    preflight: backend, tier, labels, calibration, sampler diversity, collector and Prometheus
  model     pull, list and inspect NLI models for the onnx backend
  serve     the collector: OTLP traces and JSON observations in, groundedness telemetry out
  flagged   the answers behind the page: a collector's recent flagged answers, with their trace ids
  review    label spooled answers (terminal or --web); export the labels as eval rows; delete a trace
  eval      a CI release gate on a fixed eval set: report.json/.md/.html, junit.xml, exit 1 on failure
  evidence  an HTML (and PDF) report of trends, alerts and calibration from Prometheus, for risk owners
  calibrate choose a threshold from labelled answers: AUROC with its interval, label audit, calibration.json
  demo      the collector on localhost, fed bundled example traffic, with a live per-route view
  init      write a commented groundwatch.yaml and a small example eval set to start from
  version   print the version (also --version, -v)

Run "groundwatch help <command>" (or "groundwatch <command> --help") for a command's options.
Exit codes: 0 ok, 1 failure while running, 2 bad flags or configuration, 3 malformed input.
`;

/**
 * Sends OpenTelemetry's diagnostic messages (groundwatch's own warnings among them: export failures,
 * scorer errors) to the command's stderr, at OTEL_LOG_LEVEL (none, error, warn, info, debug, verbose,
 * all; default warn); without it they would be dropped. Returns a function that removes it.
 */
export function installDiagLogger(io: CommandIo): () => void {
  const level = otelLogLevel(io.env);
  const write =
    (prefix: string) =>
    (message: string, ...args: unknown[]): void => {
      // Messages can carry untrusted text (routes, error bodies): no escape sequences reach the terminal.
      io.stderr.write(`${prefix}${sanitizeForTerminal(format(message, ...args))}\n`);
    };
  const logger: DiagLogger = { error: write("error: "), warn: write("warning: "), info: write(""), debug: write(""), verbose: write("") };
  diag.setLogger(logger, { logLevel: level, suppressOverrideMessage: true });
  return () => diag.disable();
}

type Command = (argv: readonly string[], io: CommandIo) => Promise<number>;

/**
 * Each command's module, loaded only when that command runs: `--version` and `--help` load
 * none, and `score` never loads the collector, OpenTelemetry exporters or the report code.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  score: async () => (await import("./score.ts")).runScore,
  nli: async () => (await import("./nli.ts")).runNli,
  entropy: async () => (await import("./entropy.ts")).runEntropy,
  doctor: async () => (await import("./doctor/index.ts")).runDoctor,
  model: async () => (await import("./model.ts")).runModel,
  serve: async () => (await import("./serve.ts")).runServe,
  flagged: async () => (await import("./flagged.ts")).runFlagged,
  review: async () => (await import("./review/index.ts")).runReview,
  demo: async () => (await import("./demo.ts")).runDemo,
  calibrate: async () => (await import("./calibrate/index.ts")).runCalibrate,
  eval: async () => (await import("./eval/index.ts")).runEval,
  evidence: async () => (await import("./evidence/index.ts")).runEvidence,
  init: async () => (await import("./init.ts")).runInit,
};

/** Dispatches a command line; resolves to the process exit code. */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  const load = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (load) {
    const removeDiagLogger = installDiagLogger(io);
    try {
      return await (await load())(rest, io);
    } finally {
      removeDiagLogger();
    }
  }
  switch (command) {
    case "version":
    case "--version":
    case "-v": {
      const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
      io.stdout.write(`${pkg.version}\n`);
      return EXIT.ok;
    }
    case "help": {
      // `groundwatch help score` is `groundwatch score --help`.
      const topic = rest[0];
      if (topic !== undefined && topic !== "help") return main([topic, "--help"], io);
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    case undefined:
    case "--help":
    case "-h":
      io.stdout.write(HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    default: {
      const known = [...Object.keys(COMMANDS), "init", "version", "help"];
      const suggestion = command.startsWith("-") ? undefined : didYouMean(command, known);
      io.stderr.write(`groundwatch: unknown command ${JSON.stringify(sanitizeForTerminal(command))}${suggestion ? ` (did you mean "${suggestion}"?)` : ""}\nRun "groundwatch --help" for the list of commands.\n`);
      return EXIT.usage;
    }
  }
}
