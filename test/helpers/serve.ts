/**
 * `groundwatch serve` as a child process, for the chaos suite: started with the fault injector
 * (test/chaos/fault-injector.cjs) in its own process group, killed when the test ends, with its
 * /metrics read as Prometheus text.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Exit } from "./processes.ts";
import { spawnGroup } from "./processes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Serve {
  readonly url: string;
  readonly pid: number;
  readonly output: () => string;
  readonly exited: Promise<Exit>;
  /** Sends a signal to the process group (SIGUSR2 to the collector alone: the fault injector's cue). */
  readonly signal: (s: NodeJS.Signals) => void;
}

/** How `startServe` starts the process. */
export interface StartServeOptions {
  /** Open files the process may have (its soft RLIMIT_NOFILE, raised by the shell before serve starts; at most the hard limit, else the start fails saying so). */
  readonly openFiles?: number;
}

/** Starts `groundwatch serve ARGS` (offline backend, no model hub); `started` resolves once it listens. */
export function startServe(args: readonly string[], env: Record<string, string>, options: StartServeOptions = {}): { started: Promise<Serve>; exited: Promise<Exit>; output: () => string } {
  const node = [process.execPath, "--require", "./test/chaos/fault-injector.cjs", "bin/groundwatch.js", "serve", ...args];
  // `exec` keeps the process id (and group): the shell only sets the limit.
  const [command, ...rest] = options.openFiles === undefined ? node : ["/bin/sh", "-c", 'ulimit -n "$1" && shift && exec "$@"', "sh", String(options.openFiles), ...node];
  const p = spawnGroup(command ?? process.execPath, rest, {
    cwd: ROOT,
    env: { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", GROUNDWATCH_BACKEND: "offline", ...env },
  });
  const started = p.waitFor(/listening on (https?:\/\/[^\s]+?) /).then(
    (m): Serve => ({ url: m[1] ?? "", pid: p.pid, output: p.output, exited: p.exited, signal: (s) => (s === "SIGUSR2" && p.pid ? process.kill(p.pid, s) : p.signal(s)) }),
  );
  return { started, exited: p.exited, output: p.output };
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
