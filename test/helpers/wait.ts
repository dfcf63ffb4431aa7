/**
 * Waits for an event instead of sleeping: thin wrappers over `vi.waitFor` whose failure message says
 * what was awaited and the last value seen (a bounded wait for background work, not a timing assertion).
 */
import { vi } from "vitest";

export interface WaitOptions {
  /** How long to wait before failing, ms (default 30,000). */
  readonly timeout?: number;
  /** Pause between two looks, ms (default 50). */
  readonly interval?: number;
  /** What else to say on failure (a child's output, a log): called once, when the wait fails. */
  readonly context?: () => string;
}

/** For a child process's background work (scoring, settling, readiness) on a loaded machine: up to 2 minutes, looked at every 100 ms. */
export const BACKGROUND_WORK: WaitOptions = { timeout: 120_000, interval: 100 };

/** The value as the failure message shows it: JSON without any `text` field (a whole /metrics page), cut at 2,000 characters. */
function describeValue(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value, (key, v: unknown) => (key === "text" ? undefined : v));
  } catch {
    json = undefined;
  }
  const s = json ?? String(value);
  return s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}

/**
 * Looks at `get()` until `check` accepts what it returns, and resolves with that value. On timeout
 * it throws `${what}: not reached; last seen …` (or the error `get` last threw).
 */
export async function waitUntil<T>(what: string, get: () => T | Promise<T>, check: (value: T) => boolean, options: WaitOptions = {}): Promise<T> {
  try {
    return await vi.waitFor(
      async () => {
        const value = await get();
        if (!check(value)) throw new Error(`${what}: not reached; last seen ${describeValue(value)}`);
        return value;
      },
      { timeout: options.timeout ?? 30_000, interval: options.interval ?? 50 },
    );
  } catch (e) {
    if (!options.context) throw e;
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${options.context()}`, { cause: e });
  }
}

/** Looks at `get()` until it returns something other than undefined, and resolves with it. */
export async function waitForValue<T>(what: string, get: () => T | undefined | Promise<T | undefined>, options: WaitOptions = {}): Promise<T> {
  return (await waitUntil(what, get, (v) => v !== undefined, options)) as T;
}

/** Looks at `holds()` until it is true (for conditions whose parts are not worth showing on failure). */
export async function waitForCondition(what: string, holds: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  await waitUntil(what, holds, (ok) => ok, options);
}

/** A sleep that records the waits asked for and returns at once. */
export function recordedSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}
