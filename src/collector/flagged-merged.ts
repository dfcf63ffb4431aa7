/**
 * GET /v1/flagged for the whole deployment: this replica's page and every peer's (asked in parallel,
 * each bounded: collector/peers.ts), merged (flagged-merge.ts) and cut at the limit, with a merged
 * cursor (flagged-cursor.ts) and which replicas answered and which did not.
 *
 * Without `after`: each replica's newest answers, newest first over all; the cursor holds each
 * replica's end, so a reader reads on from now. With `after`: each replica's answers after its own
 * part of the cursor, oldest first over all; a replica whose page the limit cut is asked again for
 * exactly what was taken of it (the answers up to its new cursor), so that every answer is read once.
 */
import type { FlaggedPage, FlaggedPageQuery } from "../evaluation/flagged-ring.ts";
import { FLAGGED_DEFAULT_LIMIT, FLAGGED_MAX_LIMIT } from "../evaluation/flagged-ring.ts";
import { RING_START, decodeFlaggedCursor, encodeFlaggedCursor } from "./flagged-cursor.ts";
import type { ReplicaFlaggedAnswer, ReplicaPage } from "./flagged-merge.ts";
import { mergeFlaggedPages, parseFlaggedPage } from "./flagged-merge.ts";
import type { PeerFailure, Peers } from "./peers.ts";

/** The route's path, asked of every peer. */
const FLAGGED_PATH = "/v1/flagged";

/** A reply of GET /v1/flagged: a page, and which replicas it holds the answers of. */
export interface MergedFlaggedReply {
  readonly flagged: ReplicaFlaggedAnswer[];
  readonly cursor: string;
  readonly more: boolean;
  readonly missed: number;
  readonly replicas: { readonly answered: string[]; readonly failed: PeerFailure[] };
  /** True when some peer did not answer: the page lacks its answers. */
  readonly partial: boolean;
}

export interface MergedFlaggedOptions {
  readonly query: FlaggedPageQuery;
  /** This replica's name. */
  readonly self: string;
  /** This replica's page of its ring. */
  readonly page: (query: FlaggedPageQuery) => FlaggedPage;
  readonly peers: Pick<Peers, "fanOut" | "ask">;
}

/** The query a peer is asked: the same parameters (the merged cursor whole: each peer reads its own part). */
function peerQuery(query: FlaggedPageQuery, limit: number, after: string | undefined): URLSearchParams {
  const params = new URLSearchParams();
  if (query.route !== undefined) params.set("route", query.route);
  if (query.cause !== undefined) params.set("cause", query.cause);
  if (query.since !== undefined) params.set("since", new Date(query.since).toISOString());
  params.set("limit", String(limit));
  if (after !== undefined) params.set("after", after);
  return params;
}

/** The deployment's page (see the file's comment). Never rejects for a peer's failure: it is named in `replicas.failed`. */
export async function mergedFlaggedPage(options: MergedFlaggedOptions): Promise<MergedFlaggedReply> {
  const { query, self, peers } = options;
  const limit = Math.min(Math.max(1, Math.floor(query.limit ?? FLAGGED_DEFAULT_LIMIT)), FLAGGED_MAX_LIMIT);
  const parse = (body: unknown): FlaggedPage => parseFlaggedPage(body, limit);
  const fan = await peers.fanOut(FLAGGED_PATH, peerQuery(query, limit, query.after), parse);
  const failed = [...fan.failed];
  const answered = new Map(fan.answered.map((a) => [a.replica, a]));
  const replicasOf = (): MergedFlaggedReply["replicas"] => ({ answered: [self, ...[...answered.keys()].sort()], failed });

  if (query.after === undefined) {
    const pages: ReplicaPage[] = [{ replica: self, page: options.page({ ...query, limit }) }, ...[...answered.values()].map((a) => ({ replica: a.replica, page: a.value }))];
    const merged = mergeFlaggedPages(pages, limit, "newest");
    const cursor = encodeFlaggedCursor(new Map(pages.map((p) => [p.replica, p.page.cursor])));
    return { flagged: merged.flagged, cursor, more: merged.cut || pages.some((p) => p.page.more), missed: 0, replicas: replicasOf(), partial: failed.length > 0 };
  }

  const from = decodeFlaggedCursor(query.after, self);
  const localAfter = from.get(self) ?? RING_START;
  const pages: ReplicaPage[] = [{ replica: self, page: options.page({ ...query, limit, after: localAfter }) }, ...[...answered.values()].map((a) => ({ replica: a.replica, page: a.value }))];
  const merged = mergeFlaggedPages(pages, limit, "oldest");
  const cursors = new Map<string, string>();
  /** The answers of a replica whose page was cut, as asked again: exactly those up to its new cursor. */
  const retaken = new Map<string, readonly ReplicaFlaggedAnswer[] | undefined>();
  let missed = 0;
  let more = merged.cut;
  await Promise.all(
    pages.map(async ({ replica, page }) => {
      const taken = merged.taken.get(replica) ?? 0;
      if (taken === page.flagged.length) {
        cursors.set(replica, page.cursor);
        missed += page.missed;
        more ||= page.more;
        return;
      }
      const before = from.get(replica) ?? RING_START;
      if (taken === 0) {
        // Nothing of it shown: it reads on from where it was.
        cursors.set(replica, before);
        return;
      }
      const again = replica === self ? { replica, value: options.page({ ...query, limit: taken, after: localAfter }) } : await peers.ask(answered.get(replica)?.peer ?? "", FLAGGED_PATH, peerQuery(query, taken, query.after), (b) => parseFlaggedPage(b, taken));
      if ("reason" in again) {
        // Its answers are left out of this page, and read again from where it was next time.
        answered.delete(replica);
        failed.push(again);
        retaken.set(replica, undefined);
        cursors.set(replica, before);
        return;
      }
      retaken.set(replica, again.value.flagged.map((a) => ({ ...a, replica })));
      cursors.set(replica, again.value.cursor);
      missed += again.value.missed;
    }),
  );
  // A cut replica's answers are the ones asked again, in the places its first ones held.
  const queues = new Map([...retaken].map(([replica, answers]) => [replica, [...(answers ?? [])]]));
  const flagged: ReplicaFlaggedAnswer[] = [];
  for (const a of merged.flagged) {
    const queue = queues.get(a.replica);
    if (queue === undefined) flagged.push(a);
    else {
      const next = queue.shift();
      if (next !== undefined) flagged.push(next);
    }
  }
  const partial = failed.length > 0;
  // While some replica is not answering, the cursor keeps the parts of the replicas it named that did not answer now.
  const carried = partial ? new Map([...from].filter(([replica]) => !cursors.has(replica))) : new Map<string, string>();
  return { flagged, cursor: encodeFlaggedCursor(cursors, carried), more, missed, replicas: replicasOf(), partial };
}
