import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_COLLECTOR_PORT } from "../collector/options.ts";
import { ListenError, startCollector } from "../collector/server.ts";
import type { RunningCollector } from "../collector/server.ts";
import { fetchBounded } from "../net/bounded-fetch.ts";
import { numberFlag, parseFlags, runCommand } from "./shared/command.ts";
import { EXIT } from "./shared/exit-codes.ts";
import type { CommandIo } from "./shared/io.ts";
import { parsePromText, summariseRoutes } from "./shared/prom-text.ts";

const DEFAULT_TRAFFIC = fileURLToPath(new URL("../../examples/traffic.jsonl", import.meta.url));

export const DEMO_HELP = `groundwatch demo — the collector on localhost, fed bundled example traffic

Usage:
  groundwatch demo [--traffic FILE] [--rate N] [--port P] [--once]

Starts the collector (embedded default backend unless a model is cached), replays FILE (default
examples/traffic.jsonl: grounded and hallucinated answers over three routes, some with resamples)
through POST /v1/observations at N rows a second (default 20), and shows the live per-route
hallucination rate and mean groundedness, read back from the collector's /metrics.
Ctrl-C stops it; --once exits after the replay has been scored.
`;

function table(samples: ReturnType<typeof parsePromText>, sent: number, total: number, metricsUrl: string): string {
  const summaries = summariseRoutes(samples);
  const backend = samples.find((s) => s.name === "groundwatch_evaluations_total")?.labels;
  const tier = backend?.groundwatch_backend_tier;
  const lines = [
    `replayed ${sent}/${total} observations — metrics: ${metricsUrl}`,
    backend ? `backend: ${backend.groundwatch_backend_name} (${tier})${tier === "triage" ? " — TRIAGE-GRADE: run `groundwatch model pull` for a production NLI model" : ""}` : "backend: loading…",
    "", `${"route".padEnd(16)} ${"scored".padStart(6)} ${"hallucination".padStart(13)} ${"groundedness".padStart(12)} ${"unscorable".padStart(10)}`];
  for (const s of summaries) {
    lines.push(`${s.route.padEnd(16)} ${String(s.grounded + s.ungrounded + s.unscorable).padStart(6)} ${`${(100 * s.hallucinationRate).toFixed(1)}%`.padStart(13)} ${s.meanScore.toFixed(3).padStart(12)} ${String(s.unscorable).padStart(10)}`);
  }
  return lines.join("\n") + "\n";
}

async function startOn(port: number, io: CommandIo): Promise<RunningCollector> {
  const options = { env: io.env, monitor: { sampling: { default: 1 } } };
  try {
    return await startCollector({ ...options, port });
  } catch (error) {
    if (!(error instanceof ListenError && error.systemCode === "EADDRINUSE")) throw error;
    io.stderr.write(`groundwatch demo: port ${port} is busy, using a free one\n`);
    return startCollector({ ...options, port: 0 });
  }
}

/** Runs `groundwatch demo`; resolves to the exit code. */
export function runDemo(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("demo", DEMO_HELP, io, async () => {
    const { values: args } = parseFlags(argv, { traffic: { type: "string" }, rate: { type: "string" }, port: { type: "string" }, once: { type: "boolean" } });
    const rate = numberFlag("rate", args.rate, (n) => n > 0 && n <= 10_000, "a positive number of rows a second") ?? 20;
    const port = numberFlag("port", args.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number") ?? DEFAULT_COLLECTOR_PORT;
    const rows = readFileSync(args.traffic ? resolve(io.cwd, args.traffic) : DEFAULT_TRAFFIC, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
    const collector = await startOn(port, io);
    await collector.monitor.ready();
    const metricsUrl = `${collector.url}/metrics`;
    io.stderr.write(`groundwatch demo: collector on ${collector.url}; replaying ${rows.length} observations\n`);
    const tty = io.stdout.isTTY === true;
    let sent = 0;
    const draw = async (): Promise<void> => {
      const text = await (await fetchBounded(metricsUrl)).text();
      const out = table(parsePromText(text), sent, rows.length, metricsUrl);
      io.stdout.write(tty ? `\u001b[2J\u001b[H${out}` : out);
    };
    let stopping = false;
    const stop = new Promise<void>((resolveStop) => {
      const onSignal = (): void => {
        stopping = true;
        resolveStop();
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
    });
    const timer = tty ? setInterval(() => void draw().catch(() => undefined), 1000) : undefined;
    for (const row of rows) {
      if (stopping) break;
      const res = await fetchBounded(`${collector.url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: row });
      const reply = await res.text({ truncate: true });
      if (res.status === 429) await new Promise((r) => setTimeout(r, 1000));
      else if (res.status !== 202) io.stderr.write(`groundwatch demo: a row was refused (${res.status}): ${reply}\n`);
      sent++;
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    await collector.monitor.flush();
    await draw();
    if (!args.once && !stopping) {
      io.stderr.write(`groundwatch demo: replay done; the collector keeps serving ${metricsUrl} — Ctrl-C to stop\n`);
      await stop;
    }
    clearInterval(timer);
    await collector.close(5000);
    return EXIT.ok;
  });
}
