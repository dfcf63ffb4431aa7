/** The real `groundwatch serve` process for the collector benchmarks: start it on a free port, read its memory, its stderr lines and its /metrics. */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
/** Most stderr kept for the message when the process exits before listening. */
const KEPT_STDERR = 64 * 1024;

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Calls `listener` with every later line the process writes to stderr. */
  onLine(listener: (line: string) => void): void;
}

/** Spawns `node bin/groundwatch.js serve --port 0 …args` (env: this process's, then `env`) and resolves once it listens. */
export function startServe(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, ["bin/groundwatch.js", "serve", "--port", "0", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  const listeners: Array<(line: string) => void> = [];
  return new Promise((resolve, reject) => {
    let err = "";
    let partial = "";
    let listening = false;
    child.stderr?.on("data", (d: Buffer) => {
      const text = d.toString();
      if (!listening) {
        err = (err + text).slice(-KEPT_STDERR);
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
        if (m?.[1]) {
          listening = true;
          resolve({ child, port: Number(m[1]), onLine: (listener) => listeners.push(listener) });
        }
        return;
      }
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) for (const listener of listeners) listener(line);
    });
    child.on("exit", (code) => reject(new Error(`collector exited ${code}: ${err}`)));
  });
}

/** A /proc/<pid>/status memory field (VmRSS: now; VmHWM: the peak) in MB; 0 when the process is gone. */
export function procStatusMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The sum of a metric's labelled series in a Prometheus text page (0 when absent); `undefined` with `orUndefined` when no series is there. */
export function metricSum(text: string, name: string): number;
export function metricSum(text: string, name: string, orUndefined: true): number | undefined;
export function metricSum(text: string, name: string, orUndefined?: true): number | undefined {
  const series = [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)`, "gm"))];
  if (series.length === 0 && orUndefined) return undefined;
  return series.reduce((a, m) => a + Number(m[1]), 0);
}

/** Sends the process `signal` (default SIGTERM) and waits for it to exit. */
export async function stopServe(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((res) => child.once("exit", res));
  child.kill(signal);
  await exited;
}
