import { isAbsolute, relative, sep } from "node:path";
import { ConfigError } from "../../config/errors.ts";
import { redactSecrets } from "../../net/redact.ts";

// Every name that ends up in a file path — repo ids, revisions, and what the hub answers
// (commit shas, file names, blob hashes) — is checked here first: `a/../../x` as a repo or
// `../..` as a revision or commit would otherwise write outside the cache.

/** At most what the hub allows for each part of a repo id. */
const MAX_REPO_PART = 96;
const REPO_PART = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** A repo id the hub would accept: `name` or `owner/name`, each part letters, digits, `.`, `_`, `-`. */
export function isValidRepoId(value: string): boolean {
  const parts = value.split("/");
  if (parts.length > 2) return false;
  // "--" would also make two repos share one cache folder (models--{owner}--{name}).
  return parts.every((p) => p.length <= MAX_REPO_PART && REPO_PART.test(p) && !p.includes("..") && !p.includes("--"));
}

/** The repo id, or a ConfigError naming it. */
export function checkRepoId(value: string): string {
  if (!isValidRepoId(value)) {
    throw new ConfigError("repo", value, `a Hugging Face repo id is [owner/]name: letters, digits, ".", "_" and "-", at most ${MAX_REPO_PART} characters a part, starting and ending with a letter or digit, without ".." or "--"`);
  }
  return value;
}

const COMMIT = /^[0-9a-f]{40}$/i;
const SHA256 = /^[0-9a-f]{64}$/i;

/** A git commit id as the hub writes it: 40 hex digits. */
export function isCommitSha(value: unknown): value is string {
  return typeof value === "string" && COMMIT.test(value);
}

/** A file's sha256, as the hub lists LFS files: 64 hex digits. */
export function isSha256(value: unknown): value is string {
  return typeof value === "string" && SHA256.test(value);
}

/**
 * A branch or tag name by the rules of `git check-ref-format` (in printable ASCII), or a
 * commit id. That keeps it from leaving refs/ or snapshots/ when used as a path.
 */
export function isValidRevision(value: string): boolean {
  if (COMMIT.test(value)) return true;
  if (value.length === 0 || value.length > 255 || value === "@") return false;
  if (!/^[\x21-\x7e]+$/.test(value) || /[~^:?*[\\]/.test(value)) return false;
  if (value.includes("..") || value.includes("@{") || value.includes("//")) return false;
  if (value.startsWith("/") || value.endsWith("/") || value.endsWith(".")) return false;
  return value.split("/").every((part) => !part.startsWith(".") && !part.endsWith(".lock"));
}

/** The revision, or a ConfigError naming it. */
export function checkRevision(value: string): string {
  if (!isValidRevision(value)) {
    throw new ConfigError("revision", value, 'a branch or tag name (no "..", no leading "/", no "\\", spaces or control characters, no part starting with ".") or a 40-hex commit id');
  }
  return value;
}

/** Whether `path` lies strictly inside `base` (both resolved the same way). */
export function isInside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** A hub-supplied value, shortened, quoted and with anything shaped like a credential redacted, for an error message. */
export function shown(value: unknown): string {
  const text = redactSecrets((typeof value === "string" ? value : JSON.stringify(value) ?? String(value)).slice(0, 1000));
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
