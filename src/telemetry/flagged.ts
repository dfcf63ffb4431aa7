import type { AnswerCause, AnswerVerdict, ClaimCause, ClaimVerdict } from "../core/result.ts";
import { causeLabel } from "./labels.ts";
import type { FlaggedDropReason } from "./semconv.ts";
import type { EvaluationSummary } from "./summary.ts";

/** One claim of a flagged answer: where it is in the answer, its evidence's document and offsets, and (with content capture) both texts after redaction. */
export interface FlaggedClaim {
  readonly verdict: ClaimVerdict;
  /** Character offsets of the claim in the answer. */
  readonly start: number;
  readonly end: number;
  /** The sentence of the context that bears on the claim: its document's index and offsets (null when none). */
  readonly evidence: { readonly doc: number; readonly start: number; readonly end: number } | null;
  /** Why the claim is not supported (retrieval, generation, citation, unknown), when the answer was attributed. */
  readonly cause?: ClaimCause;
  /** The claim's text, capped and redacted; only with content capture on. */
  readonly text?: string;
  /** The evidence sentence's text, capped and redacted; only with content capture on. */
  readonly evidenceText?: string;
}

/** An answer whose verdict is not grounded, as the ring keeps it. */
export interface FlaggedAnswer {
  /** The evaluation span's trace and span ids (hex). */
  readonly traceId: string;
  readonly spanId: string;
  /** When it was scored (ISO 8601). */
  readonly time: string;
  /** The capped route label. */
  readonly route: string;
  readonly verdict: AnswerVerdict;
  readonly score: number | null;
  /** Why an unscorable answer could not be scored. */
  readonly reason?: string;
  /** Why an ungrounded answer is not grounded (retrieval, generation, citation, mixed, unknown), when relevance is on. */
  readonly cause?: AnswerCause;
  readonly claims: readonly FlaggedClaim[];
}

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

export interface FlaggedRingOptions {
  /** The most recent flagged answers kept per route label (0 keeps none). */
  readonly perRoute: number;
  /** Bytes (characters of their JSON ≈ bytes) kept over all routes; the oldest answers go first (0 keeps none). */
  readonly maxBytes: number;
  /** Clock, ms since the epoch (default Date.now). */
  readonly now?: () => number;
  /** Told of every answer dropped or cut, with why. */
  readonly onDrop?: (reason: FlaggedDropReason) => void;
}

export interface FlaggedRing {
  /** Keeps an answer that is not grounded (a grounded one is ignored). */
  add(entry: Omit<FlaggedAnswer, "time">): void;
  /** Newest first; linear in what the ring holds. */
  read(query?: FlaggedQuery): FlaggedAnswer[];
  /** Answers and bytes held now. */
  size(): { readonly answers: number; readonly bytes: number };
}

interface Held {
  readonly entry: FlaggedAnswer;
  readonly ms: number;
  readonly bytes: number;
  dead: boolean;
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

/** Fits an answer within `max` bytes by dropping its last claims; undefined when even none fit. */
function fit(entry: FlaggedAnswer, max: number): { entry: FlaggedAnswer; bytes: number; cut: boolean } | undefined {
  const claimBytes = entry.claims.map((c) => JSON.stringify(c).length + 1);
  const bare = JSON.stringify({ ...entry, claims: [] }).length;
  let bytes = bare + claimBytes.reduce((n, b) => n + b, 0);
  if (bytes <= max) return { entry, bytes, cut: false };
  if (bare > max) return undefined;
  let kept = claimBytes.length;
  while (kept > 0 && bytes > max) bytes -= claimBytes[--kept] ?? 0;
  return { entry: { ...entry, claims: entry.claims.slice(0, kept) }, bytes, cut: true };
}

/**
 * A bounded ring of the most recent flagged answers: per route label at most `perRoute`, over all of
 * them at most `maxBytes` (one answer at most a sixteenth of it: its last claims are cut to fit).
 * Insertion is amortised O(1): answers are kept in one FIFO in arrival order (for the byte budget)
 * and one per route (for its cap); one evicted from its route is marked and skipped when the FIFO
 * reaches it, and the FIFO is compacted once more of it is dead than alive.
 */
export function createFlaggedRing(options: FlaggedRingOptions): FlaggedRing {
  const now = options.now ?? Date.now;
  const entryMax = Math.max(1024, Math.floor(options.maxBytes / 16));
  const order: Fifo = { items: [], head: 0 };
  const routes = new Map<string, Fifo>();
  let bytes = 0;
  let live = 0;
  const drop = (reason: FlaggedDropReason): void => options.onDrop?.(reason);

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

  return {
    add(raw) {
      if (raw.verdict === "grounded" || options.perRoute === 0 || options.maxBytes === 0) return;
      const ms = now();
      const fitted = fit({ ...raw, time: new Date(ms).toISOString() }, entryMax);
      if (!fitted) return drop("too_large");
      if (fitted.cut) drop("cut");
      const held: Held = { entry: fitted.entry, ms, bytes: fitted.bytes, dead: false };
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
    read(query = {}) {
      const limit = Math.min(Math.max(0, Math.floor(query.limit ?? FLAGGED_DEFAULT_LIMIT)), FLAGGED_MAX_LIMIT);
      const q = query.route === undefined ? order : routes.get(query.route);
      const out: FlaggedAnswer[] = [];
      if (!q) return out;
      for (let i = q.items.length - 1; i >= q.head && out.length < limit; i--) {
        const held = q.items[i];
        if (!held || held.dead) continue;
        if (query.cause !== undefined && held.entry.cause !== query.cause) continue;
        if (query.since !== undefined && held.ms < query.since) continue;
        out.push(held.entry);
      }
      return out;
    },
    size: () => ({ answers: live, bytes }),
  };
}

/**
 * A scored answer as the ring keeps it, or undefined for a grounded one. `capture` (the recording's
 * cap and redaction, record.ts `captureText`) is given only with content capture on; without it the
 * answer carries offsets and no text.
 */
export function flaggedAnswerOf(
  r: EvaluationSummary,
  at: { readonly route: string; readonly traceId: string; readonly spanId: string },
  capture?: (text: string) => string,
): Omit<FlaggedAnswer, "time"> | undefined {
  if (r.verdict === "grounded") return undefined;
  const texts = capture ? r.content : undefined;
  const claims: FlaggedClaim[] = (r.flaggedClaims ?? []).map((c, i) => {
    const text = texts?.claims[i];
    const evidenceText = texts?.evidence[i];
    return {
      verdict: c.verdict,
      start: c.start,
      end: c.end,
      evidence: c.evidence,
      ...(c.cause && causeLabel(c.cause) ? { cause: c.cause } : {}),
      ...(capture && text !== undefined ? { text: capture(text) } : {}),
      ...(capture && evidenceText ? { evidenceText: capture(evidenceText) } : {}),
    };
  });
  const cause = r.verdict === "ungrounded" ? causeLabel(r.cause) : undefined;
  return { traceId: at.traceId, spanId: at.spanId, route: at.route, verdict: r.verdict, score: r.score, ...(r.reason ? { reason: r.reason } : {}), ...(cause ? { cause } : {}), claims };
}
