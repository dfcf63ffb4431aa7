import { resolve } from "node:path";
import { resolveScoreOptions } from "../config/score-options.ts";
import { resolveCollectorOptions } from "../collector/options.ts";
import { startCollector } from "../collector/server.ts";
import { resolveMonitorOptions } from "../sdk/options.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./backend-flags.ts";
import { numberFlag, parseFlags, runCommand, scoreOptionsFromFlags } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import type { CommandIo } from "./io.ts";

export const SERVE_HELP: string = `groundwatch serve — the collector: score RAG traces and observations from any service

Usage:
  groundwatch serve [--config FILE] [--host H] [--port P] [--sample-rate R] [--prompt-context off|system|REGEX] [--print-config]

Endpoints:
  POST /v1/traces         OTLP/HTTP traces (protobuf or JSON; gzip, deflate or br): retriever and LLM
                          spans (and their events) are joined per trace and the answer is scored
                          against the retrieved documents
  POST /v1/logs           OTLP/HTTP logs (protobuf or JSON; gzip, deflate or br): OTel GenAI content
                          events (gen_ai.*.message, gen_ai.choice, gen_ai.client.inference.operation.details)
                          joined with the spans of their trace
  POST /v1/observations   JSON observations, one or an array (schema: docs/observation.schema.json)
  GET  /metrics           Prometheus text format
  GET  /healthz, /readyz  liveness; readiness (503 with the reason while the scorer cannot score)

Options:
  --config FILE         JSON config (sections collector, sampling, monitor, scoring); env GROUNDWATCH_CONFIG
  --host H              bind address (default 127.0.0.1; anything else needs GROUNDWATCH_TOKEN, at
                        least 16 characters, sent as "Authorization: Bearer <token>")
  --port P              port (default 4319)
  --sample-rate R       sampling rate for routes without a rule (default 0.05)
  --prompt-context M    where the context is when a trace has no retrieved documents: off (default),
                        system (the LLM's system messages), or a regular expression with a named
                        group "context" applied to each input message; env GROUNDWATCH_PROMPT_CONTEXT
  --calibration FILE    calibration.json from \`groundwatch calibrate\`: its threshold and drift reference
  --print-config        print the resolved configuration (secrets masked) and exit
  --help, -h            show this help

${BACKEND_FLAGS_HELP}
Limits (config file, section collector): bodyLimit (2mb; 413 over it, at once when Content-Length
says so); maxBatch (500 observations a request); maxDocuments (200) and maxAnswerChars (50000), for
observations (400) and for interactions joined from traces (not scored, counted as
too_many_documents / answer_too_large); maxTraces (10000) and maxTraceBytes (4 MiB of text, over it
trace_too_large) and maxBufferBytes (64 MiB of text for all traces being joined: the oldest are
settled early as buffer_full); traceTimeoutMs (5000); drainMs (10000). Requests that would not fit
in the scoring queue (monitor.queueSize, monitor.queueBytes) or the trace buffer get 429 with
Retry-After before anything is kept.

It starts once the scoring backend is loaded; when the port is in use or the backend cannot load, it
says why and exits 1. Exports over OTLP when the standard OTEL_EXPORTER_OTLP_* variables are set; a
failed export is logged (at most once per 30 s per signal), and each export is given at most a third
of drainMs (and no more than OTEL_EXPORTER_OTLP_TIMEOUT). OTEL_LOG_LEVEL sets what diagnostics reach
stderr (default warn). SIGTERM or Ctrl-C stops accepting, drains the queue and flushes the exports
within collector.drainMs, and exits.
Exit codes: 0 stopped cleanly, 1 failure (port in use, scoring backend not loaded), 2 bad flags or configuration.
`;

/** Runs `groundwatch serve` until SIGTERM/SIGINT; resolves to the exit code. */
export function runServe(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("serve", SERVE_HELP, io, async () => {
    const { values: args } = parseFlags(argv, { host: { type: "string" }, port: { type: "string" }, "sample-rate": { type: "string" }, "prompt-context": { type: "string" }, calibration: { type: "string" }, "print-config": { type: "boolean" }, ...BACKEND_FLAGS });
    const port = numberFlag("port", args.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number");
    const rate = numberFlag("sample-rate", args["sample-rate"], (n) => n >= 0 && n <= 1, "a rate from 0 to 1");
    const configFile = args.config ? resolve(io.cwd, args.config) : undefined;
    const { options: scoring } = scoreOptionsFromFlags({ ...args, config: undefined }, io);
    const collectorOptions = { env: io.env, ...(configFile ? { configFile } : {}), ...(args.host ? { host: args.host } : {}), ...(port !== undefined ? { port } : {}), ...(args["prompt-context"] !== undefined ? { promptContext: args["prompt-context"] } : {}) };
    const monitorOptions = { ...(rate !== undefined ? { sampling: { default: rate } } : {}), ...(args.calibration ? { calibrationFile: resolve(io.cwd, args.calibration) } : {}), scoring };
    const collector = resolveCollectorOptions(collectorOptions);
    const monitor = resolveMonitorOptions({ env: io.env, ...(configFile ? { configFile } : {}), ...monitorOptions });
    if (args["print-config"]) {
      const printable = {
        collector: { ...collector, token: collector.token ? "***" : undefined, file: undefined, promptContext: collector.promptContext.mode === "regex" ? collector.promptContext.pattern.source : collector.promptContext.mode },
        sampling: monitor.sampling,
        monitor: { ...monitor, sampling: undefined, scoring: undefined, calibration: monitor.calibration ? { threshold: monitor.calibration.threshold, backend: monitor.calibration.backend, createdAt: monitor.calibration.createdAt, referenceScores: monitor.calibration.referenceScores.length } : undefined },
        scoring: resolveScoreOptions(monitor.scoring, { env: io.env }),
        secrets: { GROUNDWATCH_TOKEN: io.env.GROUNDWATCH_TOKEN ? "***" : "(not set)", GROUNDWATCH_JUDGE_API_KEY: io.env.GROUNDWATCH_JUDGE_API_KEY ? "***" : "(not set)" },
      };
      io.stdout.write(`${JSON.stringify(printable, null, 2)}\n`);
      return EXIT.ok;
    }
    // Resolves once listening with the scorer loaded; a busy port or a scorer that cannot load rejects (exit 1).
    const running = await startCollector({ ...collectorOptions, monitor: monitorOptions });
    io.stderr.write(`groundwatch serve: listening on ${running.url} (metrics at ${running.url}/metrics)\n`);
    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        io.stderr.write(`groundwatch serve: draining (at most ${running.options.drainMs} ms)…\n`);
        running.close().then(done, done);
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });
    const s = running.monitor.stats();
    io.stderr.write(`groundwatch serve: stopped; ${s.seen} seen, ${s.scored} scored, dropped ${JSON.stringify(s.dropped)}, failed ${JSON.stringify(s.failed)}, incomplete traces ${JSON.stringify(running.joinStats())}\n`);
    return EXIT.ok;
  });
}
