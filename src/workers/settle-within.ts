/**
 * Waiting for work with a deadline: the one bounded wait of every shutdown (the collector's requests
 * and listener, its telemetry providers, the SDK's queue).
 */

/** The longest delay a timer holds (2³¹−1 ms, about 24.8 days); Node fires a longer one after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves when `work` settles (fulfilled or rejected, never throwing) or after `ms`, whichever is
 * first. A negative or NaN `ms` waits no longer than a timer of 0; a wait longer than a timer can hold
 * (Infinity included) waits for the work.
 */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  if (ms > MAX_TIMER_MS) return settled;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms > 0 ? ms : 0)))]);
  clearTimeout(timer);
}
