import type { Express, NextFunction, Request, Response } from "express";
import { isPlainObject } from "../../core/plain-object.ts";
import type { LabelRecord } from "../../review/record.ts";
import { appendLabel, labelsPath, readLabelRecords } from "../../review/spool-files.ts";
import type { SeenLabel } from "../../review/store.ts";
import { unseenLabels } from "../../review/store.ts";
import { readJsonBody } from "../body.ts";
import { PEER_HEADER, REPLICA_HEADER } from "../peers.ts";
import type { Refusal } from "../refuse.ts";
import type { PeerPage, ReplicaPosition } from "../review-pages.ts";
import { REVIEW_PAGE_DEFAULT_LIMIT, REVIEW_PAGE_MAX_BYTES, REVIEW_PAGE_MAX_LIMIT, checkLabel, checkRecord, formatCursor, parseCursor, parsePeerPage } from "../review-pages.ts";
import type { SpoolPage } from "../../review/spool-pages.ts";
import { createSpoolIndex, readLabelsPage, readRecordsPage } from "../../review/spool-pages.ts";

/**
 * The review API: a deployment's review spools read and labelled over the collector's authenticated
 * API, so `groundwatch review`, `review export` and `evidence` need no shared file system (--url).
 * Mounted behind the collector's bearer auth; without a review spool every path is a 404 naming
 * --review-dir.
 *
 *   GET  /v1/review/records?after=&limit=  the spool's answers, in spool order per replica, paged
 *   GET  /v1/review/labels?after=&limit=   the labels files' records, in the order written, paged
 *
 * Pages read only their own bytes of the files (review/spool-pages.ts), so a whole read costs one
 * read of the spool; which answers a replica holds is kept in an index read on as segments grow.
 *   POST /v1/review/labels                 {label, seen}: a label, written by the replica that holds the answer
 *   GET  /v1/review/holds?id=              (between replicas) whether this replica's spool has the answer
 *
 * A request from a client is answered for the whole deployment: the replica asks its peers (each
 * reading its own entry of the one cursor), merges, and says which replicas answered and which did
 * not (`replicas`, `partial`). A peer's request (x-groundwatch-peer: 1) is answered from this
 * replica alone. A label goes to the replica whose spool holds the answer, which applies the
 * conflict rule (review/store.ts): 409 with the labels of others the reviewer had not seen.
 */

/** The largest label request read: a label with its claims, spans and what the reviewer has seen. */
export const REVIEW_LABEL_MAX_BODY = 64 * 1024;
/** The most labels of others a request may say the reviewer has seen. */
const MAX_SEEN = 1000;

/** A peer that did not answer usably, as the peers module says it. */
export interface ReviewPeerFailure {
  readonly peer: string;
  readonly replica?: string;
  readonly reason: string;
}

/** One peer's answer, as the peers module says it: its replica, the parsed value, and the base URL this replica called it at. */
export interface ReviewPeerAnswer<T> {
  readonly replica: string;
  readonly value: T;
  readonly peer: string;
}

/** The peers, as the review API uses them (collector/peers.ts): calls bounded, authenticated (as a peer) and counted. */
export interface ReviewPeers {
  readonly configured: boolean;
  fanOut<T>(path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<{ readonly local: string; readonly answered: ReadonlyArray<ReviewPeerAnswer<T>>; readonly failed: readonly ReviewPeerFailure[] }>;
  post<T>(peer: string, path: string, body: unknown, parse: (body: unknown, status: number) => T): Promise<ReviewPeerAnswer<T> | ReviewPeerFailure>;
}

export interface ReviewRoutesOptions {
  readonly refusal: Refusal;
  /** The review spool directory (monitor.review.dir); undefined: every path is a 404 naming --review-dir. */
  readonly reviewDir: string | undefined;
  /** This replica's name (the spool's replica). */
  readonly replica: string;
  /** The other replicas of the deployment, when configured (a label is forwarded through them too). */
  readonly peers?: ReviewPeers | undefined;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** Adds the review API (see the file's comment). */
export function addReviewRoutes(app: Express, options: ReviewRoutesOptions): void {
  const { refusal, reviewDir, replica } = options;
  const wrap =
    (handler: Handler) =>
    (req: Request, res: Response, next: NextFunction): void => {
      res.setHeader(REPLICA_HEADER, replica);
      res.setHeader("Cache-Control", "no-store");
      if (reviewDir === undefined) return refusal.refuse(req, res, 404, { error: "this collector keeps no review spool: start it with --review-dir DIR (or monitor.review.dir) to review its answers over the API" });
      handler(req, res).catch(next);
    };
  const fromPeer = (req: Request): boolean => req.headers[PEER_HEADER] === "1";
  const fanOut = (req: Request): ReviewPeers | undefined => (options.peers?.configured === true && !fromPeer(req) ? options.peers : undefined);
  const badRequest = (req: Request, res: Response, error: string): void => refusal.refuse(req, res, 400, { error });

  /** `limit` and `after` of a page request, or the error. */
  const pageQuery = (req: Request): { limit: number; cursor: Map<string, ReplicaPosition> } | string => {
    const rawLimit = req.query.limit;
    const limit = rawLimit === undefined ? REVIEW_PAGE_DEFAULT_LIMIT : typeof rawLimit === "string" && /^\d{1,9}$/.test(rawLimit) && Number(rawLimit) >= 1 ? Math.min(Number(rawLimit), REVIEW_PAGE_MAX_LIMIT) : undefined;
    if (limit === undefined) return "limit: expected an integer from 1 (at most 1000 are sent)";
    const after = req.query.after;
    const cursor = after === undefined || typeof after === "string" ? parseCursor(after) : undefined;
    if (cursor === undefined) return "after: expected the cursor of an earlier reply";
    return { limit, cursor: new Map(cursor) };
  };

  /** Answers a page request: this replica's page, and (to a client) every peer's, merged. */
  const paged = <T>(key: "records" | "labels", localPage: (position: ReplicaPosition | undefined, limit: number) => SpoolPage<T>, check: (v: unknown) => T | undefined): Handler => {
    return async (req, res) => {
      const q = pageQuery(req);
      if (typeof q === "string") return badRequest(req, res, q);
      const local = localPage(q.cursor.get(replica), q.limit);
      const item = (from: string, value: T): Record<string, unknown> => ({ replica: from, [key === "records" ? "record" : "label"]: value });
      const items = local.items.map((v) => item(replica, v));
      const cursor = new Map(q.cursor).set(replica, local.position);
      let more = local.more;
      let unreadable = local.unreadable;
      const answered = [replica];
      let failed: readonly ReviewPeerFailure[] = [];
      const peers = fanOut(req);
      if (peers) {
        const query = new URLSearchParams({ limit: String(q.limit), ...(typeof req.query.after === "string" && req.query.after !== "" ? { after: req.query.after } : {}) });
        const out = await peers.fanOut(`/v1/review/${key}`, query, (body): PeerPage<T> => parsePeerPage(body, key, check, q.limit));
        for (const a of out.answered) {
          items.push(...a.value.items.map((v) => item(a.replica, v)));
          cursor.set(a.replica, a.value.position);
          more ||= a.value.more;
          unreadable += a.value.unreadable;
          answered.push(a.replica);
        }
        failed = out.failed;
      }
      res.json({ replica, [key]: items, position: local.position, cursor: formatCursor(cursor), more, unreadable, replicas: { answered, failed }, partial: failed.length > 0 });
    };
  };

  const labelsFile = (): string => labelsPath(reviewDir as string);
  const labels = (): ReturnType<typeof readLabelRecords> => readLabelRecords(labelsFile());
  /** Which answers this replica's spool holds, read on as segments grow (a label's holder, without reading the spool per request). */
  const index = reviewDir === undefined ? undefined : createSpoolIndex(reviewDir);
  const holds = (id: string): boolean => index?.holds(id) ?? false;

  app.get("/v1/review/records", refusal.auth, wrap(paged("records", (position, limit) => readRecordsPage(reviewDir as string, position, limit, REVIEW_PAGE_MAX_BYTES), checkRecord)));
  app.get("/v1/review/labels", refusal.auth, wrap(paged("labels", (position, limit) => readLabelsPage(labelsFile(), position, limit, REVIEW_PAGE_MAX_BYTES), checkLabel)));
  app.get(
    "/v1/review/holds",
    refusal.auth,
    wrap(async (req, res) => {
      const id = req.query.id;
      if (typeof id !== "string" || id === "" || id.length > 1024) return badRequest(req, res, "id: expected an answer's id");
      res.json({ replica, holds: holds(id) });
      return Promise.resolve();
    }),
  );
  app.post(
    "/v1/review/labels",
    refusal.auth,
    wrap(async (req, res) => {
      const parsed = parseLabelRequest(await readJsonBody(req, REVIEW_LABEL_MAX_BODY, "64kb"));
      if (typeof parsed === "string") return badRequest(req, res, parsed);
      const { label, seen } = parsed;
      if (holds(label.id)) {
        // The holder: the conflict rule, then one appended line.
        const others = label.undo === true ? [] : unseenLabels(labels().labels, label.id, label.reviewer, seen);
        if (others.length > 0) return void res.status(409).json({ error: "labelled by others since the reviewer's session loaded", conflict: others, replica });
        appendLabel(labelsFile(), label);
        return void res.json({ written: label, replica });
      }
      const peers = fanOut(req);
      const notHere = { error: "no answer with this id in the spools", replica };
      if (!peers) return refusal.refuse(req, res, 404, { ...notHere, replicas: { answered: [replica], failed: [] }, partial: false });
      const found = await peers.fanOut("/v1/review/holds", new URLSearchParams({ id: label.id }), parseHolds);
      const holder = found.answered.find((a) => a.value.holds);
      const replicas = { answered: [replica, ...found.answered.map((a) => a.replica)], failed: found.failed };
      if (!holder) return refusal.refuse(req, res, 404, { ...notHere, replicas, partial: found.failed.length > 0 });
      // Forwarded to the address this replica called (never one a reply names), as a peer's request: the holder writes it locally only.
      const forwarded = await peers.post(holder.peer, "/v1/review/labels", { label, seen }, parseForwarded);
      if ("reason" in forwarded) return refusal.refuse(req, res, 502, { error: `the replica holding the answer (${holder.replica}) did not take the label (${forwarded.reason})`, replicas: { answered: replicas.answered, failed: [...found.failed, { ...forwarded, replica: holder.replica }] }, partial: true });
      res.status(forwarded.value.status).json({ ...forwarded.value.body, replicas, partial: found.failed.length > 0 });
    }),
  );
}

/** A label request's body, checked: the label as the labels file would read it, and the labels of others the reviewer has seen. */
export function parseLabelRequest(body: unknown): { label: LabelRecord; seen: SeenLabel[] } | string {
  if (!isPlainObject(body)) return "the body must be a JSON object {label, seen}";
  const label = checkLabel(body.label);
  if (label === undefined || label.id.length > 1024 || label.reviewer.length > 100 || label.reviewer.trim() === "" || Number.isNaN(Date.parse(label.time))) return "label: expected a label record (v, id, reviewer, time, label 0 or 1 or undo, kind)";
  const seenRaw = body.seen ?? [];
  if (!Array.isArray(seenRaw) || seenRaw.length > MAX_SEEN || !seenRaw.every((s) => isPlainObject(s) && typeof s.reviewer === "string" && typeof s.time === "string")) return `seen: expected at most ${MAX_SEEN} {reviewer, time}`;
  return { label, seen: (seenRaw as Array<{ reviewer: string; time: string }>).map((s) => ({ reviewer: s.reviewer, time: s.time })) };
}

/** A peer's answer to /v1/review/holds, checked. */
function parseHolds(body: unknown): { holds: boolean } {
  if (!isPlainObject(body) || typeof body.holds !== "boolean") throw new TypeError("not a holds reply");
  return { holds: body.holds };
}

/** The holder's reply to a forwarded label, checked: the label written (200), or the labels of others in conflict (409); anything else throws (bad_reply). */
function parseForwarded(reply: unknown, status: number): { status: number; body: Record<string, unknown> } {
  if (!isPlainObject(reply)) throw new TypeError("not a label reply");
  if (status === 200 && checkLabel(reply.written) !== undefined) return { status: 200, body: { written: reply.written, replica: String(reply.replica ?? "") } };
  if (status === 409 && Array.isArray(reply.conflict)) {
    const conflict = reply.conflict.map(checkLabel);
    if (conflict.every((l) => l !== undefined)) return { status: 409, body: { error: String(reply.error ?? "conflict"), conflict, replica: String(reply.replica ?? "") } };
  }
  throw new TypeError(`not a label reply (status ${status})`);
}
