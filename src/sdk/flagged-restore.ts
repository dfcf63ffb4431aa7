import { diag } from "@opentelemetry/api";
import type { ClaimVerdict } from "../core/result.ts";
import { causeLabel } from "../core/cause.ts";
import { isPlainObject } from "../core/plain-object.ts";
import type { FlaggedRing } from "../evaluation/flagged-ring.ts";
import { flaggedEntryMaxBytes } from "../evaluation/flagged-ring.ts";
import type { FlaggedAnswer, FlaggedClaim, FlaggedEvidence, FlaggedSpan } from "../evaluation/types.ts";
import type { SpoolDocument, SpoolRecord } from "../review/record.ts";
import { isSpoolRecord } from "../review/spool-files.ts";
import type { SpoolFileOps, SpoolFileSkip } from "../review/spool-fs.ts";
import { readSpoolNewestFirst } from "../review/spool-tail.ts";
import { capped } from "../telemetry/content-policy.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import { ATTR_REASON } from "../telemetry/semconv.ts";
import type { ResolvedMonitorOptions } from "./options.ts";

/**
 * The flagged ring filled back from the review spool when a monitor starts: this replica's
 * `flagged` records (segments named with its replica name), read from the newest line back and
 * stopped once the ring is full by bytes or the read budget is spent, so a large spool is never
 * read whole. Each is mapped to the ring's entry as `flaggedAnswerOf` would have made it with
 * content capture on (the spool holds content only with it): same trace and span ids, time, route,
 * verdict, score, cause, claims not supported and spans; texts as the spool holds them (redacted
 * when written), capped at contentMaxLength as the ring caps them. Lines `review delete` blanked
 * are skipped (they do not come back), and so are grounded samples (not flags) and answers past the
 * spool's retention (its writer removes them at start). A line that is not
 * a whole record of this version (a write cut by a crash, a corrupt line, fields out of shape) is
 * skipped and counted. Synchronous and bounded: it runs before the monitor takes its first answer.
 */

/** The most bytes of spool read to fill the ring back: 16 × the ring's byte cap, between 1 MiB and 64 MiB. */
export function restoreReadBudget(ringMaxBytes: number): number {
  return Math.min(64 * 1024 * 1024, Math.max(1024 * 1024, 16 * ringMaxBytes));
}

export interface FlaggedRestoreOptions {
  /** The ring to fill (empty: a ring that already holds answers is left as it is). */
  readonly ring: FlaggedRing;
  /** The spool directory and this replica's name (only its segments are read). */
  readonly dir: string;
  readonly replica: string;
  /** The ring's caps (flaggedPerRoute, flaggedMaxBytes): the read stops once the bytes are full. */
  readonly perRoute: number;
  readonly maxBytes: number;
  /** The longest text the ring carries (contentMaxLength). */
  readonly contentMaxLength: number;
  /** The longest line read (the spool's segmentBytes: no record is longer). */
  readonly maxLineBytes: number;
  /** Answers older than this (ms since the epoch) are not filled back: the spool's retention removes them. */
  readonly notBefore?: number;
  /** Most bytes read (default restoreReadBudget(maxBytes)). */
  readonly budgetBytes?: number;
  /** File operations (default node:fs; tests count reads). */
  readonly fs?: SpoolFileOps;
  /** Told of each segment-named file passed over. */
  readonly onSkippedFile?: (path: string, reason: SpoolFileSkip) => void;
}

/** What filling the ring back did. */
export interface FlaggedRestoreResult {
  /** Answers the ring holds after it (all restored). */
  readonly restored: number;
  /** Lines skipped: torn, not JSON, over the line cap, not a record of this version, or a flagged record whose fields are out of shape. */
  readonly unreadable: number;
  readonly bytesRead: number;
  /** Whether it stopped before the oldest line (the ring was full, or the budget spent). */
  readonly stopped: boolean;
  /** The oldest restored answer's time (ms since the epoch); undefined when none. */
  readonly oldestMs: number | undefined;
}

const CLAIM_VERDICTS: ReadonlySet<unknown> = new Set<ClaimVerdict>(["supported", "contradicted", "unsupported", "misattributed"]);
const HEX = /^[0-9a-f]+$/;
const isOffset = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isIndexList = (v: unknown): v is readonly number[] => Array.isArray(v) && v.every(isOffset);
const hexOr = (v: unknown, length: number): string | undefined => (v === undefined ? "0".repeat(length) : typeof v === "string" && v.length === length && HEX.test(v) ? v : undefined);

/** A claim's evidence as the ring shows it: where it lies, and its document's names. */
function evidenceOf(e: unknown, documents: readonly SpoolDocument[], cap: (t: string) => string): { evidence: FlaggedEvidence | null; text?: string } | undefined {
  if (e === undefined) return { evidence: null };
  if (!isPlainObject(e) || !isOffset(e.doc) || !isOffset(e.start) || !isOffset(e.end)) return undefined;
  const d: unknown = documents[e.doc];
  const doc = isPlainObject(d) ? d : {};
  const name = (v: unknown): string | undefined => (typeof v === "string" ? cap(v) : undefined);
  const [id, title, url] = [name(doc.id), name(doc.title), name(doc.url)];
  const text = typeof doc.text === "string" ? doc.text.slice(e.start, e.end) : "";
  return {
    evidence: { doc: e.doc, start: e.start, end: e.end, ...(id !== undefined ? { id } : {}), ...(title !== undefined ? { title } : {}), ...(url !== undefined ? { url } : {}) },
    ...(text ? { text: cap(text) } : {}),
  };
}

/**
 * A flagged spool record as the ring's entry (views.ts `flaggedAnswerOf` with content capture on),
 * or undefined when it is not a flag or a field it needs is out of shape. Texts are capped at `maxLength`.
 */
export function flaggedAnswerOfRecord(r: SpoolRecord, maxLength: number): FlaggedAnswer | undefined {
  const cap = (t: string): string => capped(t, maxLength);
  if (r.kind !== "flagged" || r.verdict !== "ungrounded" || typeof r.route !== "string" || typeof r.time !== "string" || !Number.isFinite(Date.parse(r.time))) return undefined;
  if (!(r.score === null || (typeof r.score === "number" && Number.isFinite(r.score))) || (r.question !== undefined && typeof r.question !== "string")) return undefined;
  const traceId = hexOr(r.traceId, 32);
  const spanId = hexOr(r.spanId, 16);
  if (traceId === undefined || spanId === undefined) return undefined;
  const claims: FlaggedClaim[] = [];
  for (const c of r.claims as readonly unknown[]) {
    if (!isPlainObject(c) || !CLAIM_VERDICTS.has(c.verdict) || !isOffset(c.start) || !isOffset(c.end) || typeof c.text !== "string") return undefined;
    if (c.verdict === "supported") continue;
    if (c.spans !== undefined && !isIndexList(c.spans)) return undefined;
    const evidence = evidenceOf(c.evidence, r.documents, cap);
    if (!evidence) return undefined;
    const cause = causeLabel(c.cause);
    claims.push({
      verdict: c.verdict as ClaimVerdict,
      start: c.start,
      end: c.end,
      evidence: evidence.evidence,
      ...(cause !== undefined && cause !== "mixed" ? { cause } : {}),
      text: cap(c.text),
      ...(evidence.text !== undefined ? { evidenceText: evidence.text } : {}),
      ...(c.reason === "unsupported_span" ? { reason: "unsupported_span" as const } : {}),
      ...(c.spans !== undefined ? { spans: [...c.spans] } : {}),
    });
  }
  let spans: FlaggedSpan[] | undefined;
  if (r.spans !== undefined) {
    if (!Array.isArray(r.spans)) return undefined;
    spans = [];
    for (const s of r.spans as readonly unknown[]) {
      if (!isPlainObject(s) || !isOffset(s.start) || !isOffset(s.end) || typeof s.probability !== "number" || !(s.claim === null || isOffset(s.claim))) return undefined;
      spans.push({ start: s.start, end: s.end, probability: s.probability, claim: s.claim, ...(typeof s.text === "string" ? { text: cap(s.text) } : {}) });
    }
  }
  const cause = causeLabel(r.cause);
  return {
    traceId,
    spanId,
    time: r.time,
    route: r.route,
    verdict: "ungrounded",
    score: r.score,
    ...(cause ? { cause } : {}),
    ...(r.question !== undefined ? { question: cap(r.question) } : {}),
    answer: cap(r.answer),
    claims,
    ...(spans ? { spans } : {}),
  };
}

/** Fills `ring` back from this replica's newest flagged records in the spool; never throws (a spool that cannot be read fills nothing). */
export function restoreFlagged(options: FlaggedRestoreOptions): FlaggedRestoreResult {
  const entryMax = flaggedEntryMaxBytes(options.maxBytes);
  /** Newest first: what the ring will hold, as its caps would keep it. */
  const kept: FlaggedAnswer[] = [];
  const perRoute = new Map<string, number>();
  const ids = new Set<string>();
  let bytes = 0;
  let unreadable = 0;
  if (options.perRoute === 0 || options.maxBytes === 0) return { restored: 0, unreadable, bytesRead: 0, stopped: false, oldestMs: undefined };
  const onLine = (line: { readonly text: string | undefined } | { readonly torn: true }): "stop" | void => {
    if ("torn" in line || line.text === undefined) {
      unreadable++;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.text) as unknown;
    } catch {
      unreadable++;
      return;
    }
    if (!isSpoolRecord(value)) {
      unreadable++;
      return;
    }
    if (value.kind !== "flagged" || ids.has(value.id)) return;
    const entry = flaggedAnswerOfRecord(value, options.contentMaxLength);
    if (!entry) {
      unreadable++;
      return;
    }
    ids.add(value.id);
    if (options.notBefore !== undefined && Date.parse(entry.time) < options.notBefore) return;
    const n = perRoute.get(entry.route) ?? 0;
    // The route already holds its newest perRoute: this older one would be let go.
    if (n >= options.perRoute) return;
    perRoute.set(entry.route, n + 1);
    kept.push(entry);
    bytes += Math.min(JSON.stringify(entry).length, entryMax);
    return bytes >= options.maxBytes ? "stop" : undefined;
  };
  let read = { bytesRead: 0, stopped: false };
  try {
    read = readSpoolNewestFirst(options.dir, options.replica, onLine, {
      budgetBytes: options.budgetBytes ?? restoreReadBudget(options.maxBytes),
      maxLineBytes: options.maxLineBytes,
      ...(options.fs ? { fs: options.fs } : {}),
      ...(options.onSkippedFile ? { onSkippedFile: options.onSkippedFile } : {}),
    });
  } catch {
    // The directory cannot be listed: nothing to fill back (the spool's writer says why).
  }
  kept.reverse();
  options.ring.restore(kept);
  const held = options.ring.size().answers;
  return { restored: held, unreadable, bytesRead: read.bytesRead, stopped: read.stopped, oldestMs: held > 0 ? options.ring.oldest() : undefined };
}

/**
 * The monitor's start with a review spool: fills its ring back (restoreFlagged) under its own caps,
 * counts the segment files passed over as the spool's writer does, and says what it did (diag info:
 * answers, bytes read, milliseconds). Never throws.
 */
export function fillFlaggedRing(ring: FlaggedRing, resolved: ResolvedMonitorOptions, instruments: () => Instruments): FlaggedRestoreResult {
  const review = resolved.review;
  const none: FlaggedRestoreResult = { restored: 0, unreadable: 0, bytesRead: 0, stopped: false, oldestMs: undefined };
  if (!review) return none;
  try {
    const started = performance.now();
    const result = restoreFlagged({
      ring,
      dir: review.dir,
      replica: review.replica,
      perRoute: resolved.flaggedPerRoute,
      maxBytes: resolved.flaggedMaxBytes,
      contentMaxLength: resolved.contentMaxLength,
      maxLineBytes: review.segmentBytes,
      notBefore: Date.now() - review.retentionMs,
      onSkippedFile: (_path, reason) => instruments().reviewFilesSkipped.add(1, { [ATTR_REASON]: reason }),
    });
    const ms = Math.round(performance.now() - started);
    if (result.restored > 0 || result.unreadable > 0) {
      const oldest = result.oldestMs !== undefined ? `, the oldest from ${new Date(result.oldestMs).toISOString()}` : "";
      const skipped = result.unreadable > 0 ? `; ${result.unreadable} unreadable line(s) passed over` : "";
      diag.info(`groundwatch: filled the flagged ring back from the review spool (replica ${review.replica}): ${result.restored} answer(s)${oldest}, ${result.bytesRead} bytes read in ${ms} ms${skipped}`);
    }
    return result;
  } catch (error) {
    diag.error(`groundwatch: the flagged ring could not be filled back from the review spool ${review.dir}: ${(error as Error).message}`);
    return none;
  }
}
