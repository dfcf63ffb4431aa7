/**
 * The pages of GET /v1/flagged of several replicas, merged into one: a peer's page validated first
 * (parseFlaggedPage: never trusted to be well-formed), then the replicas' answers interleaved by time
 * (newest first; with `after`, oldest first), each replica's own order kept, ties broken by replica
 * name, and cut at the query's limit.
 */
import type { FlaggedPage } from "../evaluation/flagged-ring.ts";
import { isFlaggedCursor } from "../evaluation/flagged-ring.ts";
import type { FlaggedAnswer } from "../evaluation/types.ts";
import { isPlainObject } from "../core/plain-object.ts";

/** One answer of a merged page: the replica that holds it added. */
export type ReplicaFlaggedAnswer = FlaggedAnswer & { readonly replica: string };

/** One replica's page. */
export interface ReplicaPage {
  readonly replica: string;
  readonly page: FlaggedPage;
}

/** The longest id, route or time text an answer from a peer may carry (the ring's are far shorter). */
const MAX_FIELD_CHARS = 1024;

const shortString = (v: unknown): v is string => typeof v === "string" && v.length <= MAX_FIELD_CHARS;

/** Whether `v` is an answer as a ring keeps it: the fields the merge and its readers rely on, typed. */
function isFlaggedAnswer(v: unknown): v is FlaggedAnswer {
  if (!isPlainObject(v)) return false;
  const a = v as Record<string, unknown>;
  return (
    shortString(a.traceId) &&
    shortString(a.spanId) &&
    shortString(a.route) &&
    shortString(a.verdict) &&
    shortString(a.time) &&
    Number.isFinite(Date.parse(a.time)) &&
    (a.score === null || typeof a.score === "number") &&
    Array.isArray(a.claims) &&
    (a.cause === undefined || shortString(a.cause)) &&
    (a.question === undefined || typeof a.question === "string") &&
    (a.answer === undefined || typeof a.answer === "string") &&
    (a.spans === undefined || Array.isArray(a.spans))
  );
}

/**
 * A peer's reply to GET /v1/flagged read as a page: `flagged` a list of at most `limit` answers,
 * `cursor` a ring's cursor, `more` a boolean, `missed` a count. Throws on anything else (the caller
 * names the peer's reply bad_reply). An answer's `replica` field, if any, is dropped: the merge sets it.
 */
export function parseFlaggedPage(body: unknown, limit: number): FlaggedPage {
  if (!isPlainObject(body)) throw new Error("not an object");
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.flagged) || b.flagged.length > limit) throw new Error("flagged: not a list within the limit");
  if (typeof b.cursor !== "string" || b.cursor.includes(":") || !isFlaggedCursor(b.cursor)) throw new Error("cursor: not a ring's cursor");
  if (typeof b.more !== "boolean") throw new Error("more: not a boolean");
  if (typeof b.missed !== "number" || !Number.isSafeInteger(b.missed) || b.missed < 0) throw new Error("missed: not a count");
  const flagged: FlaggedAnswer[] = [];
  for (const entry of b.flagged) {
    if (!isFlaggedAnswer(entry)) throw new Error("flagged: an entry is not an answer");
    const { replica: _replica, ...answer } = entry as FlaggedAnswer & { replica?: unknown };
    flagged.push(answer);
  }
  return { flagged, cursor: b.cursor, more: b.more, missed: b.missed };
}

/** The merge of replicas' pages: the answers, and how many of each replica's page it took. */
export interface MergedAnswers {
  readonly flagged: ReplicaFlaggedAnswer[];
  /** Answers taken of each replica's page (a prefix of it), by replica. */
  readonly taken: ReadonlyMap<string, number>;
  /** Whether an answer of some page was left out for the limit. */
  readonly cut: boolean;
}

/**
 * Interleaves the pages' answers: newest first (`order` "newest"), or oldest first ("oldest": pages
 * read with `after`), by time, then replica name; each page's own order kept, so what is taken of a
 * page is always a prefix of it. At most `limit` answers. Linear in the answers times the replicas.
 */
export function mergeFlaggedPages(pages: readonly ReplicaPage[], limit: number, order: "newest" | "oldest"): MergedAnswers {
  const sign = order === "newest" ? -1 : 1;
  const heads = pages.map((p) => ({ replica: p.replica, items: p.page.flagged, at: 0 }));
  const flagged: ReplicaFlaggedAnswer[] = [];
  const taken = new Map<string, number>(pages.map((p) => [p.replica, 0]));
  while (flagged.length < limit) {
    let best: (typeof heads)[number] | undefined;
    let bestMs = 0;
    for (const h of heads) {
      const item = h.items[h.at];
      if (item === undefined) continue;
      const ms = Date.parse(item.time);
      if (best === undefined || sign * (ms - bestMs) < 0 || (ms === bestMs && h.replica < best.replica)) {
        best = h;
        bestMs = ms;
      }
    }
    const item = best?.items[best.at];
    if (best === undefined || item === undefined) break;
    best.at++;
    taken.set(best.replica, best.at);
    flagged.push({ ...item, replica: best.replica });
  }
  const cut = heads.some((h) => h.at < h.items.length);
  return { flagged, taken, cut };
}
