import { readFileSync } from "node:fs";
import { EXIT } from "./exit-codes.ts";
import type { CommandIo } from "./io.ts";
import { runCalibrate } from "./calibrate.ts";
import { runDemo } from "./demo.ts";
import { runDoctor } from "./doctor.ts";
import { runEntropy } from "./entropy.ts";
import { runEval } from "./eval.ts";
import { runEvidence } from "./evidence.ts";
import { runModel } from "./model.ts";
import { runNli } from "./nli.ts";
import { runScore } from "./score.ts";
import { runServe } from "./serve.ts";

const HELP = `groundwatch — groundedness monitoring for retrieval-augmented generation

Usage: groundwatch <command> [options]

Commands:
  score     check answers' claims against their retrieved context (JSONL in, JSONL or a table out)
  entropy   semantic entropy of resampled answers (--explain for an audit trail)
  nli       classify (premise, hypothesis) pairs with a backend: check a model and its labels
  doctor    preflight: backend, tier, labels, calibration, sampler diversity, collector and Prometheus
  model     pull, list and inspect NLI models for the onnx backend
  serve     the collector: OTLP traces and JSON observations in, groundedness telemetry out
  eval      a CI release gate on a fixed eval set: report.json/.md/.html, junit.xml, exit 1 on failure
  evidence  an HTML (and PDF) report of trends, alerts and calibration from Prometheus, for risk owners
  calibrate choose a threshold from labelled answers: AUROC with its interval, label audit, calibration.json
  demo      the collector on localhost, fed bundled example traffic, with a live per-route view
  version   print the version

Run "groundwatch <command> --help" for a command's options.
Exit codes: 0 ok, 1 failure while running, 2 bad flags or configuration, 3 malformed input.
`;

/** Dispatches a command line; resolves to the process exit code. */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "score":
      return runScore(rest, io);
    case "nli":
      return runNli(rest, io);
    case "entropy":
      return runEntropy(rest, io);
    case "doctor":
      return runDoctor(rest, io);
    case "model":
      return runModel(rest, io);
    case "serve":
      return runServe(rest, io);
    case "demo":
      return runDemo(rest, io);
    case "calibrate":
      return runCalibrate(rest, io);
    case "eval":
      return runEval(rest, io);
    case "evidence":
      return runEvidence(rest, io);
    case "version":
    case "--version": {
      const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
      io.stdout.write(`${pkg.version}\n`);
      return EXIT.ok;
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    default:
      io.stderr.write(`groundwatch: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
      return EXIT.usage;
  }
}
