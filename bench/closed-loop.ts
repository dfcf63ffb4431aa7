/**
 * Closed-loop load for the model-tier bench: each client keeps one observation outstanding (sent and
 * not yet scored) and sends the next when it is scored. An observation is known scored by its route:
 * each client sends under routes of its own (`/bench/c<client>/<k>`, turning over ROUTES_PER_CLIENT
 * of them, so a late answer to a timed-out observation cannot complete a later one), and the monitor
 * reports each completed evaluation with its route.
 */

/** Routes each client turns over (16 clients × 4 = 64, under the default route-label cap of 200). */
const ROUTES_PER_CLIENT = 4;

/** The route of a client's k-th observation. */
export function clientRoute(client: number, k: number): string {
  return `/bench/c${client}/${k % ROUTES_PER_CLIENT}`;
}

/** Observations waiting to be reported scored, by route. */
export interface CompletionWaiter {
  /** Resolves true when `route` is reported scored, false after `timeoutMs`. Call before sending. */
  wait(route: string, timeoutMs: number): Promise<boolean>;
  /** Reports `route` scored. */
  done(route: string): void;
  /** Gives up on `route` (it was refused): its wait resolves false now. */
  cancel(route: string): void;
}

export function completionWaiter(): CompletionWaiter {
  const waiting = new Map<string, (scored: boolean) => void>();
  return {
    wait(route, timeoutMs) {
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(route);
          resolve(false);
        }, timeoutMs);
        // A wait left behind when a cell ends (its process stopped) must not hold this one open.
        timer.unref();
        waiting.set(route, (scored) => {
          clearTimeout(timer);
          waiting.delete(route);
          resolve(scored);
        });
      });
    },
    done(route) {
      waiting.get(route)?.(true);
    },
    cancel(route) {
      waiting.get(route)?.(false);
    },
  };
}

export interface LoopResult {
  /** Observations scored within the timed window. */
  readonly completed: number;
  /** Observations never reported scored (refused, failed, or over the timeout). */
  readonly lost: number;
  /** Send-to-scored latency of each observation scored within the window, ms. */
  readonly latenciesMs: readonly number[];
  readonly elapsedS: number;
}

/**
 * Runs `clients` closed loops: `one(client, k)` sends the client's k-th observation and resolves true
 * once it is scored (false when lost). The first `warmupS` seconds bring the loops to their steady
 * state (all clients start at once: the first observations meet an empty queue) and are not counted;
 * then the window of `seconds` counts what is scored or lost within it. Resolves when the window ends;
 * observations still outstanding then are neither awaited nor counted (the caller stops the process
 * that holds them).
 */
export async function closedLoop(clients: number, warmupS: number, seconds: number, one: (client: number, k: number) => Promise<boolean>): Promise<LoopResult> {
  const latenciesMs: number[] = [];
  let lost = 0;
  const from = performance.now() + warmupS * 1000;
  const end = from + seconds * 1000;
  let open = true;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let k = 0; open && performance.now() < end; k++) {
      const t0 = performance.now();
      const scored = await one(client, k);
      const t1 = performance.now();
      if (!open || t1 > end) break;
      if (t1 < from) continue;
      if (scored) latenciesMs.push(t1 - t0);
      else lost++;
    }
  });
  await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, (warmupS + seconds) * 1000))]);
  open = false;
  return { completed: latenciesMs.length, lost, latenciesMs: [...latenciesMs], elapsedS: seconds };
}

/**
 * The warm-up before a cell's window: about one round of `clients` observations at the latency of a
 * lone one (`loneMs`, measured on the first, so generous), at most `maxS`.
 */
export function warmupSeconds(clients: number, loneMs: number, maxS: number): number {
  return Math.min(maxS, (clients * loneMs) / 1000);
}

/** The q-quantile (0–1) of `values` (nearest rank); NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
