/**
 * Where a listener may bind, and with what token: the one policy of the collector and the review page.
 * A loopback address may go without a token (and then answers loopback Host names only, against DNS
 * rebinding); any other address needs one; a token, where given, is at least MIN_TOKEN_LENGTH long on
 * every address, since anything that reaches the port may try tokens. Each edge words its own
 * configuration error from the refusal (its flag and env names).
 */

const LOOPBACK_BINDS: ReadonlySet<string> = new Set(["127.0.0.1", "::1", "localhost"]);

/** The shortest bearer token accepted, on any address. */
export const MIN_TOKEN_LENGTH = 16;

/** Whether a bind address (or a host a client calls) is loopback: 127.0.0.1, ::1 or localhost. */
export function isLoopbackBind(host: string): boolean {
  return LOOPBACK_BINDS.has(host);
}

/** Why a bind is refused: a non-loopback address without a token, or a token shorter than MIN_TOKEN_LENGTH. */
export type BindRefusal = "token_required" | "token_too_short";

/** Why binding `host` with `token` (undefined: none) is refused, or undefined when it is allowed. */
export function bindRefusal(host: string, token: string | undefined): BindRefusal | undefined {
  if (token === undefined) return isLoopbackBind(host) ? undefined : "token_required";
  return token.length < MIN_TOKEN_LENGTH ? "token_too_short" : undefined;
}

/** Whether a Host header names this machine by a loopback name: localhost, 127.x.x.x or [::1], with any port. */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = /^(\[[^\]]*\]|[^:]*)(?::\d{1,5})?$/.exec(host.trim().toLowerCase())?.[1];
  if (name === undefined) return false;
  return name === "localhost" || name === "[::1]" || /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name);
}
