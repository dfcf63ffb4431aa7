import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The model groundwatch pulls when none is named: a small DeBERTa-v3 NLI cross-encoder in ONNX. */
export const DEFAULT_MODEL_REPO = "Xenova/nli-deberta-v3-xsmall";

/** Where Hugging Face models are cached: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
export function hubCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  return join(env.HF_HOME ?? join(homedir(), ".cache", "huggingface"), "hub");
}

/** The hub's base URL: HF_ENDPOINT, else https://huggingface.co. */
export function hubEndpoint(env: NodeJS.ProcessEnv): string {
  return (env.HF_ENDPOINT ?? "https://huggingface.co").replace(/\/+$/, "");
}

export function hubToken(env: NodeJS.ProcessEnv): string | undefined {
  return env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN ?? undefined;
}

export function isOffline(env: NodeJS.ProcessEnv): boolean {
  return ["1", "true", "yes", "on"].includes((env.HF_HUB_OFFLINE ?? "").toLowerCase());
}

const REPO_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

export function isRepoId(value: string): boolean {
  return REPO_ID.test(value);
}

/** The cache folder of a repo, in the hub's layout: models--{org}--{name}. */
export function repoCacheDir(cache: string, repo: string): string {
  return join(cache, `models--${repo.replace("/", "--")}`);
}

/** The snapshot a revision points at in the cache, if it was pulled. */
export function cachedSnapshot(cache: string, repo: string, revision = "main"): string | undefined {
  const base = repoCacheDir(cache, repo);
  const ref = join(base, "refs", revision);
  const sha = existsSync(ref) ? readFileSync(ref, "utf8").trim() : revision;
  const dir = join(base, "snapshots", sha);
  return existsSync(join(dir, "config.json")) ? dir : undefined;
}

export interface CachedModel {
  readonly repo: string;
  readonly revision: string;
  readonly dir: string;
  readonly bytes: number;
  readonly files: readonly string[];
}

function walk(dir: string, prefix = ""): Array<{ path: string; bytes: number }> {
  const out: Array<{ path: string; bytes: number }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...walk(join(dir, entry.name), rel));
    else out.push({ path: rel, bytes: statSync(join(dir, entry.name)).size });
  }
  return out;
}

/** Every model snapshot in the cache, with its size. */
export function listCachedModels(cache: string): CachedModel[] {
  if (!existsSync(cache)) return [];
  const out: CachedModel[] = [];
  for (const name of readdirSync(cache).filter((n) => n.startsWith("models--")).sort()) {
    const repo = name.slice("models--".length).replace("--", "/");
    const refs = join(cache, name, "refs");
    const revisions = existsSync(refs) ? readdirSync(refs) : [];
    for (const revision of revisions) {
      const dir = cachedSnapshot(cache, repo, revision);
      if (!dir) continue;
      const files = walk(dir).filter((f) => !f.path.endsWith(".incomplete"));
      out.push({ repo, revision, dir, bytes: files.reduce((n, f) => n + f.bytes, 0), files: files.map((f) => f.path) });
    }
  }
  return out;
}
