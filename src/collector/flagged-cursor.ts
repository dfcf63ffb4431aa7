/**
 * The cursor of GET /v1/flagged over several replicas: each replica's own ring cursor, by replica
 * name, written `replica:cursor` and joined by commas (`pod-a:123.45.6,pod-b:987.6.5`), in replica
 * order. A replica's ring cursor is `ring.seq.k` (evaluation/flagged-ring.ts), so the text is
 * URL-safe once encoded and isFlaggedCursor accepts it. A replica the cursor does not name reads
 * from its start; a ring cursor alone (from a collector without peers) is the answering replica's own.
 */
import { MERGED_CURSOR_MAX_REPLICAS, isFlaggedCursor } from "../evaluation/flagged-ring.ts";

/** A ring cursor that matches no ring (ring ids are at least 1): the ring reads from its start. */
export const RING_START = "0.0.0";

/** Each replica's ring cursor, by replica name. */
export type ReplicaCursors = ReadonlyMap<string, string>;

/** The cursors of `text` by replica; a ring cursor alone is `self`'s; empty for a text that is not a cursor. */
export function decodeFlaggedCursor(text: string | undefined, self: string): Map<string, string> {
  const out = new Map<string, string>();
  if (text === undefined || !isFlaggedCursor(text)) return out;
  if (!text.includes(":")) return out.set(self, text);
  for (const pair of text.split(",")) {
    const at = pair.lastIndexOf(":");
    out.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return out;
}

/** `self`'s own ring cursor in `text` (a merged cursor or a ring's), else the start. */
export function localCursor(text: string | undefined, self: string): string {
  return decodeFlaggedCursor(text, self).get(self) ?? RING_START;
}

/**
 * The merged cursor of these replicas' cursors, in replica order: those of `first` (the replicas
 * that answered), then `rest` (carried over from the request) while fewer than the most a cursor
 * names (MERGED_CURSOR_MAX_REPLICAS).
 */
export function encodeFlaggedCursor(first: ReplicaCursors, rest: ReplicaCursors = new Map()): string {
  const kept = new Map(first);
  for (const [replica, cursor] of rest) {
    if (kept.size >= MERGED_CURSOR_MAX_REPLICAS) break;
    if (!kept.has(replica)) kept.set(replica, cursor);
  }
  const names = [...kept.keys()].sort().slice(0, MERGED_CURSOR_MAX_REPLICAS);
  return names.map((name) => `${name}:${kept.get(name) ?? RING_START}`).join(",");
}
