import type { Dirent } from "node:fs";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkRepoId, isInside, isValidRepoId, isValidRevision } from "./names.ts";

/** The model groundwatch pulls when none is named: a small DeBERTa-v3 NLI cross-encoder in ONNX. */
export const DEFAULT_MODEL_REPO = "Xenova/nli-deberta-v3-xsmall";

/** Written beside the files `model pull` fetched: the graphs the repository offered at that commit, with sizes. */
export const LISTING_FILE = ".groundwatch-listing.json";

/** An `owner/name` repo id (what `--model` takes as a repo rather than a directory). */
export function isRepoId(value: string): boolean {
  return value.includes("/") && isValidRepoId(value);
}

/** The cache folder of a repo, in the hub's layout: models--{org}--{name}. A bad repo id is a ConfigError. */
export function repoCacheDir(cache: string, repo: string): string {
  return join(cache, `models--${checkRepoId(repo).replace("/", "--")}`);
}

/**
 * The snapshot a revision points at in the cache, if it was pulled. A ref whose content
 * is not a commit or revision name (say `../../x`) counts as not cached.
 */
export function cachedSnapshot(cache: string, repo: string, revision = "main"): string | undefined {
  if (!isValidRevision(revision)) return undefined;
  const base = repoCacheDir(cache, repo);
  const ref = join(base, "refs", revision);
  let sha = revision;
  try {
    if (existsSync(ref) && statSync(ref).isFile()) sha = readFileSync(ref, "utf8").trim();
  } catch {
    return undefined;
  }
  if (!isValidRevision(sha)) return undefined;
  const snapshots = join(base, "snapshots");
  const dir = join(snapshots, sha);
  return isInside(snapshots, dir) && existsSync(join(dir, "config.json")) ? dir : undefined;
}

export interface CachedModel {
  readonly repo: string;
  readonly revision: string;
  readonly dir: string;
  readonly bytes: number;
  readonly files: readonly string[];
  /** Entries left out of files and bytes: dangling symbolic links, unreadable entries. */
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly reason: string }>;
}

type Skipped = CachedModel["skipped"][number];

function entries(dir: string): Dirent[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function walk(dir: string, skipped: Skipped[], prefix = ""): Array<{ path: string; bytes: number }> {
  const out: Array<{ path: string; bytes: number }> = [];
  for (const entry of entries(dir)) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const path = join(dir, entry.name);
    // A real directory is walked; a link is followed to its file (the hub cache links
    // snapshots/ to blobs/), never to a directory, so a link loop cannot recurse.
    if (entry.isDirectory()) {
      out.push(...walk(path, skipped, rel));
      continue;
    }
    try {
      const stat = statSync(path);
      if (stat.isFile()) out.push({ path: rel, bytes: stat.size });
      else skipped.push({ path: rel, reason: stat.isDirectory() ? "a link to a directory" : "not a file" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      skipped.push({ path: rel, reason: entry.isSymbolicLink() && (code === "ENOENT" || code === "ELOOP") ? "a dangling symbolic link" : `unreadable (${code ?? (error as Error).message})` });
    }
  }
  return out;
}

/** The ref names under refs/ (a revision such as refs/pr/1 is a nested file). */
function refNames(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of entries(dir)) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...refNames(join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Every model snapshot in the cache, with its size; entries that cannot be read are listed as skipped. */
export function listCachedModels(cache: string): CachedModel[] {
  if (!isDirectory(cache)) return [];
  const out: CachedModel[] = [];
  for (const name of readdirSync(cache).filter((n) => n.startsWith("models--")).sort()) {
    const repo = name.slice("models--".length).replace("--", "/");
    if (!isValidRepoId(repo)) continue;
    const refs = join(cache, name, "refs");
    const revisions = isDirectory(refs) ? refNames(refs) : [];
    for (const revision of revisions) {
      const dir = cachedSnapshot(cache, repo, revision);
      if (!dir) continue;
      const skipped: Skipped[] = [];
      // The listing groundwatch saves beside a pull is its own record, not a model file.
      const files = walk(dir, skipped).filter((f) => !f.path.endsWith(".incomplete") && f.path !== LISTING_FILE);
      out.push({ repo, revision, dir, bytes: files.reduce((n, f) => n + f.bytes, 0), files: files.map((f) => f.path), skipped });
    }
  }
  return out;
}
