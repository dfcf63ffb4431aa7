import type { Request, Response } from "express";
import { ConfigError } from "../config/errors.ts";
import { parseInteger } from "../config/parse.ts";
import type { FlaggedPage, FlaggedPageQuery } from "../evaluation/flagged-ring.ts";
import { FLAGGED_MAX_LIMIT, isFlaggedCursor } from "../evaluation/flagged-ring.ts";
import { causeLabel } from "../core/cause.ts";
import { CAUSES } from "../telemetry/semconv.ts";
import { localCursor } from "./flagged-cursor.ts";
import { mergedFlaggedPage } from "./flagged-merged.ts";
import type { Peers } from "./peers.ts";
import { PEER_HEADER } from "./peers.ts";

/** The longest route or cause a query may name: route labels are capped shorter, causes are a few words. */
const MAX_PARAM_CHARS = 1024;
/** The longest cursor: a merged one names up to MERGED_CURSOR_MAX_REPLICAS replicas (name and ring cursor, about 120 characters each). */
const MAX_CURSOR_CHARS = 8192;

/** The query of GET /v1/flagged as the ring reads it, or the parameter that is wrong and why. */
export function parseFlaggedQuery(query: Request["query"]): { readonly ok: true; readonly query: FlaggedPageQuery } | { readonly ok: false; readonly error: string } {
  const text = (name: string, max = MAX_PARAM_CHARS): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v.length > max) throw new ConfigError(name, "(given)", `expected one value of at most ${max} characters`);
    return v;
  };
  try {
    const route = text("route");
    const cause = text("cause");
    // A cause is one of five words: a typo would otherwise read as "no such answers".
    if (cause && !causeLabel(cause)) throw new ConfigError("cause", cause.slice(0, 40), `expected one of ${CAUSES.join(", ")}`);
    const sinceText = text("since");
    const since = sinceText === undefined || sinceText === "" ? undefined : Date.parse(sinceText);
    if (since !== undefined && Number.isNaN(since)) throw new ConfigError("since", sinceText, "expected an ISO 8601 time");
    // A limit over the cap is read as the cap: the reply stays bounded either way.
    const limit = parseInteger("limit", text("limit"), 1, Number.MAX_SAFE_INTEGER);
    const after = text("after", MAX_CURSOR_CHARS);
    if (after !== undefined && after !== "" && !isFlaggedCursor(after)) throw new ConfigError("after", after.slice(0, 60), "expected the cursor of an earlier reply");
    return {
      ok: true,
      query: {
        ...(route ? { route } : {}),
        ...(cause ? { cause } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(limit !== undefined ? { limit: Math.min(limit, FLAGGED_MAX_LIMIT) } : {}),
        ...(after ? { after } : {}),
      },
    };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, error: error.message };
    throw error;
  }
}

/** What GET /v1/flagged works with. */
export interface FlaggedHandlerDeps {
  /** This replica's page of its ring (Monitor.flaggedPage). */
  readonly page: (query: FlaggedPageQuery) => FlaggedPage;
  readonly badRequest: (req: Request, res: Response, error: string) => void;
  /** This replica's name: its own part of a merged cursor, and `replicas.answered` (default "local"). */
  readonly replica?: string | undefined;
  /** The other replicas; absent or none configured: this replica answers for itself. */
  readonly peers?: Pick<Peers, "configured" | "fanOut" | "ask"> | undefined;
}

/**
 * GET /v1/flagged?route=&cause=&since=&limit=&after=: the most recent flagged answers the monitor
 * keeps, newest first, as `{ flagged: [...], cursor, more, missed, replicas, partial }`; with `after`
 * (an earlier reply's cursor), those kept since, oldest first, and how many were let go unread
 * (Monitor.flaggedPage). With peers configured, for the whole deployment (flagged-merged.ts), each
 * answer naming its `replica`; a request from a peer (x-groundwatch-peer: 1) gets this replica's own
 * page only. A bad parameter is a 400 naming it. Mounted behind the collector's auth.
 */
export function flaggedHandler(deps: FlaggedHandlerDeps): (req: Request, res: Response) => void | Promise<void> {
  const self = deps.replica ?? "local";
  return (req, res) => {
    const parsed = parseFlaggedQuery(req.query);
    if (!parsed.ok) return deps.badRequest(req, res, parsed.error);
    res.setHeader("Cache-Control", "no-store");
    const query = parsed.query;
    const peers = deps.peers;
    if (!peers?.configured || req.get(PEER_HEADER) === "1") {
      // This replica's own answers: a merged cursor is read for its own part.
      const page = deps.page(query.after === undefined ? query : { ...query, after: localCursor(query.after, self) });
      res.json({ ...page, replicas: { answered: [self], failed: [] }, partial: false });
      return;
    }
    return mergedFlaggedPage({ query, self, page: deps.page, peers }).then((reply) => void res.json(reply));
  };
}
