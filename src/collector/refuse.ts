import type { NextFunction, Request, Response } from "express";
import { bearerToken, tokenMatcher } from "../net/bearer.ts";
import type { RefusalReason } from "./metrics.ts";
import { endpointOf, refusalOf } from "./metrics.ts";

/** Longest wait for the rest of a refused body (within the limit) before answering anyway, ms. */
const DRAIN_MS = 10_000;

/** How the collector refuses a request: counted by endpoint and reason, answered so that a client still sending gets the answer. */
export interface Refusal {
  /**
   * Refuses a request. A body not read yet whose declared length is within the limit is read to its end
   * (and dropped) first, so a client still sending gets the answer — a 429 with its Retry-After —
   * instead of a connection reset ("write EPIPE") that it cannot retry on; bounded by DRAIN_MS. Any
   * other unread body is never read: the answer goes at once and the connection closes after it.
   */
  refuse(req: Request, res: Response, status: number, body: object, retry?: boolean, reason?: RefusalReason): void;
  /** 429: the scoring queue is full (retry later). */
  queueFull(req: Request, res: Response): void;
  /** 429: the trace buffer is full of traces waiting for the scoring queue (retry later). */
  bufferFull(req: Request, res: Response): void;
  /** Lets a request on when the collector has no token or the request carries it; else 401 with WWW-Authenticate. */
  auth(req: Request, res: Response, next: NextFunction): void;
}

export interface RefusalOptions {
  /** The body limit in bytes: a refused body declared within it is drained before the answer. */
  readonly bodyLimit: number;
  /** The bearer token requests must carry, if any. */
  readonly token: string | undefined;
  /** Counts a refusal by endpoint and reason. */
  readonly countRefused: (endpoint: string, reason: RefusalReason) => void;
}

export function createRefusal(options: RefusalOptions): Refusal {
  const { bodyLimit, countRefused } = options;
  const refuse = (req: Request, res: Response, status: number, body: object, retry = false, reason: RefusalReason = refusalOf(status)): void => {
    countRefused(endpointOf(req.path), reason);
    const answer = (close: boolean): void => {
      if (res.headersSent) return;
      if (close) res.setHeader("Connection", "close");
      if (retry) res.setHeader("Retry-After", "1");
      res.status(status).json(body);
    };
    if (req.complete) return answer(false);
    const declared = Number(req.headers["content-length"]);
    if (!Number.isFinite(declared) || declared > bodyLimit) return answer(true);
    const timer = setTimeout(() => answer(true), DRAIN_MS);
    req.once("end", () => {
      clearTimeout(timer);
      answer(false);
    });
    req.once("error", () => {
      clearTimeout(timer);
      answer(true);
    });
    req.resume();
  };
  const tokenMatches = options.token !== undefined ? tokenMatcher(options.token) : undefined;
  return {
    refuse,
    queueFull: (req, res) => refuse(req, res, 429, { error: "the scoring queue is full; retry later" }, true, "queue_full"),
    bufferFull: (req, res) => refuse(req, res, 429, { error: "the trace buffer is full of traces waiting for the scoring queue; retry later" }, true, "buffer_full"),
    auth(req, res, next) {
      if (!tokenMatches || tokenMatches(bearerToken(req.headers.authorization))) return next();
      res.setHeader("WWW-Authenticate", "Bearer");
      refuse(req, res, 401, { error: "missing or wrong bearer token" });
    },
  };
}
