/**
 * Why a fetch failed, with its cause: undici says only "fetch failed" and keeps what happened
 * (ECONNREFUSED, ECONNRESET, a certificate the client does not trust) in `cause`.
 */
export function fetchFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return message;
  const code = (cause as { code?: unknown }).code;
  const why = typeof code === "string" && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  return why === "" || why === message ? message : `${message} (${why})`;
}
