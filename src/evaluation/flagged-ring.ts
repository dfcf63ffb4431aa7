import { randomInt } from "node:crypto";
import type { FlaggedAnswer } from "./types.ts";

/**
 * The ring behind Monitor.flagged and /v1/flagged: the most recent answers that are not grounded,
 * which are the flagged ones (ungrounded) and the unscorable ones. Each entry's `verdict` says which:
 * an unscorable answer is kept to be seen, not counted as a flag. Entries are built by views.ts
 * `flaggedAnswerOf`.
 */

/** Why the ring let an answer go or cut it (groundwatch.reason on groundwatch.flagged.dropped). */
export const FLAGGED_DROP_REASONS = ["route_full", "bytes", "cut", "too_large"] as const;
export type FlaggedDropReason = (typeof FLAGGED_DROP_REASONS)[number];

/** What to read from the ring: every field narrows; newest first. */
export interface FlaggedQuery {
  /** Only this route label. */
  readonly route?: string;
  /** Only answers with this cause. */
  readonly cause?: string;
  /** Only answers scored at or after this time (ms since the epoch). */
  readonly since?: number;
  /** At most this many (default FLAGGED_DEFAULT_LIMIT, capped at FLAGGED_MAX_LIMIT). */
  readonly limit?: number;
}

export const FLAGGED_DEFAULT_LIMIT = 100;
export const FLAGGED_MAX_LIMIT = 1000;

/** What to read on from where a reader left off: a FlaggedQuery and the cursor of its last page. */
export interface FlaggedPageQuery extends FlaggedQuery {
  /**
   * The `cursor` of an earlier page of the same route and cause: only answers kept after it, oldest
   * first. Without it, the newest first (as `read`). A cursor of another ring (the collector
   * restarted) or one that is not a cursor reads from this ring's start.
   */
  readonly after?: string | undefined;
}

/** One page of the ring's answers (flagged or unscorable), and where the next one starts. */
export interface FlaggedPage {
  /** With `after`, the oldest kept after it first; without, the newest first. */
  readonly flagged: FlaggedAnswer[];
  /** Pass it as `after` (with the same route and cause) to read on: after this page, or from now when nothing more is kept. */
  readonly cursor: string;
  /** Whether more answers are kept than this page holds: with `after`, newer ones (read again at once); without, older ones. */
  readonly more: boolean;
  /** With `after`: answers of this route and cause the ring let go (route_full, bytes) after the cursor, before anyone read them. */
  readonly missed: number;
}

/** A cursor as `page` writes it: the ring's identity, the last answer's sequence number, and its position among answers of its route and cause. */
const CURSOR = /^(\d{1,16})\.(\d{1,16})\.(\d{1,16})$/;
/** The most replicas a merged cursor names. */
export const MERGED_CURSOR_MAX_REPLICAS = 64;
/**
 * A merged cursor, as GET /v1/flagged over several replicas writes it: `replica:cursor` pairs joined
 * by commas, one per replica (collector/flagged-cursor.ts). A replica it does not name reads from its start.
 */
const MERGED_CURSOR = new RegExp(`^[A-Za-z0-9_.-]{1,64}:\\d{1,16}\\.\\d{1,16}\\.\\d{1,16}(?:,[A-Za-z0-9_.-]{1,64}:\\d{1,16}\\.\\d{1,16}\\.\\d{1,16}){0,${MERGED_CURSOR_MAX_REPLICAS - 1}}$`);
/** Whether `text` has a cursor's form, a ring's or a merged one (the collector refuses another as a bad parameter). */
export const isFlaggedCursor = (text: string): boolean => CURSOR.test(text) || MERGED_CURSOR.test(text);

export interface FlaggedRingOptions {
  /** The most recent answers not grounded (flagged or unscorable) kept per route label (0 keeps none). */
  readonly perRoute: number;
  /** Bytes (characters of their JSON ≈ bytes) kept over all routes; the oldest answers go first (0 keeps none). */
  readonly maxBytes: number;
  /** Clock, ms since the epoch (default Date.now). */
  readonly now?: () => number;
  /** Told of every answer dropped or cut, with why. */
  readonly onDrop?: (reason: FlaggedDropReason) => void;
  /** This ring's identity in its cursors, a positive integer below 2^48 (default random): a cursor of another ring (a restarted collector) reads from the start. */
  readonly ringId?: number;
}

export interface FlaggedRing {
  /** Keeps an answer that is not grounded (a grounded one is ignored). */
  add(entry: Omit<FlaggedAnswer, "time">): void;
  /** Newest first; linear in what the ring holds. */
  read(query?: FlaggedQuery): FlaggedAnswer[];
  /** A page of answers, the cursor to read on from, and (with `after`) how many were let go unread; linear in what the ring holds. */
  page(query?: FlaggedPageQuery): FlaggedPage;
  /** Answers and bytes held now. */
  size(): { readonly answers: number; readonly bytes: number };
}

interface Held {
  readonly entry: FlaggedAnswer;
  readonly ms: number;
  readonly bytes: number;
  /** Its place among all answers kept (1, 2, …), and among those of its cause, its route, and its route and cause. */
  readonly seq: number;
  readonly causeN: number;
  readonly routeN: number;
  readonly routeCauseN: number;
  dead: boolean;
}

/** Answers kept so far, ever (let go or not): of a route, and of each cause on it. */
interface Tally {
  added: number;
  readonly byCause: Map<string, number>;
}

/** A FIFO: an array read from `head`, compacted when half of it is read (amortised O(1)). */
interface Fifo {
  items: Held[];
  head: number;
}

function shift(q: Fifo): Held | undefined {
  const item = q.items[q.head];
  if (item === undefined) return undefined;
  q.head++;
  if (q.head > 32 && q.head * 2 > q.items.length) {
    q.items = q.items.slice(q.head);
    q.head = 0;
  }
  return item;
}

/**
 * Fits an answer within `max` bytes: whole when it fits; else without its question and answer text
 * and its spans' words, then without its spans, then its last claims dropped; undefined when even
 * none fit. An answer without spans is cut as it always was.
 */
function fit(whole: FlaggedAnswer, max: number): { entry: FlaggedAnswer; bytes: number; cut: boolean } | undefined {
  const wholeBytes = JSON.stringify(whole).length;
  if (wholeBytes <= max) return { entry: whole, bytes: wholeBytes, cut: false };
  const { question: _question, answer: _answer, spans, ...entry } = whole;
  const claimBytes = entry.claims.map((c) => JSON.stringify(c).length + 1);
  const claimsTotal = claimBytes.reduce((n, b) => n + b, 0);
  if (spans) {
    const withSpans = { ...entry, spans: spans.map(({ text: _text, ...s }) => s) };
    const spanned = JSON.stringify({ ...withSpans, claims: [] }).length + claimsTotal;
    if (spanned <= max) return { entry: withSpans, bytes: spanned, cut: true };
  }
  const bare = JSON.stringify({ ...entry, claims: [] }).length;
  let bytes = bare + claimsTotal;
  if (bytes <= max) return { entry, bytes, cut: true };
  if (bare > max) return undefined;
  let kept = claimBytes.length;
  while (kept > 0 && bytes > max) bytes -= claimBytes[--kept] ?? 0;
  return { entry: { ...entry, claims: entry.claims.slice(0, kept) }, bytes, cut: true };
}

/**
 * A bounded ring of the most recent answers not grounded (flagged or unscorable): per route label at most `perRoute`, over all of
 * them at most `maxBytes` (one answer at most a sixteenth of it: its last claims are cut to fit).
 * Insertion is amortised O(1): answers are kept in one FIFO in arrival order (for the byte budget)
 * and one per route (for its cap); one evicted from its route is marked and skipped when the FIFO
 * reaches it, and the FIFO is compacted once more of it is dead than alive.
 *
 * Paging: every answer kept gets the next sequence number and its position among the answers of its
 * cause, of its route, and of both (tallies kept for the ring's life, a few numbers per route label,
 * which route-labels.ts caps). A cursor holds a sequence number and the count of answers of the page's
 * route and cause kept up to it, so between two cursors the answers kept are the difference of their
 * counts, and those of them the ring no longer holds are the ones let go unread.
 */
export function createFlaggedRing(options: FlaggedRingOptions): FlaggedRing {
  const now = options.now ?? Date.now;
  const entryMax = Math.max(1024, Math.floor(options.maxBytes / 16));
  const order: Fifo = { items: [], head: 0 };
  const routes = new Map<string, Fifo>();
  let bytes = 0;
  let live = 0;
  const drop = (reason: FlaggedDropReason): void => options.onDrop?.(reason);
  const epoch = options.ringId ?? randomInt(1, 2 ** 48);
  let seq = 0;
  const causeTallies = new Map<string, number>();
  const routeTallies = new Map<string, Tally>();

  /** How many answers matching the query's route and cause were ever kept. */
  const keptOf = (query: FlaggedQuery): number => {
    if (query.route === undefined) return query.cause === undefined ? seq : (causeTallies.get(query.cause) ?? 0);
    const tally = routeTallies.get(query.route);
    if (!tally) return 0;
    return query.cause === undefined ? tally.added : (tally.byCause.get(query.cause) ?? 0);
  };
  const positionOf = (held: Held, query: FlaggedQuery): number => {
    if (query.route === undefined) return query.cause === undefined ? held.seq : held.causeN;
    return query.cause === undefined ? held.routeN : held.routeCauseN;
  };
  const encode = (at: { readonly seq: number; readonly k: number }): string => `${epoch}.${at.seq}.${at.k}`;
  /** Where a cursor points; this ring's start for one of another ring or one that cannot be this query's. */
  const decode = (cursor: string, query: FlaggedQuery): { seq: number; k: number } => {
    const m = CURSOR.exec(cursor);
    const at = { seq: Number(m?.[2]), k: Number(m?.[3]) };
    if (!m || Number(m[1]) !== epoch || at.seq > seq || at.k > at.seq || at.k > keptOf(query)) return { seq: 0, k: 0 };
    return at;
  };
  /** The index of the first item of `q` kept after sequence number `after` (items are in sequence order). */
  const firstAfter = (q: Fifo, after: number): number => {
    let lo = q.head;
    let hi = q.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((q.items[mid]?.seq ?? Infinity) > after) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const tallyOf = (route: string): Tally => {
    let tally = routeTallies.get(route);
    if (!tally) routeTallies.set(route, (tally = { added: 0, byCause: new Map() }));
    return tally;
  };

  const release = (held: Held): void => {
    held.dead = true;
    bytes -= held.bytes;
    live--;
  };
  const evictOldest = (): void => {
    for (let held = shift(order); held; held = shift(order)) {
      if (held.dead) continue;
      const q = routes.get(held.entry.route);
      if (q) shift(q);
      if (q && q.head >= q.items.length) routes.delete(held.entry.route);
      release(held);
      drop("bytes");
      return;
    }
  };

  const page = (query: FlaggedPageQuery = {}): FlaggedPage => {
    const limit = Math.min(Math.max(0, Math.floor(query.limit ?? FLAGGED_DEFAULT_LIMIT)), FLAGGED_MAX_LIMIT);
    const q = query.route === undefined ? order : routes.get(query.route);
    const ofQuery = (held: Held | undefined): held is Held => held !== undefined && !held.dead && (query.cause === undefined || (held.entry.cause ?? "") === query.cause);
    const inTime = (held: Held): boolean => query.since === undefined || held.ms >= query.since;
    const end = { seq, k: keptOf(query) };
    const out: FlaggedAnswer[] = [];
    let more = false;
    if (query.after === undefined) {
      for (let i = (q?.items.length ?? 0) - 1; q && i >= q.head; i--) {
        const held = q.items[i];
        if (!ofQuery(held) || !inTime(held)) continue;
        if (out.length === limit) {
          more = true;
          break;
        }
        out.push(held.entry);
      }
      return { flagged: out, cursor: encode(end), more, missed: 0 };
    }
    const from = decode(query.after, query);
    // Answers of the query still kept up to the page's end: those returned, and those before `since`.
    let kept = 0;
    let beforeSince = 0;
    let last: Held | undefined;
    for (let i = q ? firstAfter(q, from.seq) : 0; q && i < q.items.length; i++) {
      const held = q.items[i];
      if (!ofQuery(held)) continue;
      if (!inTime(held)) {
        beforeSince++;
        continue;
      }
      if (out.length === limit) {
        more = true;
        break;
      }
      out.push(held.entry);
      kept += beforeSince + 1;
      beforeSince = 0;
      last = held;
    }
    if (more && !last) return { flagged: out, cursor: encode(from), more, missed: 0 };
    const to = more && last ? { seq: last.seq, k: positionOf(last, query) } : end;
    if (!more) kept += beforeSince;
    return { flagged: out, cursor: encode(to), more, missed: Math.max(0, to.k - from.k - kept) };
  };

  return {
    add(raw) {
      if (raw.verdict === "grounded" || options.perRoute === 0 || options.maxBytes === 0) return;
      const ms = now();
      const fitted = fit({ ...raw, time: new Date(ms).toISOString() }, entryMax);
      if (!fitted) return drop("too_large");
      if (fitted.cut) drop("cut");
      const cause = fitted.entry.cause ?? "";
      const tally = tallyOf(fitted.entry.route);
      const causeN = (causeTallies.get(cause) ?? 0) + 1;
      const routeCauseN = (tally.byCause.get(cause) ?? 0) + 1;
      causeTallies.set(cause, causeN);
      tally.byCause.set(cause, routeCauseN);
      tally.added++;
      const held: Held = { entry: fitted.entry, ms, bytes: fitted.bytes, seq: ++seq, causeN, routeN: tally.added, routeCauseN, dead: false };
      let q = routes.get(held.entry.route);
      if (!q) routes.set(held.entry.route, (q = { items: [], head: 0 }));
      q.items.push(held);
      order.items.push(held);
      bytes += held.bytes;
      live++;
      if (q.items.length - q.head > options.perRoute) {
        const oldest = shift(q);
        if (oldest) release(oldest);
        drop("route_full");
      }
      while (bytes > options.maxBytes && live > 0) evictOldest();
      if (order.items.length - order.head > 2 * live + 32) {
        order.items = order.items.slice(order.head).filter((h) => !h.dead);
        order.head = 0;
      }
    },
    read: (query = {}) => page({ ...query, after: undefined }).flagged,
    page,
    size: () => ({ answers: live, bytes }),
  };
}
