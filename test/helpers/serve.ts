/**
 * `groundwatch serve` as a child process, for the chaos suite: started with the fault injector
 * (test/chaos/fault-injector.cjs) in its own process group, killed when the test ends, with its
 * /metrics read as Prometheus text.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Serve {
  readonly url: string;
  readonly pid: number;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; at: number }>;
  /** Sends a signal to the process group (SIGUSR2 to the collector alone: the fault injector's cue). */
  readonly signal: (s: NodeJS.Signals) => void;
}

/** Starts `groundwatch serve ARGS` (offline backend, no model hub); `started` resolves once it listens. */
export function startServe(args: readonly string[], env: Record<string, string>): { started: Promise<Serve>; exited: Promise<{ code: number | null; at: number }>; output: () => string } {
  const child = spawn(process.execPath, ["--require", "./test/chaos/fault-injector.cjs", "bin/groundwatch.js", "serve", ...args], {
    cwd: ROOT,
    env: { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", GROUNDWATCH_BACKEND: "offline", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((r) => child.on("exit", (code) => r({ code, at: Date.now() })));
  const signal = (s: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, s);
    } catch {
      // gone
    }
  };
  onTestFinished(() => signal("SIGKILL"));
  const started = new Promise<Serve>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
    const check = (): void => {
      const m = /listening on (http:\/\/[^\s]+?) /.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ url: m[1], pid: child.pid ?? 0, output: () => out, exited, signal: (s) => (s === "SIGUSR2" && child.pid ? process.kill(child.pid, s) : signal(s)) });
      }
    };
    child.stderr.on("data", check);
    child.stdout.on("data", check);
    void exited.then(({ code }) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  return { started, exited, output: () => out };
}

/** Resident memory of a process, bytes. */
export function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) * 1024;
}

/** POSTs a body; resolves with the status once the answer is read. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string> = { "content-type": "application/json" }): Promise<number> {
  const res = await fetch(url, { method: "POST", headers, body });
  await res.arrayBuffer();
  return res.status;
}

/** Sum of a Prometheus counter over all label sets, optionally only those whose labels include `match`. */
export function metric(text: string, name: string, match = ""): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (match && !line.includes(match)) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/** The observation counters of the accounting identity, summed over routes and reasons, with the whole /metrics text. */
export interface Tally {
  seen: number;
  sampled: number;
  notSampled: number;
  scored: number;
  dropped: number;
  failed: number;
  text: string;
}

export async function tally(url: string, headers: Record<string, string> = {}): Promise<Tally> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  return {
    seen: metric(text, "groundwatch_observations_seen_total"),
    sampled: metric(text, "groundwatch_observations_sampled_total"),
    notSampled: metric(text, "groundwatch_observations_not_sampled_total"),
    scored: metric(text, "groundwatch_observations_scored_total"),
    dropped: metric(text, "groundwatch_observations_dropped_total"),
    failed: metric(text, "groundwatch_observations_failed_total"),
    text,
  };
}

/**
 * Polls `get` until `check` holds (a bounded wait for the collector's background work, not a timing
 * assertion); throws naming `what` and the last value seen (without the /metrics text) when `ms` pass.
 */
export async function until<T>(what: string, get: () => Promise<T>, check: (t: T) => boolean, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await get();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not reached; last ${JSON.stringify(last, (k, v: unknown) => (k === "text" ? undefined : v))}`);
}
