/**
 * Secrets out of remote text. An endpoint may echo a request back in its error body (the
 * Authorization header with it), and that body reaches log lines and error messages: every remote
 * text that does is passed through redactSecrets first. The patterns are linear: each is a literal
 * prefix and one bounded character run, so no input makes them backtrack.
 */

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Configured secrets shorter than this are not searched for verbatim (they would match ordinary words); the patterns below still apply. */
export const MIN_SECRET_LENGTH = 8;

// A scheme and its credentials: "Bearer abc", "Basic dXNlcg==", "Token abc".
const SCHEME_TOKEN = /\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]+/gi;
// A header or field named like a credential, with its value: `Authorization: xyz`, `"api_key":"xyz"`, `x-api-key=xyz`.
const CREDENTIAL_FIELD = /\b(proxy-authorization|authorization|x-api-key|api[-_]?key|access[-_]?token)(["']?\s{0,16}[:=]\s{0,16}["']?)(?!\[redacted\]|(?:bearer|basic|token)\s)[^\s"',;}&]+/gi;
// Key shapes of common providers: OpenAI-style sk-…, Hugging Face hf_…, GitHub gh?_…, AWS AKIA….
const KEY_SHAPES = /\b(?:sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16})/g;

/**
 * `text` with every configured secret (at least MIN_SECRET_LENGTH characters) and anything shaped
 * like a credential (`Bearer …`, `Authorization: …`, `api_key=…`, `sk-…`, `hf_…` keys) replaced by
 * [redacted].
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH) out = out.replaceAll(secret, REDACTED);
  }
  return out
    .replace(SCHEME_TOKEN, `$1$2${REDACTED}`)
    .replace(CREDENTIAL_FIELD, `$1$2${REDACTED}`)
    .replace(KEY_SHAPES, REDACTED);
}
