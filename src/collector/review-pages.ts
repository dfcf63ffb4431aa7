import { isPlainObject } from "../core/plain-object.ts";
import type { LabelRecord, SpoolRecord } from "../review/record.ts";
import { isSpoolRecord, parseLabelLine } from "../review/spool-files.ts";

/**
 * The pages of the review API (GET /v1/review/records and /v1/review/labels): one replica's page of
 * its spool's records or of its labels file, the cursor that says where each replica of a deployment
 * stands, and the checks a peer's page passes before it is merged (a peer's reply is read, never
 * trusted). Every page is bounded: at most `limit` items and about `maxBytes` of JSON (at least one
 * item, so a page always moves on).
 *
 * The cursor is opaque to clients: base64url of a JSON object, per replica name, how many items of
 * that replica were returned and the id of the last record (records; a record deleted meanwhile by
 * review delete is found again by its id). Every replica reads its own entry of the one cursor the
 * client sends, so a deployment-wide read pages every replica's spool at once.
 */

/** The most items a page holds. */
export const REVIEW_PAGE_MAX_LIMIT = 1000;
/** Items a page holds when the request does not say. */
export const REVIEW_PAGE_DEFAULT_LIMIT = 200;
/** About the most JSON bytes of one replica's page (under the peers' reply cap, 8 MiB by default). */
export const REVIEW_PAGE_MAX_BYTES = 4 * 1024 * 1024;
/** The longest cursor read. */
const MAX_CURSOR_CHARS = 64 * 1024;
/** The most replicas a cursor names. */
const MAX_CURSOR_REPLICAS = 256;

/** Where one replica stands: items returned so far, and the last record's id (records). */
export interface ReplicaPosition {
  readonly n: number;
  readonly id?: string | undefined;
}

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
    if (!REPLICA_NAME.test(replica) || !isPlainObject(p) || !Number.isSafeInteger(p.n) || (p.n as number) < 0) return undefined;
    if (p.id !== undefined && (typeof p.id !== "string" || p.id.length > 1024)) return undefined;
    out.set(replica, { n: p.n as number, ...(typeof p.id === "string" ? { id: p.id } : {}) });
  }
  return out;
}

/** A cursor as the client carries it. */
export function formatCursor(cursor: ReviewCursor): string {
  return Buffer.from(JSON.stringify(Object.fromEntries(cursor)), "utf8").toString("base64url");
}

/** One replica's page: its items, where it stands after them, and whether it has more. */
export interface ReplicaPage<T> {
  readonly items: T[];
  readonly position: ReplicaPosition;
  readonly more: boolean;
}

/** The items after `from`, at most `limit` and about `maxBytes` of JSON (at least one). */
function slice<T>(all: readonly T[], from: number, limit: number, maxBytes: number): { items: T[]; more: boolean } {
  const items: T[] = [];
  let bytes = 0;
  for (let i = from; i < all.length && items.length < limit; i++) {
    const size = Buffer.byteLength(JSON.stringify(all[i]));
    if (items.length > 0 && bytes + size > maxBytes) break;
    items.push(all[i] as T);
    bytes += size;
  }
  return { items, more: from + items.length < all.length };
}

/**
 * A page of a replica's records (spool order) after `position`; "lost" when the position's last
 * record is no longer in the spool (deleted) and cannot be found again: the client starts over.
 */
export function recordsPage(records: readonly SpoolRecord[], position: ReplicaPosition | undefined, limit: number, maxBytes = REVIEW_PAGE_MAX_BYTES): ReplicaPage<SpoolRecord> | "lost" {
  let from = 0;
  if (position !== undefined && position.n > 0) {
    if (position.id === undefined) return "lost";
    from = records[position.n - 1]?.id === position.id ? position.n : records.findIndex((r) => r.id === position.id) + 1;
    if (from === 0) return "lost";
  }
  const { items, more } = slice(records, from, limit, maxBytes);
  const last = items.at(-1);
  return { items, more, position: last ? { n: from + items.length, id: last.id } : { n: from, ...(position?.id !== undefined ? { id: position.id } : {}) } };
}

/** A page of a replica's label records (labels file order) after `position`. */
export function labelsPage(labels: readonly LabelRecord[], position: ReplicaPosition | undefined, limit: number, maxBytes = REVIEW_PAGE_MAX_BYTES): ReplicaPage<LabelRecord> {
  const from = Math.min(position?.n ?? 0, labels.length);
  const { items, more } = slice(labels, from, limit, maxBytes);
  return { items, more, position: { n: from + items.length } };
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
  const pos = body.position;
  if (!Array.isArray(list) || list.length > limit || typeof body.more !== "boolean" || !isPlainObject(pos) || !Number.isSafeInteger(pos.n) || (pos.n as number) < 0) throw new TypeError("not a page");
  if (pos.id !== undefined && typeof pos.id !== "string") throw new TypeError("not a page");
  const items = list.map((e) => {
    const item = isPlainObject(e) ? check(e.record ?? e.label) : undefined;
    if (item === undefined) throw new TypeError("not an item");
    return item;
  });
  const unreadable = Number.isSafeInteger(body.unreadable) && (body.unreadable as number) >= 0 ? (body.unreadable as number) : 0;
  return { items, more: body.more, position: { n: pos.n as number, ...(typeof pos.id === "string" ? { id: pos.id } : {}) }, unreadable };
}

/** A spool record as a peer sent it, or undefined. */
export const checkRecord = (v: unknown): SpoolRecord | undefined => (isSpoolRecord(v) ? v : undefined);

/** A label record as a peer sent it (the labels file's own reader), or undefined. */
export function checkLabel(v: unknown): LabelRecord | undefined {
  const line = parseLabelLine(JSON.stringify(v));
  return typeof line === "object" && "label" in line ? line.label : undefined;
}
