import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { writeFileSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { startupBanner } from "../../src/cli/serve.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { closedPort } from "../helpers/net.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BAD_MODEL = fileURLToPath(new URL("../fixtures/models/bad-labels/", import.meta.url));
// No hub cache, so `auto` resolves the same on every machine.
const ENV = { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_LOG_LEVEL: "" };

/** Runs the groundwatch binary (dist/, built by the global setup) in its own process group, killed when the test ends if still running. */
function groundwatch(args: readonly string[], env: NodeJS.ProcessEnv = {}): GroupProcess {
  return spawnGroup(process.execPath, ["bin/groundwatch.js", ...args], { cwd: ROOT, env: { ...ENV, ...env } });
}

/** A TCP server closed when the test ends; `onConnection` gets each socket. */
async function tcpServer(onConnection: (socket: Socket) => void = () => undefined): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { server, port: (server.address() as { port: number }).port };
}


describe("groundwatch serve: refusing to start", () => {
  it("says the port is in use and exits 1", async () => {
    const { port } = await tcpServer();
    const run = groundwatch(["serve", "--port", String(port), "--backend", "offline"]);
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toContain(`groundwatch serve: port ${port} on 127.0.0.1 is already in use\n`);
    expect(run.output()).not.toMatch(/listening|reading 'family'/);
  });

  it("says why the scoring backend could not load and exits 1, never announcing it listens", async () => {
    const run = groundwatch(["serve", "--port", "0", "--backend", "onnx", "--model", BAD_MODEL]);
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toMatch(/groundwatch serve: the scoring backend could not start: .*cannot map the labels/);
    // The monitor's own warning reaches stderr through the diag logger the CLI installs.
    expect(run.output()).toMatch(/error: groundwatch: scoring workers failed to start/);
    expect(run.output()).not.toContain("listening");
  });
});

describe("groundwatch serve: SIGTERM with the OTLP endpoint down", () => {
  const DRAIN_MS = 2000;
  // Start-up of node and the worker excluded: from SIGTERM to exit, drainMs plus this much.
  const MARGIN_MS = 3000;

  it.each([
    ["refuses connections (a closed port)", async () => `http://127.0.0.1:${await closedPort()}`, /failed: connect ECONNREFUSED/],
    ["accepts and never answers (a black hole)", async () => `http://127.0.0.1:${(await tcpServer()).port}`, /failed: Request timed out/],
  ])("exits within drainMs when the endpoint %s, and logs the failed export", { timeout: 30_000 }, async (_name, endpoint, failure) => {
    const dir = tempDir();
    const config = join(dir, "groundwatch.json");
    writeFileSync(config, JSON.stringify({ collector: { drainMs: DRAIN_MS } }));
    const otlp = await endpoint();
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--sample-rate", "1", "--config", config], { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, OTEL_METRIC_EXPORT_INTERVAL: "600000" });
    const url = await listeningUrl(run);
    const res = await fetch(`${url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ route: "/ask", context: "Returns are accepted within 30 days.", answer: "Returns are accepted within 30 days." }) });
    expect(res.status).toBe(202);
    const signalled = performance.now();
    run.child.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(DRAIN_MS + MARGIN_MS);
    expect(run.output()).toMatch(new RegExp(`warning: groundwatch collector: OTLP (traces|metrics|logs) export to ${otlp.replace(/\./g, "\\.")}/v1/(traces|metrics|logs) ${failure.source}`));
    expect(run.output()).toMatch(/groundwatch serve: stopped; 1 seen/);
  });
});

/** calibration.json as calibrate writes it for issue 14's failed set: verdict weak, AUROC 0.667 (0.295–1.0), 6 rows. */
function weakCalibration(): string {
  const path = join(tempDir(), "calibration.json");
  writeFileSync(path, JSON.stringify({ version: 1, createdAt: "2026-11-01T00:00:00.000Z", backend: { name: "offline", version: "x", tier: "triage" }, criterion: "youden", threshold: 0.42, dataset: { rows: 6, positives: 3, negatives: 3, unscorable: 0 }, excluded: { unscorable: 0 }, auroc: { value: 0.667, low: 0.295, high: 1, continuityCorrected: false }, verdict: "weak", labelsToSettle: 40, referenceScores: [0.1, 0.2, 0.3, 0.6, 0.7, 0.8] }));
  return path;
}

const BANNER_END = /\n {2}evaluations {2}.*\n/;

// Issue 14: serve printed only "listening"; a failed calibration was accepted silently.
describe("groundwatch serve: start-up banner", () => {
  it("says what it will do: backend and tier, threshold and source, calibration, drift, sampling, queue, auth, bind, OTLP export", { timeout: 30_000 }, async () => {
    const { port: otlpPort } = await tcpServer();
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--sample-rate", "0.5"], { GROUNDWATCH_SAMPLE_ROUTES: "/api/*=1,/health=0", OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpPort}/`, OTEL_METRIC_EXPORT_INTERVAL: "600000" });
    const url = await listeningUrl(run);
    const out = (await run.waitFor(BANNER_END)).input;
    const banner = out.slice(out.indexOf("listening on"));
    expect(banner).toContain("\n  backend      offline, tier triage — TRIAGE-GRADE: not for paging or release decisions");
    expect(banner).toMatch(/\n {2}threshold {4}0\.\d{4} \(backend default\)\n/);
    expect(banner).toContain("\n  calibration  none (the threshold is not backed by a labelled set; see groundwatch calibrate)\n");
    expect(banner).toContain("\n  drift        no reference: each route's first 200 scores become its reference\n");
    expect(banner).toContain("\n  sampling     0.5 by default; /api/*=1, /health=0\n");
    expect(banner).toContain("\n  queue        1000 observations or 64 MiB of text, 1 worker, 30000 ms each; traces: 10000 or 64 MiB joining\n");
    expect(banner).toContain("\n  auth         off (loopback only)\n");
    expect(banner).toContain(`\n  bind         ${url.replace("http://", "")}\n`);
    expect(banner).toContain(`\n  otlp export  traces → http://127.0.0.1:${otlpPort}/v1/traces, metrics → http://127.0.0.1:${otlpPort}/v1/metrics, logs → http://127.0.0.1:${otlpPort}/v1/logs\n`);
    expect(banner).toContain("\n  resampler    off (no live semantic entropy; --resample-url and --resample-model to turn it on)\n");
    expect(banner).toContain("\n  evaluations  not logged (--log-evaluations)\n");
  });

  it("warns about a weak calibration, naming verdict and interval, and runs drift without its too-short reference", { timeout: 30_000 }, async () => {
    const calibration = weakCalibration();
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--calibration", calibration]);
    await listeningUrl(run);
    const out = (await run.waitFor(BANNER_END)).input;
    // Through the monitor's diag warning (what an SDK user gets too) ...
    expect(out).toContain(`warning: groundwatch: the calibration ${calibration} failed (verdict weak, AUROC 0.667): the AUROC's 95% interval (0.295–1.000) includes 0.5`);
    expect(out).toContain("warning: groundwatch: drift runs without a reference: the calibration has 6 reference scores, fewer than drift.minScores (20)");
    // ... and in the banner.
    expect(out).toContain("\n  threshold    0.4200 (calibration)\n");
    expect(out).toContain(`\n  calibration  WEAK — the threshold is not trustworthy: AUROC 0.667 (95% CI 0.295–1.000) on 6 rows, 2026-11-01T00:00:00.000Z (${calibration}, id ${readCalibrationFile(calibration).id}); label more answers (calibrate estimated that about 40 more labelled rows would settle it`);
    expect(out).toContain("\n  drift        no reference (calibration has 6 scores, needs 20): each route's first 200 scores become its reference\n");
  });

  // Issue 36: a calibration on groundwatch's bundled examples read "calibration  pass" in the banner.
  it("calls a calibration on groundwatch's bundled examples a demo, never a pass: not evidence about this service", { timeout: 30_000 }, async () => {
    const calibration = join(tempDir(), "calibration.json");
    expect((await runCli(["calibrate", "--set", join(ROOT, "examples/labelled.jsonl"), "--out", calibration, "--backend", "offline"])).code).toBe(0);
    const env = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
    const banner = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor: resolveMonitorOptions({ env, calibrationFile: calibration, scoring: { backend: "offline" } }), env, logEvaluations: false });
    const line = banner.split("\n").find((l) => l.startsWith("  calibration  ")) ?? "";
    expect(line).toMatch(/^ {2}calibration {2}DEMO — groundwatch's bundled example calibration, not evidence about this service: AUROC \d\.\d{3} /);
    expect(line).not.toMatch(/\bpass\b/);
  });

  it("refuses a weak calibration with --require-valid-calibration, exit 2", async () => {
    const calibration = weakCalibration();
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--calibration", calibration, "--require-valid-calibration"]);
    expect((await run.exited).code).toBe(2);
    expect(run.output()).toContain(`groundwatch serve: invalid calibrationFile: "${calibration}" (its verdict is weak (AUROC 0.667, 95% interval 0.295–1.000), and requireValidCalibration is set`);
    expect(run.output()).not.toContain("listening");
  });
});

describe("groundwatch serve --log-evaluations", () => {
  it("prints each evaluation as it completes: route, verdict, score, claim counts, limits, and no user text", { timeout: 30_000 }, async () => {
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--sample-rate", "1", "--threshold", "0.3", "--log-evaluations"]);
    const url = await listeningUrl(run);
    const banner = (await run.waitFor(BANNER_END)).input;
    expect(banner).toContain("\n  threshold    0.3000 (--threshold)\n");
    expect(banner).toContain("\n  evaluations  logged here as they complete\n");
    const context = "Returns are accepted within 30 days of delivery.";
    const body = [
      { route: "/ask", context, answer: "Returns are accepted within 30 days of delivery." },
      { route: "/ask", context, answer: "Returns are accepted within 90 days of delivery." },
      { route: "/ask", context, answer: "I don't know." },
    ];
    expect((await fetch(`${url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).status).toBe(202);
    const out = (await run.waitFor(/(evaluation route=.*\n[^]*){3}/)).input;
    // The grounded answer is a sentence of its context word for word: supported without a model call, score 1.
    expect(out).toMatch(/groundwatch serve: evaluation route=\/ask grounded score (0\.\d{3}|1\.000) \(threshold 0\.3\); claims 1 supported, 0 contradicted, 0 unsupported; limits none; offline \d+ ms\n/);
    expect(out).toMatch(/groundwatch serve: evaluation route=\/ask ungrounded score 0\.\d{3} \(threshold 0\.3\) cause (retrieval|generation); claims 0 supported, 1 contradicted, 0 unsupported; limits none; offline \d+ ms\n/);
    expect(out).toMatch(/groundwatch serve: evaluation route=\/ask unscorable \(no_checkable_claims\); claims 0 supported, 0 contradicted, 0 unsupported, 1 skipped; limits none; offline \d+ ms\n/);
    expect(out).not.toMatch(/within (30|90) days|I don't know/);
  });

  it("is on with OTEL_LOG_LEVEL=debug", { timeout: 30_000 }, async () => {
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline"], { OTEL_LOG_LEVEL: "debug" });
    await listeningUrl(run);
    expect((await run.waitFor(BANNER_END)).input).toContain("\n  evaluations  logged here as they complete\n");
  });
});

describe("groundwatch demo (npm start)", () => {
  it("uses a free port when the one asked for is busy", { timeout: 30_000 }, async () => {
    const { port } = await tcpServer();
    const run = groundwatch(["demo", "--once", "--port", String(port), "--rate", "1000"]);
    expect((await run.exited).code).toBe(0);
    expect(run.output()).toContain(`groundwatch demo: port ${port} is busy, using a free one\n`);
    expect(run.output()).toMatch(/replayed 120\/120 observations — metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
  });
});

// Issue 15: the collector's resampler (live semantic entropy), in --print-config and the banner.
describe("groundwatch serve: the resampler", () => {
  const FLAGS = ["serve", "--backend", "offline", "--resample-url", "https://api.example.com/v1", "--resample-model", "gpt-test", "--resample-n", "4", "--resample-rate", "0.25", "--resample-temperature", "0.9"];

  it("--print-config shows the resampler, the API key masked", async () => {
    const run = await runCli([...FLAGS, "--print-config"], { env: { GROUNDWATCH_RESAMPLE_API_KEY: "sk-secret-123" } });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("sk-secret-123");
    const printed = JSON.parse(run.stdout) as { collector: { resample: unknown }; secrets: Record<string, string> };
    expect(printed.collector.resample).toEqual({
      url: "https://api.example.com/v1",
      model: "gpt-test",
      n: 4,
      rate: 0.25,
      temperature: 0.9,
      maxTokens: 1024,
      maxConcurrent: 2,
      maxCallsPerMinute: 60,
      timeoutMs: 30_000,
      budget: null,
      apiKey: "***",
      warnings: [],
    });
    expect(printed.secrets.GROUNDWATCH_RESAMPLE_API_KEY).toBe("***");
  });

  it("--print-config reports the bearer token in force: a blank GROUNDWATCH_TOKEN is not one", async () => {
    const blank = JSON.parse((await runCli(["serve", "--backend", "offline", "--print-config"], { env: { GROUNDWATCH_TOKEN: "   " } })).stdout) as { collector: { token: unknown }; secrets: Record<string, string> };
    expect(blank.collector.token).toBeUndefined();
    expect(blank.secrets.GROUNDWATCH_TOKEN).toBe("(not set)");
    const set = JSON.parse((await runCli(["serve", "--backend", "offline", "--print-config"], { env: { GROUNDWATCH_TOKEN: "a-long-enough-bearer-token-0123456789" } })).stdout) as { secrets: Record<string, string> };
    expect(set.secrets.GROUNDWATCH_TOKEN).toBe("***");
  });

  it("--print-config says when it is off, or has no key", async () => {
    const off = JSON.parse((await runCli(["serve", "--backend", "offline", "--print-config"])).stdout) as { collector: { resample: unknown }; secrets: Record<string, string> };
    expect(off.collector.resample).toBeNull();
    expect(off.secrets.GROUNDWATCH_RESAMPLE_API_KEY).toBe("(not set)");
    const noKey = JSON.parse((await runCli([...FLAGS, "--print-config"])).stdout) as { collector: { resample: { apiKey: string; warnings: string[] } } };
    expect(noKey.collector.resample.apiKey).toBe("(not set)");
    expect(noKey.collector.resample.warnings).toEqual(["GROUNDWATCH_RESAMPLE_API_KEY is not set: calling https://api.example.com without an API key"]);
  });

  it.each([
    [["--resample-n", "1"], /--resample-n must be an integer from 2 to 20 \(got "1"\)/],
    [["--resample-rate", "2"], /--resample-rate must be a rate from 0 to 1/],
    [["--resample-temperature", "hot"], /--resample-temperature must be a temperature from 0 to 2/],
    [["--resample-url", "file:///etc/passwd"], /invalid resampleUrl: "file:\/\/\/etc\/passwd" \(expected an http:\/\/ or https:\/\/ URL/],
  ])("refuses %j, exit 2", async (bad, message) => {
    const run = await runCli([...FLAGS, ...bad, "--print-config"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it("refuses a resampler setting without --resample-url, exit 2", async () => {
    const run = await runCli(["serve", "--backend", "offline", "--resample-n", "5", "--print-config"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("invalid resampleN: 5 (a resampler setting without a resampler URL does nothing");
  });

  it("the banner shows the resampler: model, URL, n, rate, temperature, limits, whether a key is set, warnings", () => {
    const env = { HF_HOME: "/nonexistent/groundwatch-test-hf-home", GROUNDWATCH_RESAMPLE_API_KEY: "sk-secret-123" };
    const banner = (extra: Parameters<typeof resolveCollectorOptions>[0]): string =>
      startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env, ...extra }), monitor: resolveMonitorOptions({ env, scoring: { backend: "offline" } }), env, logEvaluations: false });
    const on = banner({ resampleUrl: "https://api.example.com/v1", resampleModel: "gpt-test", resampleN: 4, resampleRate: 0.25 });
    expect(on).toContain("\n  resampler    gpt-test at https://api.example.com/v1: n 4, rate 0.25 of scored observations, temperature 1, at most 60 calls/min, 2 in flight, 30000 ms each; API key set (***)\n");
    expect(on).not.toContain("sk-secret-123");
    const cold = banner({ resampleUrl: "https://api.example.com/v1", resampleModel: "gpt-test", resampleTemperature: 0.2, resampleBudget: 5000 });
    expect(cold).toContain(", 5000 requests in all; API key set (***) — WARNING: the resampler's temperature is 0.2, below 0.5: resamples at a low temperature are near-identical");
    expect(banner({})).toContain("\n  resampler    off (no live semantic entropy; --resample-url and --resample-model to turn it on)\n");
  });
});
