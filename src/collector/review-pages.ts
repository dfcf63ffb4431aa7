import { isPlainObject } from "../core/plain-object.ts";
import type { LabelRecord, SpoolRecord } from "../review/record.ts";
import { isSpoolRecord, parseLabelLine } from "../review/spool-files.ts";
import type { SpoolPosition } from "../review/spool-pages.ts";
import { isSpoolPosition } from "../review/spool-pages.ts";

/**
 * The pages of the review API (GET /v1/review/records and /v1/review/labels): the cursor that says
 * where each replica of a deployment stands, and the checks a peer's page passes before it is merged
 * (a peer's reply is read, never trusted). Every page is bounded: at most `limit` items and about
 * REVIEW_PAGE_MAX_BYTES of lines.
 *
 * The cursor is opaque to clients: base64url of a JSON object, per replica name, where that replica's
 * last page ended (review/spool-pages.ts: a segment and a byte offset, or an offset in the labels
 * file). Every replica reads its own entry of the one cursor the client sends, so a deployment-wide
 * read pages every replica's spool at once, each page reading only its own bytes.
 */

/** The most items a page holds. */
export const REVIEW_PAGE_MAX_LIMIT = 1000;
/** Items a page holds when the request does not say. */
export const REVIEW_PAGE_DEFAULT_LIMIT = 200;
/** About the most bytes of lines one replica's page reads (under the peers' reply cap, 8 MiB by default). */
export const REVIEW_PAGE_MAX_BYTES = 4 * 1024 * 1024;
/** The longest cursor read. */
const MAX_CURSOR_CHARS = 64 * 1024;
/** The most replicas a cursor names. */
const MAX_CURSOR_REPLICAS = 256;

/** Where one replica stands: the segment and byte offset its last page ended at (records), or the offset in its labels file. */
export type ReplicaPosition = SpoolPosition;

/** Where each replica stands, by replica name. */
export type ReviewCursor = ReadonlyMap<string, ReplicaPosition>;

const REPLICA_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Reads a cursor; undefined when it is not one (a 400 naming `after`). An empty one starts every replica at its beginning. */
export function parseCursor(text: string | undefined): ReviewCursor | undefined {
  if (text === undefined || text === "") return new Map();
  if (text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
  if (!isPlainObject(v)) return undefined;
  const entries = Object.entries(v);
  if (entries.length > MAX_CURSOR_REPLICAS) return undefined;
  const out = new Map<string, ReplicaPosition>();
  for (const [replica, p] of entries) {
    const position = positionOf(p);
    if (!REPLICA_NAME.test(replica) || position === undefined) return undefined;
    out.set(replica, position);
  }
  return out;
}

/** A cursor as the client carries it. */
export function formatCursor(cursor: ReviewCursor): string {
  return Buffer.from(JSON.stringify(Object.fromEntries(cursor)), "utf8").toString("base64url");
}

/** A position as a cursor or a peer's reply carries it, checked. */
function positionOf(p: unknown): ReplicaPosition | undefined {
  if (!isPlainObject(p) || (p.seg !== undefined && typeof p.seg !== "string")) return undefined;
  const position = { off: p.off as number, ...(typeof p.seg === "string" ? { seg: p.seg } : {}) };
  return isSpoolPosition(position) ? position : undefined;
}

/** A peer's page as it travels: its items, where it stands, whether it has more. */
export interface PeerPage<T> {
  readonly items: T[];
  readonly position: ReplicaPosition;
  readonly more: boolean;
  readonly unreadable: number;
}

/** A peer's reply to a page request, checked: `items` under `key`, each passing `check` (one that does not fails the reply: bad_reply). */
export function parsePeerPage<T>(body: unknown, key: "records" | "labels", check: (v: unknown) => T | undefined, limit: number): PeerPage<T> {
  if (!isPlainObject(body)) throw new TypeError("not an object");
  const list = body[key];
  const position = positionOf(body.position);
  if (!Array.isArray(list) || list.length > limit || typeof body.more !== "boolean" || position === undefined) throw new TypeError("not a page");
  const items = list.map((e) => {
    const item = isPlainObject(e) ? check(e.record ?? e.label) : undefined;
    if (item === undefined) throw new TypeError("not an item");
    return item;
  });
  const unreadable = Number.isSafeInteger(body.unreadable) && (body.unreadable as number) >= 0 ? (body.unreadable as number) : 0;
  return { items, more: body.more, position, unreadable };
}

/** A spool record as a peer sent it, or undefined. */
export const checkRecord = (v: unknown): SpoolRecord | undefined => (isSpoolRecord(v) ? v : undefined);

/** A label record as a peer sent it (the labels file's own reader), or undefined. */
export function checkLabel(v: unknown): LabelRecord | undefined {
  const line = parseLabelLine(JSON.stringify(v));
  return typeof line === "object" && "label" in line ? line.label : undefined;
}
