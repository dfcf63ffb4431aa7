/**
 * The bearer token check every listener with a token uses (the collector's ingest and /metrics, the
 * review page): the token read from an `Authorization: Bearer …` header, compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The token of an `Authorization: Bearer <token>` header: the scheme in any case, then spaces or tabs
 * (RFC 9110's SP / HTAB, nothing wider), then the token without trailing spaces or tabs; undefined
 * when the header is absent or names another scheme.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^bearer[ \t]+(.*?)[ \t]*$/i.exec(authorization ?? "")?.[1];
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/**
 * Whether a given token is `token`: equal-length SHA-256 digests compared in constant time, so the
 * answer's timing says nothing about the token (nor about its length).
 */
export function tokenMatcher(token: string): (given: string | undefined) => boolean {
  const expected = digest(token);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
}
