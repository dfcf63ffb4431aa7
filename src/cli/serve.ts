import { resolve } from "node:path";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { SCORE_ENV, cascadeThresholds } from "../config/score-options.ts";
import type { TriageThresholds } from "../core/result.ts";
import { describeSource } from "../config/resolve.ts";
import { DEFAULT_RELEVANCE_THRESHOLDS, DEFAULT_SETTINGS } from "../config/defaults.ts";
import type { ResolvedCollectorOptions } from "../collector/options.ts";
import { DEFAULT_COLLECTOR_PORT, RESAMPLE_API_KEY_ENV, RESAMPLE_LIMITS, isLoopbackBind } from "../collector/options.ts";
import { resolveCollectorSetup } from "../collector/setup.ts";
import { DiagLogLevel } from "@opentelemetry/api";
import { otelLogLevel } from "./shared/log-level.ts";
import type { CertificateInfo } from "../collector/tls.ts";
import { applyHeapGrowth } from "../collector/heap.ts";
import { endpointOf, otlpWanted } from "../collector/providers.ts";
import { startCollector } from "../collector/server.ts";
import { calibrationCaveats, explainCalibrationFailure } from "../core/calibration.ts";
import { DEFAULT_MODEL_REPO } from "../nli/hub/cache.ts";
import { resolveBackendSettings, resolveHubSettings } from "../config/hub.ts";
import { COLLECTOR_ENV, JUDGE_API_KEY_ENV_NAME } from "../config/env.ts";
import { OFFLINE_RELEVANCE_THRESHOLDS, loadOfflineModel } from "../nli/offline/backend.ts";
import { predictBackend } from "../nli/registry.ts";
import type { CompletedEvaluation, ResolvedMonitorOptions } from "../sdk/types.ts";
import type { ResolvedReviewOptions, ReviewOptions } from "../sdk/review-options.ts";
import { describePerRoute, driftRefusal } from "../sdk/drift-options.ts";
import { citationsText } from "../telemetry/record.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "./shared/backend-flags.ts";
import { numberFlag, parseFlags, runCommand, scoreOptionsFromFlags } from "./shared/command.ts";
import { EXIT } from "./shared/exit-codes.ts";
import type { CommandIo } from "./shared/io.ts";
import { sanitizeForTerminal } from "./shared/io.ts";
import { jsonForTerminal } from "../core/safe-text.ts";

export const SERVE_HELP: string = `groundwatch serve — the collector: score RAG traces and observations from any service

Usage:
  groundwatch serve [--config FILE] [--host H] [--port P] [--health-port P] [--tls-cert FILE --tls-key FILE]
                    [--sample-rate R] [--threshold T]
                    [--calibration FILE [--require-valid-calibration]] [--prompt-context off|system|REGEX]
                    [--resample-url URL --resample-model M [--resample-n N] [--resample-rate R]
                     [--resample-temperature T]] [--review-dir DIR [--review-sample-rate R]]
                    [--peers URL,URL | --peers-dns HOST:PORT] [--log-evaluations] [--print-config]

Endpoints:
  POST /v1/traces         OTLP/HTTP traces (protobuf or JSON; gzip, deflate or br): retriever and LLM
                          spans (and their events) are joined per trace and the answer is scored
                          against the retrieved documents
  POST /v1/logs           OTLP/HTTP logs (protobuf or JSON; gzip, deflate or br): OTel GenAI content
                          events (gen_ai.*.message, gen_ai.choice, gen_ai.client.inference.operation.details)
                          joined with the spans of their trace
  POST /v1/observations   JSON observations, one or an array (schema: docs/observation.schema.json)
  GET  /metrics           Prometheus text format
  GET  /v1/flagged        recent answers that are not grounded, with trace ids (groundwatch flagged);
                          with --peers or --peers-dns, those of every replica, merged
  GET  /healthz, /readyz  liveness; readiness (503 with the reason while the scorer cannot score);
                          also on --health-port, a listener for the orchestrator's probes only
  GET  /runbooks          the alerts' runbooks as an HTML page (each alert's runbook_url points here)

Options:
  --config FILE         config file, JSON or YAML (.yaml, .yml), with sections collector, sampling,
                        monitor, scoring; env GROUNDWATCH_CONFIG
  --host H              bind address (default 127.0.0.1; anything else needs GROUNDWATCH_TOKEN, at
                        least 16 characters, sent as "Authorization: Bearer <token>"). On loopback
                        only requests whose Host is localhost, 127.x.x.x or [::1] are answered (421)
  --port P              port (default ${DEFAULT_COLLECTOR_PORT})
  --health-port P       a second port, on the same address, answering only GET /healthz and /readyz
                        (64 connections, 8 from one address, 2 s to ask): point liveness and readiness
                        probes at it, so that connections holding the main port cannot fail them;
                        env GROUNDWATCH_HEALTH_PORT (default: none)
  --tls-cert FILE       serve https: the PEM certificate (chain, the server's own first), with --tls-key;
                        env GROUNDWATCH_TLS_CERT_FILE. Read at start (unreadable, not PEM, or not the
                        key's: exit 2), then checked every collector.tlsReloadMs (60000) and on SIGHUP: a
                        renewed certificate (cert-manager) is served without a restart. A plain-http
                        request gets 400. The probe listener (--health-port) stays plain http
  --tls-key FILE        the certificate's PEM private key, unencrypted; env GROUNDWATCH_TLS_KEY_FILE
  --sample-rate R       sampling rate for routes without a rule (default 0.05)
  --prompt-context M    where the context is when a trace has no retrieved documents: off (default),
                        system (the LLM's system messages), or a regular expression with a named
                        group "context" applied to each input message; env GROUNDWATCH_PROMPT_CONTEXT
  --threshold T         answer threshold in [0, 1]; without it: the config file's scoring.threshold, else
                        GROUNDWATCH_THRESHOLD, else the calibration's, else the backend's fitted one
  --calibration FILE    calibration.json from \`groundwatch calibrate\`: its threshold and drift reference;
                        env GROUNDWATCH_CALIBRATION. A calibration whose verdict is not "pass" (the AUROC
                        interval includes 0.5, or lies below it) is applied with a warning naming the verdict
                        and interval; its reference scores are not the drift reference when there are fewer
                        than drift.minScores (20) of them. One fitted on groundwatch's bundled examples
                        (examples/labelled.jsonl: a demo), or with another backend or model, is warned
                        about on the banner, and its reference scores are refused for drift. One fitted
                        on a review export has a reference per route, weighted by the rates its answers
                        were sampled at: each route is compared with its own
  --require-valid-calibration
                        refuse to start (exit 2) on a calibration whose verdict is not "pass";
                        env GROUNDWATCH_REQUIRE_VALID_CALIBRATION=1
  --resample-url URL    live semantic entropy: an OpenAI-compatible API (http or https, e.g.
                        https://api.openai.com/v1) asked to redraw each resampled answer from its trace's
                        question and retrieved documents; env GROUNDWATCH_RESAMPLE_URL. The API key is read
                        from GROUNDWATCH_RESAMPLE_API_KEY only (sent as a bearer token)
  --resample-model M    the chat model that redraws answers (the one the service answers with);
                        env GROUNDWATCH_RESAMPLE_MODEL
  --resample-n N        answers drawn per resampled observation, 2–20 (default 5): one request with the
                        \`n\` parameter, or N requests where the server does not honour it;
                        env GROUNDWATCH_RESAMPLE_N
  --resample-rate R     share of the scored observations also resampled, 0–1 (default 1);
                        env GROUNDWATCH_RESAMPLE_RATE
  --resample-temperature T
                        sampling temperature, 0–2 (default 1; below 0.5 warns: the resamples would be
                        near-identical); env GROUNDWATCH_RESAMPLE_TEMPERATURE
  --review-dir DIR      keep answers for people to review (docs/review.md): every flagged answer and a
                        sample of grounded ones, redacted, in a spool under DIR (needs content capture:
                        GROUNDWATCH_CAPTURE_CONTENT=1 or monitor.captureContent); env GROUNDWATCH_REVIEW_DIR,
                        config file monitor.review (dir, groundedSampleRate, maxBytes, segmentBytes,
                        retentionDays, replica)
  --review-sample-rate R
                        share of grounded answers also spooled, 0–1 (default 0.05); env
                        GROUNDWATCH_REVIEW_SAMPLE_RATE
  --peers URL,URL       the other replicas of this deployment (this one may be listed: it is skipped):
                        GET /v1/flagged then answers for all of them, merged newest first, naming the
                        replicas that did not answer (partial); env GROUNDWATCH_PEERS
  --peers-dns HOST:PORT the replicas as a headless Service, resolved to every address at each request
                        (https when serving TLS: GROUNDWATCH_PEERS_CA_FILE, the CA a peer's certificate
                        is checked against, and GROUNDWATCH_PEERS_SERVER_NAME, the name it must carry);
                        env GROUNDWATCH_PEERS_DNS. Each call to a peer: collector.peerTimeoutMs (2000)
                        and collector.peerMaxBytes (8 MiB), with this collector's token
  --log-evaluations     print each evaluation as it completes (route, verdict, score, claim counts, limits;
                        never user text) to stderr, for wiring a service up; also on with OTEL_LOG_LEVEL=debug
  --print-config        print the resolved configuration (secrets masked) and exit
  --help, -h            show this help

${BACKEND_FLAGS_HELP}
Limits (config file, section collector): bodyLimit (2mb; 413 over it, at once when Content-Length
says so); maxBatch (500 observations a request); guardConcurrency (16 /v1/guard checks at once; over
it a bypass, saturated; the checks' default options: config file monitor.guard, env
GROUNDWATCH_GUARD_BUDGET_MS, _ON_FAIL, _ACTION, _CORRECTION, _REPLACEMENT); maxDocuments (200) and maxAnswerChars (50000), for
observations (400) and for interactions joined from traces (not scored, counted as
too_many_documents / answer_too_large); maxTraces (10000) and maxTraceBytes (4 MiB of text, over it
trace_too_large) and maxBufferBytes (64 MiB of text for all traces being joined: the oldest
incomplete ones are evicted as buffer_full); traceTimeoutMs (5000); maxTraceAgeMs (6 x
traceTimeoutMs: a trace is settled that long after its first record); headersTimeoutMs (10000),
requestTimeoutMs (60000; also how long an answer the client stopped reading may stall),
keepAliveTimeoutMs (5000), maxConnections (1024), maxConnectionsPerAddress (256: from one address or
IPv6 /64); drainMs (10000);
heapGrowthPercent (100: how far the JS heaps may grow past what a full garbage collection left
live, in percent, 0–300, 0 = V8's own choice; env GROUNDWATCH_HEAP_GROWTH_PERCENT). The
resampler: resampleUrl, resampleModel, resampleN, resampleRate, resampleTemperature, resampleMaxTokens (1024),
resampleMaxConcurrent (2 calls in flight), resampleMaxCallsPerMinute (60; over it an observation is
scored without entropy), resampleTimeoutMs (30000 a call, retries included), resampleBudget (most
requests in the collector's life; no limit by default). Requests that would not fit
in the scoring queue (monitor.queueSize, monitor.queueBytes) or the trace buffer get 429 with
Retry-After before anything is kept.

It starts once the scoring backend is loaded, then prints a banner to stderr: backend and tier,
answer threshold and where it comes from, calibration verdict, drift reference, sampling rates,
queue limits, resampler, auth, bind address and OTLP export targets. When the port is in use or the backend
cannot load, it says why and exits 1. Exports over OTLP when the standard OTEL_EXPORTER_OTLP_* variables are set; a
failed export is logged (at most once per 30 s per signal), and each export is given at most a third
of drainMs (and no more than OTEL_EXPORTER_OTLP_TIMEOUT). OTEL_LOG_LEVEL sets what diagnostics reach
stderr (default warn). SIGTERM or Ctrl-C stops accepting, drains the queue and flushes the exports
within collector.drainMs, and exits. With TLS, SIGHUP reads the certificate files again.
Exit codes: 0 stopped cleanly, 1 failure (port in use, scoring backend not loaded), 2 bad flags or configuration.
`;

/** Runs `groundwatch serve` until SIGTERM/SIGINT; resolves to the exit code. */
export function runServe(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("serve", SERVE_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      host: { type: "string" },
      port: { type: "string" },
      "health-port": { type: "string" },
      "tls-cert": { type: "string" },
      "tls-key": { type: "string" },
      peers: { type: "string" },
      "peers-dns": { type: "string" },
      "sample-rate": { type: "string" },
      threshold: { type: "string" },
      "prompt-context": { type: "string" },
      calibration: { type: "string" },
      "require-valid-calibration": { type: "boolean" },
      "log-evaluations": { type: "boolean" },
      "print-config": { type: "boolean" },
      "resample-url": { type: "string" },
      "resample-model": { type: "string" },
      "resample-n": { type: "string" },
      "resample-rate": { type: "string" },
      "resample-temperature": { type: "string" },
      "review-dir": { type: "string" },
      "review-sample-rate": { type: "string" },
      ...BACKEND_FLAGS,
    });
    const port = numberFlag("port", args.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number");
    const healthPort = numberFlag("health-port", args["health-port"], (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number");
    const rate = numberFlag("sample-rate", args["sample-rate"], (n) => n >= 0 && n <= 1, "a rate from 0 to 1");
    const threshold = numberFlag("threshold", args.threshold, (n) => n >= 0 && n <= 1, "a threshold from 0 to 1");
    const { n: nRange, rate: rateRange, temperature: tRange } = RESAMPLE_LIMITS;
    const resampleN = numberFlag("resample-n", args["resample-n"], (n) => Number.isInteger(n) && n >= nRange.min && n <= nRange.max, `an integer from ${nRange.min} to ${nRange.max}`);
    const resampleRate = numberFlag("resample-rate", args["resample-rate"], (n) => n >= rateRange.min && n <= rateRange.max, `a rate from ${rateRange.min} to ${rateRange.max}`);
    const resampleTemperature = numberFlag("resample-temperature", args["resample-temperature"], (n) => n >= tRange.min && n <= tRange.max, `a temperature from ${tRange.min} to ${tRange.max}`);
    const resample = {
      ...(args["resample-url"] !== undefined ? { resampleUrl: args["resample-url"] } : {}),
      ...(args["resample-model"] !== undefined ? { resampleModel: args["resample-model"] } : {}),
      ...(resampleN !== undefined ? { resampleN } : {}),
      ...(resampleRate !== undefined ? { resampleRate } : {}),
      ...(resampleTemperature !== undefined ? { resampleTemperature } : {}),
    };
    const reviewRate = numberFlag("review-sample-rate", args["review-sample-rate"], (n) => n >= 0 && n <= 1, "a rate from 0 to 1");
    // Either flag alone overrides that field; the directory may come from GROUNDWATCH_REVIEW_DIR or the config file (the resolver says when none does).
    const review = args["review-dir"] !== undefined || reviewRate !== undefined ? ({ ...(args["review-dir"] !== undefined ? { dir: resolve(io.cwd, args["review-dir"]) } : {}), ...(reviewRate !== undefined ? { groundedSampleRate: reviewRate } : {}) } as ReviewOptions) : undefined;
    const configFile = args.config ? resolve(io.cwd, args.config) : undefined;
    const tls = { ...(args["tls-cert"] !== undefined ? { tlsCertFile: resolve(io.cwd, args["tls-cert"]) } : {}), ...(args["tls-key"] !== undefined ? { tlsKeyFile: resolve(io.cwd, args["tls-key"]) } : {}) };
    const { options: scoring } = scoreOptionsFromFlags({ ...args, config: undefined }, io, threshold !== undefined ? { threshold } : {});
    const collectorOptions = { env: io.env, ...(configFile ? { configFile } : {}), ...(args.host ? { host: args.host } : {}), ...(port !== undefined ? { port } : {}), ...(healthPort !== undefined ? { healthPort } : {}), ...tls, ...(args["prompt-context"] !== undefined ? { promptContext: args["prompt-context"] } : {}), ...resample, ...(args.peers !== undefined ? { peers: args.peers } : {}), ...(args["peers-dns"] !== undefined ? { peersDns: args["peers-dns"] } : {}) };
    // OTEL_LOG_LEVEL=debug (or verbose, all) asks for everything: the evaluations too.
    const logEvaluations = args["log-evaluations"] === true || otelLogLevel(io.env) >= DiagLogLevel.DEBUG;
    const monitorOptions = {
      ...(rate !== undefined ? { sampling: { default: rate } } : {}),
      ...(args.calibration ? { calibrationFile: resolve(io.cwd, args.calibration) } : {}),
      ...(args["require-valid-calibration"] ? { requireValidCalibration: true } : {}),
      ...(review ? { review } : {}),
      ...(logEvaluations ? { onEvaluation: (e: CompletedEvaluation) => io.stderr.write(`${formatEvaluation(e)}\n`) } : {}),
      scoring,
    };
    // Resolved once (one reading of the config file and the calibration): the banner and --print-config report the value the collector runs.
    const setup = resolveCollectorSetup({ ...collectorOptions, monitor: monitorOptions });
    const { collector, monitor } = setup;
    if (args["print-config"]) {
      const printable = {
        collector: {
          ...collector,
          token: collector.token ? "***" : undefined,
          file: undefined,
          promptContext: collector.promptContext.mode === "regex" ? collector.promptContext.pattern.source : collector.promptContext.mode,
          resample: collector.resample ? { ...collector.resample, apiKey: collector.resample.apiKey ? "***" : "(not set)", budget: collector.resample.budget ?? null } : null,
          peers: { ...collector.peers, ca: undefined },
        },
        sampling: monitor.sampling,
        monitor: {
          ...monitor,
          sampling: undefined,
          score: undefined,
          // The collector's resampler, shown above as configured.
          resample: undefined,
          drift: { ...monitor.drift, reference: monitor.drift.reference?.length, routeReferences: monitor.drift.routeReferences ? Object.fromEntries([...monitor.drift.routeReferences].map(([route, r]) => [route, r.scores.length])) : undefined },
          calibration: monitor.calibration
            ? { path: monitor.calibration.path, id: monitor.calibration.id, dataset: monitor.calibration.dataset ?? "fingerprint unknown", threshold: monitor.calibration.threshold, verdict: monitor.calibration.verdict ?? null, auroc: monitor.calibration.auroc ?? null, rows: monitor.calibration.rows ?? null, backend: monitor.calibration.backend, createdAt: monitor.calibration.createdAt, referenceScores: monitor.calibration.referenceScores.length }
            : undefined,
        },
        scoring: monitor.score,
        // The token as resolved (the one in force); the judge's key as the scoring workers get it.
        secrets: { [COLLECTOR_ENV.token]: collector.token ? "***" : "(not set)", [JUDGE_API_KEY_ENV_NAME]: resolveBackendSettings(io.env).judgeApiKey ? "***" : "(not set)", [RESAMPLE_API_KEY_ENV]: io.env[RESAMPLE_API_KEY_ENV]?.trim() ? "***" : "(not set)" },
      };
      io.stdout.write(`${jsonForTerminal(printable, 2)}\n`);
      return EXIT.ok;
    }
    // Before the scoring workers start: the setting is process-wide and theirs too.
    applyHeapGrowth(collector.heapGrowthPercent);
    // Resolves once listening with the scorer loaded; a busy port or a scorer that cannot load rejects (exit 1).
    const running = await startCollector({ ...collectorOptions, monitor: monitorOptions, resolved: setup });
    // With TLS, SIGHUP reads the certificate files again now (as collector.tlsReloadMs does on its own);
    // listened for before the banner, so that a signal sent on reading it is not the default's (exit).
    const reload = (): void => {
      const r = running.tls?.check();
      if (r) io.stderr.write(`groundwatch serve: SIGHUP: ${r.status === "reloaded" ? `serving the new certificate ${r.certificate.subject}, valid until ${r.certificate.validTo.toISOString()}` : r.status === "unchanged" ? "the certificate files have not changed" : `the certificate was not reloaded: ${r.error}`}\n`);
    };
    if (running.tls) process.on("SIGHUP", reload);
    // One write: whoever reads "listening" (a person, a supervisor, a test) gets the whole banner with it.
    io.stderr.write(`groundwatch serve: listening on ${running.url} (metrics at ${running.url}/metrics${running.healthUrl ? `; probes at ${running.healthUrl}/healthz and /readyz` : ""})\n${startupBanner({ url: running.url, replica: running.replica, healthUrl: running.healthUrl, collector: running.options, monitor, env: io.env, logEvaluations, certificate: running.tls?.current(), now: Date.now() })}`);
    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        process.off("SIGHUP", reload);
        io.stderr.write(`groundwatch serve: draining (at most ${running.options.drainMs} ms)…\n`);
        running.close().then(done, done);
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });
    const s = running.monitor.stats();
    io.stderr.write(`groundwatch serve: stopped; ${s.seen} seen, ${s.scored} scored, dropped ${JSON.stringify(s.dropped)}, failed ${JSON.stringify(s.failed)}, incomplete traces ${JSON.stringify(running.incompleteStats())}\n`);
    return EXIT.ok;
  });
}

/** The backend the scoring workers will load, as createBackend decides it (predictBackend, without loading it), in the banner's words. */
function expectedBackend(score: ResolvedScoreOptions, hubCacheDir: string): { name: string; tier: "production" | "triage"; why?: string | undefined } {
  const predicted = predictBackend(score, { hubCacheDir });
  const auto = predicted.auto ? "; auto" : "";
  switch (predicted.name) {
    case "offline":
      return { name: predicted.auto ? "offline (auto)" : "offline", tier: "triage", why: predicted.why };
    case "judge":
      return { name: `judge (${score.judgeModel ?? "?"} at ${score.judgeUrl ?? "?"})`, tier: "production" };
    case "onnx":
      return { name: `onnx (${predicted.model ?? (predicted.auto ? DEFAULT_MODEL_REPO : "no model")}${predicted.cachedDefault ? ", cached" : ""}${auto})`, tier: "production" };
    case "spans":
      return { name: `spans (${score.spanModel ?? "no span model"}, alone)`, tier: "production" };
  }
}

/** Where the answer threshold came from, in the banner's words (the monitor's "config" is the config file). */
const thresholdFrom = (source: ResolvedMonitorOptions["thresholdSource"]): string =>
  describeSource(source === "config" ? "file" : source, { option: "--threshold", envName: SCORE_ENV.threshold, fileKey: "scoring.threshold", default: "backend default" });

const mib = (bytes: number): string => `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;

/**
 * serve's start-up banner: a few aligned lines on stderr saying what this collector will do, so a
 * misconfiguration (a triage backend, a failed calibration, no export) is seen before the first request.
 */
export function startupBanner(s: { url: string; replica?: string | undefined; healthUrl?: string | undefined; collector: ResolvedCollectorOptions; monitor: ResolvedMonitorOptions; env: NodeJS.ProcessEnv; logEvaluations: boolean; certificate?: CertificateInfo | undefined; now?: number }): string {
  const { monitor, collector, env } = s;
  const score = monitor.score;
  const backend = expectedBackend(score, resolveHubSettings(env).cacheDir);
  const triage = backend.tier === "triage" ? ` — TRIAGE-GRADE: not for paging or release decisions${backend.why ? ` (${backend.why})` : "; run `groundwatch model pull` for a production NLI model"}` : "";
  const defaultThreshold = backend.tier === "triage" ? loadOfflineModel().threshold : DEFAULT_SETTINGS.threshold;
  const cal = monitor.calibration;
  // Relevance thresholds in force: explicit > the calibration's > the backend's fitted ones (the offline backend's for triage,
  // as the threshold above, and for onnx without a relevance cross-encoder, whose relevance is then the offline one).
  const lexical = backend.tier === "triage" || (backend.name.split(" ")[0] === "onnx" && score.relevanceModel === undefined);
  const relevanceDefaults = lexical ? OFFLINE_RELEVANCE_THRESHOLDS : DEFAULT_RELEVANCE_THRESHOLDS;
  const relevanceOf = (key: "context" | "answer", value: number | undefined): string =>
    value === undefined ? `${key} ${relevanceDefaults[key].toFixed(4)} (backend default)` : `${key} ${value.toFixed(4)} (${cal?.relevanceThresholds?.[key] === value ? "calibration" : "set"})`;
  const relevance = score.relevance ? `${relevanceOf("context", score.contextRelevanceThreshold)}, ${relevanceOf("answer", score.answerRelevanceThreshold)}` : "off (no relevance or cause)";
  const failed = cal ? explainCalibrationFailure(cal) : undefined;
  const ci = cal?.auroc ? `AUROC ${cal.auroc.value.toFixed(3)} (95% CI ${cal.auroc.low.toFixed(3)}–${cal.auroc.high.toFixed(3)})` : "no AUROC recorded";
  const calibration = !cal
    ? "none (the threshold is not backed by a labelled set; see groundwatch calibrate)"
    : `${failed ? `${(cal.verdict ?? "no verdict").toUpperCase()} — the threshold is not trustworthy` : cal.dataset?.bundled ? "DEMO — groundwatch's bundled example calibration, not evidence about this service" : "pass"}: ${ci}${cal.rows !== undefined ? ` on ${cal.rows} rows` : ""}${cal.createdAt ? `, ${cal.createdAt}` : ""} (${cal.path}, id ${cal.id})${failed ? `; ${failed.advice}` : ""}`;
  // Fitted on groundwatch's examples, or with another backend: said as loudly as a failed verdict.
  // The backend as the workers will load it ("auto" resolved as createBackend resolves it); its model is known once it has loaded (the SDK warns then).
  const caveats = cal ? calibrationCaveats(cal, { name: backend.name.split(" ")[0] ?? backend.name }) : [];
  const ref = monitor.drift.referenceStatus;
  const firstWindow = `each route's first ${monitor.drift.windowSize} scores become its reference`;
  // With backend auto the monitor refuses the calibration's reference at the first result; the banner says so now.
  const refusedLater = ref.source === "calibration" && cal ? driftRefusal(cal, { name: backend.name.split(" ")[0] ?? backend.name }, monitor.drift.minScores) : undefined;
  const refused = ref.source === "none" ? ref.refused : refusedLater;
  const drift = refused
    ? refused.reason === "too_few_scores" && !cal?.driftReference
      ? `no reference (calibration has ${refused.scores} scores, needs ${refused.minScores}): ${firstWindow}`
      : `no reference — REFUSED, ${refused.message}: ${firstWindow}`
    : ref.source !== "none"
      ? ref.perRoute
        ? describePerRoute(ref.perRoute, monitor.drift.windowSize)
        : `reference from ${ref.source === "calibration" ? "the calibration" : "drift.reference"} (${ref.scores} scores)`
      : `no reference: ${firstWindow}`;
  const routes = Object.entries(monitor.sampling.routes ?? {});
  // As the collector's providers decide it.
  const otlp = (["traces", "metrics", "logs"] as const).flatMap((signal) => (otlpWanted(env, signal) ? [`${signal} → ${endpointOf(env, signal)}`] : []));
  const rows: Array<[string, string]> = [
    ["backend", `${backend.name}, tier ${backend.tier}${triage}`],
    ["threshold", `${(monitor.thresholdSource === "default" ? defaultThreshold : (score.threshold ?? defaultThreshold)).toFixed(4)} (${thresholdFrom(monitor.thresholdSource)})`],
    ["relevance", relevance],
    ...(score.cascade ? [["cascade", cascadeLine(score, backend.tier, cal?.cascadeThresholds)] as [string, string]] : []),
    ...(score.spanModel !== undefined ? [["spans", spansLine(score, cal?.spanThreshold?.threshold)] as [string, string]] : []),
    ["calibration", calibration],
    ...caveats.map((c): [string, string] => ["WARNING", `calibration: ${c.message}`]),
    ["drift", drift],
    ["sampling", `${monitor.sampling.default} by default${routes.length ? `; ${routes.map(([r, v]) => `${r}=${v}`).join(", ")}` : "; no per-route rates"}`],
    ["queue", `${monitor.queueSize} observations or ${mib(monitor.queueBytes)} of text, ${monitor.workers} worker${monitor.workers === 1 ? "" : "s"}, ${monitor.timeoutMs} ms each; traces: ${collector.maxTraces} or ${mib(collector.maxBufferBytes)} joining`],
    ["resampler", resamplerLine(collector.resample)],
    ["review", reviewLine(monitor.review)],
    ["peers", peersLine(collector.peers, s.replica)],
    ["auth", collector.token ? `on (bearer token)${!collector.tls && !isLoopbackBind(collector.host) ? " — sent in clear text over http: serve https (--tls-cert, --tls-key) or put TLS in front of it" : ""}` : "off (loopback only)"],
    ["tls", tlsLine(collector, s.certificate, s.now ?? Date.now())],
    ["bind", `${new URL(s.url).host}${s.healthUrl ? `; probes (/healthz, /readyz) also on ${new URL(s.healthUrl).host}` : ""}`],
    ["otlp export", otlp.length ? otlp.join(", ") : "none (OTEL_EXPORTER_OTLP_ENDPOINT is not set; metrics at /metrics only)"],
    ["evaluations", s.logEvaluations ? "logged here as they complete" : "not logged (--log-evaluations)"],
  ];
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `  ${k.padEnd(width)}${sanitizeForTerminal(v)}\n`).join("");
}

/** The banner's span detector line (only with a span model): alone or refining, and the span threshold in force. */
function spansLine(score: ResolvedScoreOptions, calibrated: number | null | undefined): string {
  if (score.backend === "spans") return `alone (${score.spanModel ?? "?"}): a token at or above 1 − the threshold marks its claim unsupported`;
  const threshold = score.spanThreshold === undefined ? "the detector's default" : `${score.spanThreshold} (${calibrated === score.spanThreshold ? "calibration" : "set"})`;
  return `refine (${score.spanModel ?? "?"}): marks the words to distrust in the claims, span threshold ${threshold}; verdicts stay the claim backend's`;
}

/** The banner's cascade line (only with the cascade on): its thresholds and where they come from, or why it does nothing. */
function cascadeLine(score: ResolvedScoreOptions, tier: string, calibrated: TriageThresholds | undefined): string {
  if (tier === "triage") return "ignored: the offline backend is the cheap tier itself (the cascade puts it in front of onnx or judge)";
  const t = cascadeThresholds(score);
  const from = (value: number | undefined, fitted: number | undefined): string => (value === undefined ? "default" : fitted === value ? "calibration" : "set");
  const sides = `supported at an offline score of ${t.supportAbove} or above (${from(score.cascadeSupportAbove, calibrated?.supportAbove)}), unsupported at ${t.unsupportBelow} or below (${from(score.cascadeUnsupportBelow, calibrated?.unsupportBelow)})`;
  return t.supportAbove < 1 || t.unsupportBelow > 0 ? `on: ${sides}, without a model call` : `on, but its thresholds decide nothing (1 and 0): every claim goes to the model; calibrate fits them on your labelled set`;
}

/** The banner's TLS line: the certificate served, how it is renewed, and a warning when it is not valid now. */
function tlsLine(collector: ResolvedCollectorOptions, certificate: CertificateInfo | undefined, now: number): string {
  if (!collector.tls || !certificate) return "off (plain http; --tls-cert and --tls-key serve https)";
  const reload = collector.tls.reloadMs > 0 ? `files checked every ${collector.tls.reloadMs / 1000} s and on SIGHUP` : "files read again on SIGHUP only (tlsReloadMs 0)";
  const when = now > certificate.validTo.getTime() ? ` — WARNING: it expired on ${certificate.validTo.toISOString()}: clients refuse it` : now < certificate.validFrom.getTime() ? ` — WARNING: it is not valid before ${certificate.validFrom.toISOString()}: clients refuse it` : "";
  return `https: ${certificate.subject}${certificate.names ? ` (${certificate.names})` : ""}, valid until ${certificate.validTo.toISOString()}; ${reload}${collector.healthPort !== undefined ? "; probes plain http" : ""}${when}`;
}

/** The banner's peers line: this replica's name, and where the others are found. */
function peersLine(p: ResolvedCollectorOptions["peers"], replica: string | undefined): string {
  const self = replica !== undefined ? `this replica is ${replica}; ` : "";
  const bounds = `${p.timeoutMs} ms and ${mib(p.maxBytes)} a call`;
  if (p.dns !== undefined) return `${self}the addresses of ${p.dns}, resolved at each /v1/flagged (${bounds}${p.serverName ? `; certificates for ${p.serverName}` : ""}${p.caFile ? `, CA ${p.caFile}` : ""})`;
  if (p.urls.length > 0) return `${self}${p.urls.join(", ")} (${bounds})`;
  return `${self}none (/v1/flagged answers for this replica only; --peers or --peers-dns)`;
}

/** The banner's resampler line: endpoint, model, n, rate, temperature, limits, whether a key is set (never the key), warnings. */
function resamplerLine(r: ResolvedCollectorOptions["resample"]): string {
  if (!r) return "off (no live semantic entropy; --resample-url and --resample-model to turn it on)";
  const limits = `at most ${r.maxCallsPerMinute} calls/min, ${r.maxConcurrent} in flight, ${r.timeoutMs} ms each${r.budget !== undefined ? `, ${r.budget} requests in all` : ""}`;
  const warnings = r.warnings.map((w) => ` — WARNING: ${w}`).join("");
  return `${r.model} at ${r.url}: n ${r.n}, rate ${r.rate} of scored observations, temperature ${r.temperature}, ${limits}; API key ${r.apiKey ? "set (***)" : "not set"}${warnings}`;
}

/** The banner's review line: where the spool is and at which grounded sample rate, or that review is off. */
function reviewLine(r: ResolvedReviewOptions | undefined): string {
  if (!r) return "off (--review-dir DIR, with content capture, spools flagged answers for review)";
  return `spooling to ${r.dir} (replica ${r.replica}): every flagged answer, grounded answers at rate ${r.groundedSampleRate}; cap ${mib(r.maxBytes)}, segments ${mib(r.segmentBytes)}, retention ${Number((r.retentionMs / 86_400_000).toFixed(3))} days`;
}

/** One line per completed evaluation, for --log-evaluations: counts, scores and limits, never user text. */
export function formatEvaluation(e: CompletedEvaluation): string {
  const r = e.result;
  const c = r.claims;
  const verdict = r.verdict === "unscorable" ? `unscorable (${r.reason ?? "unknown"})` : `${r.verdict} score ${r.score?.toFixed(3) ?? "–"} (threshold ${r.threshold ?? "–"})${r.cause ? ` cause ${r.cause}` : ""}`;
  const entropy = r.entropy ? `; entropy ${r.entropy.normalized?.toFixed(3) ?? "not measured"}${r.combined ? `, combined ${r.combined.verdict}` : ""}` : "";
  return sanitizeForTerminal(
    `groundwatch serve: evaluation route=${e.route} ${verdict}; claims ${c.supported} supported, ${c.contradicted} contradicted, ${c.unsupported} unsupported${c.misattributed ? `, ${c.misattributed} misattributed` : ""}${r.skipped ? `, ${r.skipped} skipped` : ""}${r.citations ? `; ${citationsText(r.citations)}` : ""}; limits ${r.limits.length ? r.limits.join(",") : "none"}${entropy}; ${r.backend.name} ${Math.round(e.durationMs)} ms`,
  );
}
