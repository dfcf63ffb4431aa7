import { diag } from "@opentelemetry/api";

/**
 * Monitors alive in this process, so that creating many is said once. This is process-wide state on
 * purpose, kept on `globalThis` under a registered symbol: the package's ESM and CommonJS builds
 * (and two copies of it) must count into one place, and nothing else reads it.
 */
const KEY = Symbol.for("groundwatch.liveMonitors");

/** Monitors alive at once past which groundwatch warns: each has its own worker threads, caches and queue. */
export const MANY_MONITORS = 4;

interface Registry {
  live: number;
  threads: number;
  warned: boolean;
}

function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  return (g[KEY] ??= { live: 0, threads: 0, warned: false });
}

/**
 * Counts a new monitor with `workers` scoring threads; warns once per process when more than
 * MANY_MONITORS are alive (a monitor created per request or per test, never shut down, holds
 * threads and memory: 50 of them held 50 threads and 2.9 GB). Returns the release, for shutdown
 * (calling it again does nothing).
 */
export function countLiveMonitor(workers: number): () => void {
  const r = registry();
  r.live++;
  r.threads += workers;
  if (r.live > MANY_MONITORS && !r.warned) {
    r.warned = true;
    diag.warn(
      `groundwatch: ${r.live} monitors are alive in this process, with ${r.threads} scoring worker threads between them; each has its own workers, caches and queue. Create one monitor and share it, and call shutdown() on those you no longer use.`,
    );
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    r.live--;
    r.threads -= workers;
  };
}
