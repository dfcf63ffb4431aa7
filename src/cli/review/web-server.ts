import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { REVIEW_ENV } from "../../config/env.ts";
import { ConfigError } from "../../config/errors.ts";
import { mediaType, readBody } from "../../collector/body.ts";
import { HttpError } from "../../net/http-error.ts";
import { httpStatusOf } from "../../net/error-status.ts";
import { MIN_TOKEN_LENGTH, bindRefusal, isLoopbackBind, isLoopbackHostHeader } from "../../net/bind-policy.ts";
import type { SpoolRecord } from "../../review/record.ts";
import type { LabelInput, ReviewSession } from "../../review/session.ts";
import { openReviewSession } from "../../review/session.ts";
import type { SkippedSpoolFile } from "../../review/spool-files.ts";
import type { ReviewStore } from "../../review/store.ts";
import { conflictText } from "./conflict.ts";
import { reviewerProblem } from "./options.ts";
import { createReviewAuth } from "./web-auth.ts";
import { reviewPage } from "./web-page.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import { spanSegments } from "../../core/spans.ts";

/**
 * The server behind `groundwatch review --web`: one self-contained page (a nonce'd script under a
 * strict Content-Security-Policy) and a small JSON API over a review session. Local by default: it
 * binds loopback and then answers only requests addressed to a loopback name (DNS rebinding); any
 * other bind needs a token, checked on every request (a bearer header, or the cookie of a session the
 * page opens from `?token=` once: web-auth.ts). POSTs from another origin are refused, bodies are capped.
 */

export interface ReviewWebOptions {
  /** Where answers and labels are read and labels written (default: a directory store over `dirs` and `labelsFile`). */
  readonly store?: ReviewStore | undefined;
  /** Spool directories (replicas) to review, merged (without `store`: at least one). */
  readonly dirs: readonly string[];
  /** The reviewer's name, written in every label. */
  readonly reviewer: string;
  /** The labels file (default: labels.jsonl of every spool directory read, the first one's appended to). */
  readonly labelsFile?: string | undefined;
  /** Address to bind (default 127.0.0.1); another than loopback needs `token`. */
  readonly host?: string | undefined;
  /** Port (default 4320; 0 picks a free one). */
  readonly port?: number | undefined;
  /** The review token every request must carry (or a session opened with it); required off loopback, at least 16 characters. */
  readonly token?: string | undefined;
  /** The clock for label times and session expiry (tests pass a fixed one). */
  readonly now?: (() => Date) | undefined;
}

export interface ReviewWebServer {
  /** The page's address (with the bound port). */
  readonly url: string;
  /** Segment-named files of the spools that were passed over (links, FIFOs, devices, over the read cap). */
  readonly skippedFiles: readonly SkippedSpoolFile[];
  /** Lines the session could not read: of the spools, and of the labels file. */
  readonly unreadable: ReviewSession["unreadable"];
  /** Replicas that did not answer when the session loaded (remote). */
  readonly missing: ReviewSession["missing"];
  close(): Promise<void>;
}

export const REVIEW_WEB_DEFAULT_PORT = 4320;
/** The largest request body read: a label with its claims is well under this. */
export const REVIEW_WEB_MAX_BODY = 64 * 1024;

/** Validates the options: a non-loopback host without a (long enough) token is a ConfigError. */
export function checkReviewWebOptions(options: ReviewWebOptions): void {
  const host = options.host ?? "127.0.0.1";
  if (options.store === undefined && options.dirs.length === 0) throw new ConfigError("--dir", undefined, "give at least one spool directory");
  const reviewerWrong = reviewerProblem(options.reviewer);
  if (reviewerWrong !== undefined) throw new ConfigError("--reviewer", `${options.reviewer.length} characters`, reviewerWrong);
  const refusal = bindRefusal(host, options.token);
  if (refusal === "token_too_short") throw new ConfigError("--token", `${options.token?.length ?? 0} characters`, `at least ${MIN_TOKEN_LENGTH} characters`);
  if (refusal === "token_required") throw new ConfigError("--host", host, `binding another address than loopback needs --token (or ${REVIEW_ENV.token})`);
  const port = options.port ?? REVIEW_WEB_DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError("--port", port, "an integer from 0 to 65535");
}

/**
 * The fields of a spooled answer the page shows; with spans, also the answer cut at them
 * (`answerSegments`, core/spans.ts spanSegments: the one cutter), which the page puts on as text nodes and <mark>s.
 */
function forReview(r: SpoolRecord): Record<string, unknown> {
  const spans = r.spans && r.spans.length > 0 ? { spans: r.spans, answerSegments: spanSegments(r.answer, r.spans) } : {};
  return { id: r.id, kind: r.kind, time: r.time, route: r.route, traceId: r.traceId, replica: r.replica, question: r.question, answer: r.answer, documents: r.documents, verdict: r.verdict, score: r.score, threshold: r.threshold, cause: r.cause, claims: r.claims, ...spans };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers });
  res.end(text);
}

const isLabelValue = (v: unknown): v is 0 | 1 => v === 0 || v === 1;

/** A label request's body, checked field by field. */
function parseLabelInput(body: unknown): LabelInput {
  if (!isPlainObject(body) || typeof body.id !== "string") throw new HttpError(400, "the body must be a JSON object with an id");
  if (body.label !== undefined && !isLabelValue(body.label)) throw new HttpError(400, "label must be 0 or 1");
  if (body.agreement !== undefined && body.agreement !== "agree" && body.agreement !== "disagree") throw new HttpError(400, "agreement must be agree or disagree");
  let claims: LabelInput["claims"];
  if (body.claims !== undefined) {
    if (!Array.isArray(body.claims) || !body.claims.every((c) => isPlainObject(c) && Number.isInteger(c.index) && isLabelValue(c.label))) throw new HttpError(400, "claims must be a list of {index, label 0 or 1}");
    claims = (body.claims as Array<{ index: number; label: 0 | 1 }>).map((c) => ({ index: c.index, label: c.label }));
  }
  let spans: LabelInput["spans"];
  if (body.spans !== undefined) {
    if (!Array.isArray(body.spans) || !body.spans.every((s) => isPlainObject(s) && Number.isInteger(s.span) && s.verdict === "wrong")) throw new HttpError(400, "spans must be a list of {span, verdict wrong}");
    spans = (body.spans as Array<{ span: number }>).map((s) => ({ span: s.span, verdict: "wrong" }));
  }
  return { id: body.id, label: body.label as 0 | 1 | undefined, agreement: body.agreement as LabelInput["agreement"], claims, spans };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  if (mediaType(req.headers["content-type"]) !== "application/json") throw new HttpError(415, "send application/json");
  const body = await readBody(req, REVIEW_WEB_MAX_BODY, "64kb");
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    throw new HttpError(400, "the body is not JSON");
  }
}

/** Starts the review page's server; resolves once it listens. */
export async function startReviewWeb(options: ReviewWebOptions): Promise<ReviewWebServer> {
  checkReviewWebOptions(options);
  const host = options.host ?? "127.0.0.1";
  const session = await openReviewSession({ store: options.store, dirs: options.dirs, labelsFile: options.labelsFile, reviewer: options.reviewer, now: options.now });
  const now = options.now ?? (() => new Date());
  const auth = createReviewAuth({ token: options.token, now: () => now().getTime() });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS rebinding: bound to loopback, only requests addressed to a loopback name are answered, with a
    // token too (a rebinding page must not get as far as guessing it; redteam-4 L8).
    if (isLoopbackBind(host) && !isLoopbackHostHeader(req.headers.host)) return send(res, 421, { error: "this review page answers only requests addressed to localhost, 127.0.0.1 or [::1]" });
    const url = new URL(req.url ?? "/", "http://review.invalid");
    if (req.method === "GET" && url.pathname === "/" && auth.required && url.searchParams.has("token")) {
      if (!auth.tokenMatches(url.searchParams.get("token") ?? undefined)) return send(res, 401, { error: "wrong token" });
      // The token opens a session whose random id goes in the cookie (never the token); the address bar drops it.
      res.writeHead(303, { location: "/", "set-cookie": auth.openSession(), "cache-control": "no-store", "referrer-policy": "no-referrer" });
      return void res.end();
    }
    if (!auth.authorized(req)) return send(res, 401, { error: "this review page needs its token: open it as /?token=… or send Authorization: Bearer …" }, { "www-authenticate": "Bearer" });
    if (req.method === "POST") {
      // Cross-origin requests: a page elsewhere must not label through the reviewer's browser.
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`) return send(res, 403, { error: "cross-origin requests are refused" });
      if (req.headers["sec-fetch-site"] !== undefined && !["same-origin", "none"].includes(String(req.headers["sec-fetch-site"]))) return send(res, 403, { error: "cross-site requests are refused" });
    }
    const route = `${req.method ?? ""} ${url.pathname}`;
    switch (route) {
      case "GET /": {
        const nonce = randomBytes(18).toString("base64");
        res.writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
          "x-frame-options": "DENY",
        });
        return void res.end(reviewPage(nonce, options.reviewer));
      }
      case "GET /api/next": {
        const next = session.next();
        return send(res, 200, next ? { done: false, answer: forReview(next), progress: session.progress() } : { done: true, progress: session.progress() });
      }
      case "GET /api/progress":
        return send(res, 200, session.progress());
      case "POST /api/label": {
        const outcome = await session.label(parseLabelInput(await readJson(req)));
        // Labels of others written since the session loaded: nothing was written; the page asks the reviewer.
        if ("conflict" in outcome) return send(res, 409, { error: conflictText(outcome.conflict), conflict: outcome.conflict });
        return send(res, 200, { label: outcome.written, progress: session.progress() });
      }
      case "POST /api/skip": {
        const body = await readJson(req);
        if (!isPlainObject(body) || typeof body.id !== "string") throw new HttpError(400, "the body must be a JSON object with an id");
        session.skip(body.id);
        return send(res, 200, { skipped: body.id, progress: session.progress() });
      }
      case "POST /api/undo": {
        await readJson(req);
        const id = await session.undo();
        return id === undefined ? send(res, 409, { error: "nothing to undo in this session" }) : send(res, 200, { undone: id, progress: session.progress() });
      }
      default:
        return send(res, 404, { error: "not found" });
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = httpStatusOf(error) ?? 500;
      const message = status === 500 ? "internal error" : (error as Error).message;
      if (!res.headersSent) send(res, status, { error: message }, status === 413 ? { connection: "close" } : {});
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? REVIEW_WEB_DEFAULT_PORT, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    skippedFiles: session.skippedFiles,
    unreadable: session.unreadable,
    missing: session.missing,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
