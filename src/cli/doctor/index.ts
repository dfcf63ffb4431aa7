import { spawn } from "node:child_process";
import type { HttpBounds } from "../../net/bounded-fetch.ts";
import { fetchBounded } from "../../net/bounded-fetch.ts";
import { resolve } from "node:path";
import type { Calibration } from "../../config/calibration-file.ts";
import { readCalibrationFile } from "../../config/calibration-file.ts";
import { isConfigError } from "../../config/errors.ts";
import type { BackendIdentity } from "../../core/calibration.ts";
import { calibrationCaveats } from "../../core/calibration.ts";
import type { EntailmentBackend } from "../../core/backend.ts";
import { DEFAULT_MODEL_REPO } from "../../nli/hub/cache.ts";
import { ONNX_RUNTIME_INSTALL, ONNX_RUNTIME_INSTALL_CPU, ONNX_RUNTIME_PACKAGE, isOnnxRuntimeMissing, loadOnnxRuntime, onnxRuntimeVersion } from "../../nli/onnx/runtime.ts";
import { onnxRuntimeNeed } from "../../nli/registry.ts";
import { BACKEND_FLAGS, BACKEND_FLAGS_HELP } from "../shared/backend-flags.ts";
import { numberFlag, openBackend, parseFlags, resolveCliScoring, runCommand } from "../shared/command.ts";
import { checkClaimedRates } from "../report/calibration-claims.ts";
import { recheckCalibration } from "./recheck.ts";
import { EXIT } from "../shared/exit-codes.ts";
import type { CommandIo } from "../shared/io.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import { driftReferenceCheck } from "./drift.ts";
import { DOCTOR_SAMPLER_ENV, SCORE_ENV_NAMES } from "../../config/env.ts";

export const DOCTOR_HELP: string = `groundwatch doctor — preflight for a deployment

Usage:
  groundwatch doctor [--backend …] [--calibration calibration.json [--set labelled.jsonl] [--recheck 20]]
                     [--sampler-cmd CMD] [--collector URL] [--prometheus URL] [--skip-backend]

Checks: onnxruntime-node is installed when the backend needs it, the entailment backend loads, its tier, its label mapping, and that it answers two test
pairs sensibly; which scorer measures relevance (a relevance cross-encoder, the judge, or lexical) and that a configured relevance model is found; whether the threshold is calibrated (and whether that calibration established a
signal; a WARN, never a PASS, when it was fitted on groundwatch's bundled examples, with another
backend or model than the one that loaded, or records no fingerprint of its data set); that the
calibration's threshold gives, on the rows it was fitted on, the TPR and FPR the file claims; and,
with the backend loaded, that it gives a sample of those rows (--recheck N, default 20; 0 skips it),
re-scored from the labelled set (the path the file records, or --set; the same bytes by sha256), the
verdicts the file records — a FAIL names the rows that differ; resample diversity when a sampler is given; the collector's /readyz and Prometheus (and
whether it holds groundwatch series) when their URLs are given. Every failure comes with its fix.

Sampler: --sampler-cmd CMD [--samples N] [--prompt TEXT] [--timeout SECONDS] runs CMD (through the shell) once for a fixed prompt. The prompt arrives on standard input and in
GROUNDWATCH_PROMPT, the number of samples wanted in GROUNDWATCH_SAMPLES. CMD prints the samples:
a JSON array of strings, or one sample a line. Semantic entropy over samples that do not differ is
0 whatever the model knows, so doctor fails when the samples are too few or all identical, and
names the likely cause.

Exit codes: 0 ready, 1 not ready (each failure printed with its fix), 2 bad flags.

${BACKEND_FLAGS_HELP}`;

const DEFAULT_PROMPT = "Name a city in Australia and say one thing about it.";
/** Fitted rows doctor re-scores from a calibration's set by default. */
const DEFAULT_RECHECK_ROWS = 20;

function parseSamples(stdout: string): string[] {
  const trimmed = stdout.trim();
  if (trimmed.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(trimmed);
      if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v;
    } catch {
      // not JSON after all: read it as lines
    }
  }
  return trimmed === "" ? [] : trimmed.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** One preflight line: its status, what was checked, what was found, and the fix when it failed. */
interface Check {
  /** INFO: a fact worth knowing that needs no action (neither a warning nor a failure). */
  readonly status: "PASS" | "WARN" | "FAIL" | "INFO";
  readonly what: string;
  readonly detail: string;
  readonly fix?: string;
}

function report(io: CommandIo, c: Check): void {
  io.stdout.write(`[${c.status}] ${c.what.padEnd(18)} ${c.detail}\n`);
  if (c.fix) io.stdout.write(`       -> ${c.fix}\n`);
}

const INSTALL_RUNTIME_FIX = `${ONNX_RUNTIME_INSTALL} (on CPU-only machines, or where only the npm registry is reachable: ${ONNX_RUNTIME_INSTALL_CPU})`;

/**
 * Whether onnxruntime-node is installed (and its version). When the configured backend uses it
 * (--backend onnx, or auto with a model configured or the default model cached) a missing runtime
 * is a FAIL or WARN; otherwise the line is INFO: what a production model would need.
 */
async function checkOnnxRuntime(args: Parameters<typeof openBackend>[0], io: CommandIo): Promise<Check | undefined> {
  let need: ReturnType<typeof onnxRuntimeNeed>;
  let requireProduction: boolean;
  try {
    const { scoring, hub } = resolveCliScoring(args, io);
    need = onnxRuntimeNeed(scoring, hub.cacheDir);
    requireProduction = scoring.requireProduction;
  } catch {
    return undefined; // a configuration error: the backend check reports it
  }
  const what = "onnx runtime";
  try {
    const runtime = await loadOnnxRuntime();
    const version = `${ONNX_RUNTIME_PACKAGE} ${onnxRuntimeVersion(runtime) ?? "(version unknown)"}`;
    return need ? { status: "PASS", what, detail: version } : { status: "INFO", what, detail: `${version} (not used by the configured backend; a local model (groundwatch model pull) would use it)` };
  } catch (error) {
    if (!need) return { status: "INFO", what, detail: `${ONNX_RUNTIME_PACKAGE} is not installed (not needed by the configured backend; a local model (groundwatch model pull) needs it)`, fix: INSTALL_RUNTIME_FIX };
    if (!isOnnxRuntimeMissing(error)) return { status: "FAIL", what, detail: (error as Error).message, fix: `reinstall it: ${INSTALL_RUNTIME_FIX}` };
    if (need.need === "required" || requireProduction) return { status: "FAIL", what, detail: `${ONNX_RUNTIME_PACKAGE} is not installed, and the onnx backend needs it`, fix: INSTALL_RUNTIME_FIX };
    return { status: "WARN", what, detail: `${ONNX_RUNTIME_PACKAGE} is not installed: auto falls back to the triage-grade offline backend, though ${DEFAULT_MODEL_REPO} is cached`, fix: INSTALL_RUNTIME_FIX };
  }
}

/** Whether production is required, as the resolver reads the flags, the environment and --config (false when they do not resolve: the backend check reports why). */
function requiresProduction(args: Parameters<typeof openBackend>[0], io: CommandIo): boolean {
  try {
    return resolveCliScoring(args, io).scoring.requireProduction;
  } catch {
    return false;
  }
}

const RELEVANCE_MODEL_FIX = `pull a relevance cross-encoder (groundwatch model pull cross-encoder/ms-marco-MiniLM-L-6-v2) or point ${SCORE_ENV_NAMES.relevanceModel} (scoring.relevanceModel) at its directory; unset it to measure relevance lexically`;

/** Which scorer measures context relevance (the backend's relevanceScorer): a cross-encoder or judge, lexical, or none. */
function relevanceCheck(backend: EntailmentBackend): Check {
  const scorer = backend.relevanceScorer;
  if (!backend.relevance || !scorer) return { status: "WARN", what: "relevance", detail: `the ${backend.name} backend measures no relevance: context relevance, and so the cause of ungrounded answers, is reported as unknown` };
  if (scorer.name !== "offline-lexical") return { status: "PASS", what: "relevance", detail: `${scorer.name}${scorer.model ? ` ${scorer.model}` : ""}` };
  const onnx = backend.name === "onnx";
  return { status: "INFO", what: "relevance", detail: `offline-lexical (word coverage of the question)${onnx ? "; no relevance cross-encoder configured (relevanceModel)" : ""}`, ...(onnx ? { fix: RELEVANCE_MODEL_FIX } : {}) };
}

async function checkBackend(args: Parameters<typeof openBackend>[0], io: CommandIo, requireProduction: boolean): Promise<{ checks: Check[]; backend?: BackendIdentity }> {
  const checks: Check[] = [];
  let backend: EntailmentBackend;
  try {
    backend = await openBackend(args, io);
  } catch (error) {
    const fix = isOnnxRuntimeMissing(error) ? INSTALL_RUNTIME_FIX : "fix the backend configuration (groundwatch serve --print-config shows it), or pull a model: groundwatch model pull";
    // A configuration error says what is wrong in words; its "invalid field: value" prefix would print "invalid model: undefined".
    const detail = isConfigError(error) ? `${error.field}: ${error.expected}` : (error as Error).message;
    if (isConfigError(error) && error.field === "relevanceModel") return { checks: [{ status: "FAIL", what: "relevance model", detail: `${JSON.stringify(error.value)}: ${error.expected}`, fix: RELEVANCE_MODEL_FIX }] };
    return { checks: [{ status: "FAIL", what: "entailment backend", detail, fix }] };
  }
  const identity = { name: backend.name, version: backend.version, tier: backend.tier };
  try {
    const tier = backend.tier === "triage" ? (requireProduction ? "FAIL" : "WARN") : "PASS";
    checks.push({ status: tier, what: "entailment backend", detail: `${backend.name} ${backend.version} (${backend.tier})`, ...(tier !== "PASS" ? { fix: "triage-grade: pull a production model (groundwatch model pull) or configure the judge before paging or gating on it" } : {}) });
    const model = (backend as EntailmentBackend & { model?: { labels: { labels: readonly string[]; kind: string } } }).model;
    if (model) checks.push({ status: "PASS", what: "label mapping", detail: `${model.labels.kind}-label: ${model.labels.labels.map((l, i) => `${i}:${l}`).join(" ")}` });
    checks.push(relevanceCheck(backend));
    const t0 = performance.now();
    const [same, flipped] = await backend.classify([
      { premise: "The museum opens at nine in the morning.", hypothesis: "The museum opens at nine in the morning." },
      { premise: "The museum opens at nine in the morning.", hypothesis: "The museum does not open in the morning." },
    ]);
    const ok = same !== undefined && flipped !== undefined && same.entailment > flipped.entailment;
    checks.push({ status: ok ? "PASS" : "FAIL", what: "backend answers", detail: `2 test pairs in ${(performance.now() - t0).toFixed(0)} ms; entailment ${same?.entailment.toFixed(3)} (same) vs ${flipped?.entailment.toFixed(3)} (negated)`, ...(ok ? {} : { fix: "the backend rates a restated sentence no more entailed than its negation: check the model and its label mapping (groundwatch model info)" }) });
  } catch (error) {
    checks.push({ status: "FAIL", what: "backend answers", detail: (error as Error).message, fix: "the backend loaded but cannot classify: check the model files or the judge endpoint" });
  } finally {
    await backend.close();
  }
  return { checks, backend: identity };
}

/**
 * The calibration: FAIL when its verdict is not "pass"; WARN (never PASS) when it was fitted on
 * groundwatch's bundled examples, with another backend or model than `scoring` (the one that loaded),
 * or records no fingerprint; a WARN line for a reference that drift will refuse, and a line on a per-route reference.
 */
function checkCalibration(path: string | undefined, io: CommandIo, scoring: BackendIdentity | undefined): { checks: Check[]; cal?: Calibration } {
  if (!path) return { checks: [{ status: "WARN", what: "threshold", detail: "not calibrated (no --calibration)", fix: "label a few hundred answers and run groundwatch calibrate; pass the calibration.json to the SDK or collector" }] };
  let cal: Calibration;
  try {
    cal = readCalibrationFile(resolve(io.cwd, path), "--calibration");
  } catch (error) {
    const why = isConfigError(error) ? error.expected : (error as Error).message;
    return { checks: [{ status: "FAIL", what: "threshold", detail: `cannot read ${path}: ${why}`, fix: "point --calibration at the calibration.json written by groundwatch calibrate" }] };
  }
  const auroc = cal.auroc ? `AUROC ${cal.auroc.value.toFixed(3)} [${cal.auroc.low.toFixed(3)}, ${cal.auroc.high.toFixed(3)}]` : "no AUROC recorded";
  const rel = cal.relevanceThresholds;
  const relevance = rel ? `; relevance thresholds${rel.context !== undefined ? ` context ${rel.context}` : ""}${rel.answer !== undefined ? ` answer ${rel.answer}` : ""}` : "";
  const detail = `${cal.threshold} from ${cal.rows ?? "?"} labels, ${auroc}, ${cal.createdAt ?? ""} (id ${cal.id})${relevance}`;
  const caveats = calibrationCaveats(cal, scoring);
  const checks: Check[] = [];
  if (cal.verdict !== "pass") checks.push({ status: "FAIL", what: "threshold", detail: `${detail}: the labelled set did not establish a signal (${cal.verdict ?? "no verdict"})`, fix: "add labels or fix their direction, then re-run groundwatch calibrate" });
  else if (caveats.length > 0) checks.push({ status: "WARN", what: "threshold", detail: `calibrated ${detail}, but not on evidence about your service (below)` });
  else checks.push({ status: "PASS", what: "threshold", detail: `calibrated ${detail}` });
  for (const c of caveats) checks.push({ status: "WARN", what: "calibration data", detail: c.message });
  const drift = driftReferenceCheck(cal, scoring);
  if (drift) checks.push(drift);
  // What the file claims of its own threshold, counted again from the rows it records.
  const rates = checkClaimedRates(cal);
  if (rates) checks.push(rates);
  return { checks, cal };
}

/** A probe of a URL: 5 s for all of it; a count() answer is a few hundred bytes, anything far above 1 MiB is not Prometheus. */
const PROBE_BOUNDS: HttpBounds = { headersMs: 5000, idleMs: 5000, totalMs: 5000, maxBytes: 1024 * 1024 };

async function checkUrl(what: string, url: string, path: string, fix: string): Promise<Check> {
  try {
    const res = await fetchBounded(`${url.replace(/\/+$/, "")}${path}`, {}, PROBE_BOUNDS);
    // Only the status is wanted: the body is dropped, the connection released.
    res.discard();
    return res.ok ? { status: "PASS", what, detail: `${url}${path} answered ${res.status}` } : { status: "FAIL", what, detail: `${url}${path} answered ${res.status}`, fix };
  } catch (error) {
    return { status: "FAIL", what, detail: `${url}${path}: ${(error as Error).message}`, fix };
  }
}

async function checkPrometheusData(url: string): Promise<Check> {
  try {
    const reply = await fetchBounded(`${url.replace(/\/+$/, "")}/api/v1/query?query=${encodeURIComponent("count(groundwatch_observations_seen_total)")}`, {}, PROBE_BOUNDS);
    const res = JSON.parse(await reply.text()) as { data?: { result?: unknown[] } };
    const found = (res.data?.result?.length ?? 0) > 0;
    return found ? { status: "PASS", what: "groundwatch series", detail: "Prometheus holds groundwatch metrics" } : { status: "WARN", what: "groundwatch series", detail: "Prometheus has no groundwatch_* series yet", fix: "add groundwatch's /metrics (or the OTel Collector's Prometheus exporter) as a scrape target" };
  } catch (error) {
    return { status: "FAIL", what: "groundwatch series", detail: (error as Error).message };
  }
}

/** Runs `groundwatch doctor`; resolves to the exit code. */
export function runDoctor(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("doctor", DOCTOR_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      "sampler-cmd": { type: "string" },
      samples: { type: "string" },
      prompt: { type: "string" },
      timeout: { type: "string" },
      calibration: { type: "string" },
      collector: { type: "string" },
      prometheus: { type: "string" },
      "skip-backend": { type: "boolean" },
      recheck: { type: "string" },
      set: { type: "string" },
      ...BACKEND_FLAGS,
    });
    const recheckRows = numberFlag("recheck", args.recheck, (n) => Number.isInteger(n) && n >= 0, "a whole number") ?? DEFAULT_RECHECK_ROWS;
    const wanted = numberFlag("samples", args.samples, (n) => Number.isInteger(n) && n >= 2, "an integer of at least 2") ?? 5;
    const timeoutS = numberFlag("timeout", args.timeout, (n) => n > 0, "a positive number of seconds") ?? 120;
    const checks: Check[] = [];
    const runtime = args["skip-backend"] ? undefined : await checkOnnxRuntime(args, io);
    if (runtime) checks.push(runtime);
    const loaded = args["skip-backend"] ? undefined : await checkBackend(args, io, requiresProduction(args, io));
    if (loaded) checks.push(...loaded.checks);
    // The calibration file is checked whenever one is given, with or without the backend check.
    if (!args["skip-backend"] || args.calibration !== undefined) {
      const calibration = checkCalibration(args.calibration, io, loaded?.backend);
      checks.push(...calibration.checks);
      // Re-scoring needs the backend that loaded; with --skip-backend there is none.
      if (calibration.cal && loaded?.backend) checks.push(await recheckCalibration(calibration.cal, { rows: recheckRows, set: args.set, scoring: resolveCliScoring(args, io).scoring }, io));
      else if (calibration.cal && args["skip-backend"]) checks.push({ status: "INFO", what: "re-scored sample", detail: "not re-scored (--skip-backend)" });
    }
    for (const c of checks) report(io, c);
    let failures = checks.filter((c) => c.status === "FAIL").length;
    if (args["sampler-cmd"]) failures += await checkSampler(args["sampler-cmd"], wanted, timeoutS, args.prompt, io);
    const remote: Check[] = [];
    if (args.collector) remote.push(await checkUrl("collector", args.collector, "/readyz", "start groundwatch serve (it is ready once its scoring backend has loaded), or fix the URL"));
    if (args.prometheus) {
      const up = await checkUrl("prometheus", args.prometheus, "/-/ready", "start Prometheus, or fix the URL");
      remote.push(up);
      if (up.status === "PASS") remote.push(await checkPrometheusData(args.prometheus));
    }
    for (const c of remote) report(io, c);
    failures += remote.filter((c) => c.status === "FAIL").length;
    const warnings = [...checks, ...remote].filter((c) => c.status === "WARN").length;
    io.stdout.write(failures === 0 ? `READY${warnings ? ` (${warnings} warning(s))` : ""}.\n` : `NOT READY: ${failures} failure(s), ${warnings} warning(s). Fix the failures first.\n`);
    return failures === 0 ? EXIT.ok : EXIT.failure;
  });
}

/** Runs the sampler once and checks its samples; prints its lines and returns the number of failures. */
async function checkSampler(cmd: string, wanted: number, timeoutS: number, promptFlag: string | undefined, io: CommandIo): Promise<number> {
  const prompt = promptFlag ?? DEFAULT_PROMPT;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolvePromise) => {
    const child = spawn(cmd, { shell: true, env: { ...io.env, [DOCTOR_SAMPLER_ENV.prompt]: prompt, [DOCTOR_SAMPLER_ENV.samples]: String(wanted) }, cwd: io.cwd });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutS * 1000);
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", (e) => (stderr += e.message));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, timedOut });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(prompt);
  });
  const failures: string[] = [];
  const line = (status: string, what: string, detail: string): void => {
    io.stdout.write(`[${status}] ${what.padEnd(18)} ${detail}\n`);
  };
  if (run.timedOut) failures.push("timeout");
  if (run.timedOut) line("FAIL", "sampler runs", `no result after ${timeoutS} s`);
  else if (run.code !== 0) {
    failures.push("exit");
    line("FAIL", "sampler runs", `exited ${run.code}: ${sanitizeForTerminal(run.stderr.trim().slice(0, 200))}`);
  } else line("PASS", "sampler runs", `exit 0`);
  const samples = parseSamples(run.stdout);
  if (!run.timedOut && run.code === 0) {
    if (samples.length < wanted) {
      failures.push("count");
      line("FAIL", "sample count", `${samples.length} of ${wanted} samples`);
      io.stdout.write("       -> A short batch hides disagreement. Check for rate limits or partial errors, and that the command prints every sample (one a line, or a JSON array).\n");
    } else line("PASS", "sample count", `${samples.length} samples`);
    const distinct = new Set(samples).size;
    if (samples.length >= 2 && distinct === 1) {
      failures.push("identical");
      line("FAIL", "sample diversity", `${samples.length} samples, 1 distinct string`);
      io.stdout.write(
        "       -> The sampler looks deterministic: temperature 0, a response cache in front of the model, or a fixed seed. Semantic entropy over identical samples is 0 whether or not the model knows the answer. Sample at a temperature near 1.0 with independent draws.\n",
      );
    } else if (samples.length >= 2) line("PASS", "sample diversity", `${distinct} distinct of ${samples.length}`);
  }
  return failures.length;
}
