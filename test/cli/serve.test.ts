import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { tempDir } from "../helpers/cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BAD_MODEL = fileURLToPath(new URL("../fixtures/models/bad-labels/", import.meta.url));
// No hub cache, so `auto` resolves the same on every machine.
const ENV = { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_LOG_LEVEL: "" };

interface Running {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
}

/** Runs the groundwatch binary (dist/, built by the global setup); killed when the test ends if still running. */
function groundwatch(args: readonly string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, ["bin/groundwatch.js", ...args], { cwd: ROOT, env: { ...ENV, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  });
  return { child, output: () => out, exited };
}

/** Resolves with the collector's URL once `serve` says it is listening; rejects if it exits first. */
function listening(run: Running): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.output());
      if (m?.[1]) resolve(m[1]);
    };
    run.child.stderr?.on("data", check);
    check();
    void run.exited.then((code) => reject(new Error(`serve exited ${code} before listening:\n${run.output()}`)));
  });
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

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("groundwatch serve: refusing to start", () => {
  it("says the port is in use and exits 1", async () => {
    const { port } = await tcpServer();
    const run = groundwatch(["serve", "--port", String(port), "--backend", "offline"]);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`groundwatch serve: port ${port} on 127.0.0.1 is already in use\n`);
    expect(run.output()).not.toMatch(/listening|reading 'family'/);
  });

  it("says why the scoring backend could not load and exits 1, never announcing it listens", async () => {
    const run = groundwatch(["serve", "--port", "0", "--backend", "onnx", "--model", BAD_MODEL]);
    expect(await run.exited).toBe(1);
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
    const url = await listening(run);
    const res = await fetch(`${url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ route: "/ask", context: "Returns are accepted within 30 days.", answer: "Returns are accepted within 30 days." }) });
    expect(res.status).toBe(202);
    const signalled = performance.now();
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(DRAIN_MS + MARGIN_MS);
    expect(run.output()).toMatch(new RegExp(`warning: groundwatch collector: OTLP (traces|metrics|logs) export to ${otlp.replace(/\./g, "\\.")}/v1/(traces|metrics|logs) ${failure.source}`));
    expect(run.output()).toMatch(/groundwatch serve: stopped; 1 seen/);
  });
});

describe("groundwatch demo (npm start)", () => {
  it("uses a free port when the one asked for is busy", { timeout: 30_000 }, async () => {
    const { port } = await tcpServer();
    const run = groundwatch(["demo", "--once", "--port", String(port), "--rate", "1000"]);
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain(`groundwatch demo: port ${port} is busy, using a free one\n`);
    expect(run.output()).toMatch(/replayed 120\/120 observations — metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
  });
});
