import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { bearerToken, tokenMatcher } from "../../net/bearer.ts";

/**
 * Who may use the review page when it has a token: a request carries the token itself as a bearer
 * header (scripts), or the cookie of a session the page opened when the token was shown once
 * (`/?token=…`). The cookie holds a random session id, never the token: cookies are not bound to a
 * port, so every other web server on the same host name receives it, and what it gives them is this
 * page until the session expires, not the token. Sessions are kept in a bounded map (the oldest goes
 * first) and expire a fixed time after they were opened; the map holds each id's SHA-256, not the id.
 */

/** The session cookie's name. The page is served over http only, so no `__Host-` prefix (it needs `Secure`, which needs https). */
export const REVIEW_SESSION_COOKIE = "groundwatch_review_session";
/** How long a session lasts from when it was opened. */
export const REVIEW_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Sessions kept at once: a token holder opening more lets the oldest go. */
export const REVIEW_MAX_SESSIONS = 64;
/** Random bytes in a session id (256 bits). */
const SESSION_ID_BYTES = 32;

export interface ReviewAuthOptions {
  /** The review token; undefined when the page has none (then it is local only and every request passes). */
  readonly token: string | undefined;
  /** Clock, ms since the epoch (tests move it to expire sessions). */
  readonly now: () => number;
  /** How long a session lasts from when it was opened (default REVIEW_SESSION_TTL_MS). */
  readonly sessionTtlMs?: number | undefined;
  /** Sessions kept at once (default REVIEW_MAX_SESSIONS). */
  readonly maxSessions?: number | undefined;
}

export interface ReviewAuth {
  /** Whether the page has a token (else it answers loopback names only, see web-server.ts). */
  readonly required: boolean;
  /** Whether `given` is the token (compared in constant time). */
  tokenMatches(given: string | undefined): boolean;
  /** Opens a session; returns the Set-Cookie header value that carries its id. */
  openSession(): string;
  /** Whether a request may pass: no token, the token as a bearer header, or a live session's cookie. */
  authorized(req: IncomingMessage): boolean;
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/** The value of cookie `name` in a Cookie header (the first one), undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The review page's authentication: the token and the sessions opened with it. */
export function createReviewAuth(options: ReviewAuthOptions): ReviewAuth {
  const ttlMs = options.sessionTtlMs ?? REVIEW_SESSION_TTL_MS;
  const max = options.maxSessions ?? REVIEW_MAX_SESSIONS;
  const matcher = options.token === undefined ? undefined : tokenMatcher(options.token);
  /** A session id's SHA-256 (hex) → when it expires (ms); in opening order, so the first is the oldest. */
  const sessions = new Map<string, number>();

  const tokenMatches = (given: string | undefined): boolean => matcher !== undefined && matcher(given);
  const sessionLive = (id: string | undefined): boolean => {
    if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return false;
    const key = digest(id).toString("hex");
    const expires = sessions.get(key);
    if (expires === undefined) return false;
    if (options.now() < expires) return true;
    sessions.delete(key);
    return false;
  };

  return {
    required: matcher !== undefined,
    tokenMatches,
    openSession() {
      const now = options.now();
      for (const [key, expires] of sessions) if (expires <= now) sessions.delete(key);
      while (sessions.size >= max) {
        const oldest = sessions.keys().next().value;
        if (oldest === undefined) break;
        sessions.delete(oldest);
      }
      const id = randomBytes(SESSION_ID_BYTES).toString("base64url");
      sessions.set(digest(id).toString("hex"), now + ttlMs);
      return `${REVIEW_SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(ttlMs / 1000)}`;
    },
    authorized(req) {
      if (matcher === undefined) return true;
      return tokenMatches(bearerToken(req.headers.authorization)) || sessionLive(cookieValue(req.headers.cookie, REVIEW_SESSION_COOKIE));
    },
  };
}
