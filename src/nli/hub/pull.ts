import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { OnnxVariant } from "../onnx/model-dir.ts";
import { cachedSnapshot, hubCacheDir, hubEndpoint, hubToken, isOffline, repoCacheDir } from "./cache.ts";
import { checkRepoId, checkRevision, isCommitSha, isInside, isSafeRelativePath, isSha256, shown } from "./names.ts";

export interface PullOptions {
  readonly repo: string;
  readonly revision?: string;
  /** Which graph to fetch (default quantized: onnx/model_quantized.onnx). */
  readonly variant?: OnnxVariant;
  /** Write the files here instead of the hub cache. */
  readonly dir?: string;
  readonly env: NodeJS.ProcessEnv;
  /** Injected for tests; defaults to global fetch. */
  readonly fetch?: typeof fetch;
  /** Attempts per file when the connection drops or the server fails (default 3). */
  readonly attempts?: number;
  /** Called as bytes arrive. */
  readonly onProgress?: (p: { file: string; received: number; total: number | undefined }) => void;
  /** Delay between attempts, in ms (default 500 × attempt). */
  readonly backoffMs?: number;
}

export interface PullResult {
  readonly dir: string;
  readonly revision: string;
  readonly files: ReadonlyArray<{ path: string; bytes: number; status: "downloaded" | "resumed" | "present"; sha256?: string }>;
}

const GRAPH_FILES: Record<OnnxVariant, readonly string[]> = {
  quantized: ["onnx/model_quantized.onnx"],
  fp32: ["onnx/model.onnx", "model.onnx"],
};
const REQUIRED = ["config.json", "tokenizer.json"];
const OPTIONAL = ["tokenizer_config.json", "special_tokens_map.json"];

/** What a user does by hand when the hub cannot be reached. */
export function manualSteps(repo: string, variant: OnnxVariant, target: string): string {
  const graph = GRAPH_FILES[variant][0] ?? "onnx/model.onnx";
  return [
    `To install ${repo} by hand, download these files from https://huggingface.co/${repo}/tree/main on a machine with access:`,
    `  config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json (if present), ${graph}`,
    `and put them, keeping the onnx/ folder, in a directory such as:`,
    `  ${target}`,
    `then pass it with --model ${target} (or GROUNDWATCH_MODEL).`,
  ].join("\n");
}

export class HubError extends Error {
  override readonly name = "HubError";
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A file's entry in the hub's listing, checked. */
interface Listed {
  readonly size: number | undefined;
  readonly sha256: string | undefined;
}

function sizeOf(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new HubError(`the hub listed ${what} with an invalid size ${shown(value)}`);
  return value;
}

/**
 * The commit and the file listing from the hub's answer, checked before any of it is used:
 * the commit must be 40 hex digits and each LFS hash 64. A listed name that is not a safe
 * relative path is left out: groundwatch only fetches the few files it names itself.
 */
function readListing(raw: unknown, repo: string, revision: string): { sha: string; files: Map<string, Listed> } {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new HubError(`${repo}@${revision}: the hub's answer is not a JSON object`);
  const info = raw as { sha?: unknown; siblings?: unknown };
  let sha: string;
  if (info.sha === undefined || info.sha === null) sha = revision;
  else if (isCommitSha(info.sha)) sha = info.sha.toLowerCase();
  else throw new HubError(`${repo}@${revision}: the hub answered an invalid commit ${shown(info.sha)} (expected 40 hex digits)`);
  if (info.siblings !== undefined && !Array.isArray(info.siblings)) throw new HubError(`${repo}@${revision}: the hub's file list is not an array`);
  const files = new Map<string, Listed>();
  for (const s of (info.siblings ?? []) as unknown[]) {
    if (!s || typeof s !== "object") continue;
    const { rfilename, size, lfs } = s as { rfilename?: unknown; size?: unknown; lfs?: { sha256?: unknown; size?: unknown } | null };
    if (!isSafeRelativePath(rfilename)) continue;
    const what = shown(rfilename);
    const sha256 = lfs?.sha256;
    if (sha256 !== undefined && sha256 !== null && !isSha256(sha256)) throw new HubError(`the hub listed ${what} with an invalid sha256 ${shown(sha256)} (expected 64 hex digits)`);
    files.set(rfilename, { size: sizeOf(lfs?.size, what) ?? sizeOf(size, what), sha256: typeof sha256 === "string" ? sha256.toLowerCase() : undefined });
  }
  return { sha, files };
}

/** Refuses a write path outside `base`: the last line of defence behind the name checks. */
function inside(base: string, path: string): string {
  if (!isInside(base, path)) throw new HubError(`refusing to write ${path}: it is outside ${base}`);
  return path;
}

/**
 * Downloads a model repository's ONNX files from the Hugging Face Hub (or any server
 * with its URL layout: HF_ENDPOINT) into the hub cache. Each file is written to
 * `.incomplete`, resumed with a Range request after an interruption, checked against
 * the size and sha256 the hub lists, and renamed into place only when whole.
 * A bad repo id or revision is a ConfigError; an unsafe answer from the hub is a HubError.
 */
export async function pullModel(options: PullOptions): Promise<PullResult> {
  const repo = checkRepoId(options.repo);
  const revision = checkRevision(options.revision ?? "main");
  const variant = options.variant ?? "quantized";
  const cache = hubCacheDir(options.env);
  const repoDir = repoCacheDir(cache, repo);
  const doFetch = options.fetch ?? fetch;
  const attempts = options.attempts ?? 3;
  const headers: Record<string, string> = { "user-agent": "groundwatch" };
  const token = hubToken(options.env);
  if (token) headers.authorization = `Bearer ${token}`;
  const fallbackTarget = options.dir ?? join(repoDir, "snapshots", revision);

  if (isOffline(options.env)) {
    const cached = options.dir ? (existsSync(join(options.dir, "config.json")) ? options.dir : undefined) : cachedSnapshot(cache, repo, revision);
    if (cached) return { dir: cached, revision, files: [] };
    throw new HubError(`HF_HUB_OFFLINE is set and ${repo}@${revision} is not cached in ${cache}.\n${manualSteps(repo, variant, fallbackTarget)}`);
  }

  const endpoint = hubEndpoint(options.env);
  const infoUrl = `${endpoint}/api/models/${repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  let raw: unknown;
  try {
    const res = await doFetch(infoUrl, { headers });
    if (res.status === 401 || res.status === 403) throw new HubError(`${repo}: the hub refused access (HTTP ${res.status}); for a private or gated repo set HF_TOKEN`);
    if (res.status === 404) throw new HubError(`${repo}@${revision}: not found on ${endpoint} (HTTP 404)`);
    if (!res.ok) throw new HubError(`${infoUrl}: HTTP ${res.status}`);
    raw = await res.json();
  } catch (error) {
    if (error instanceof HubError) throw error;
    if (error instanceof SyntaxError) throw new HubError(`${repo}@${revision}: the hub's answer from ${endpoint} is not JSON`);
    throw new HubError(`cannot reach ${endpoint} (${(error as Error).message}).\n${manualSteps(repo, variant, fallbackTarget)}`);
  }
  const { sha, files: siblings } = readListing(raw, repo, revision);
  const snapshots = join(repoDir, "snapshots");
  const target = options.dir ?? inside(snapshots, join(snapshots, sha));
  const graph = GRAPH_FILES[variant].find((f) => siblings.has(f));
  if (!graph) {
    throw new HubError(`${repo}@${revision} has no ${variant} ONNX graph (looked for ${GRAPH_FILES[variant].join(", ")}; files: ${[...siblings.keys()].filter((f) => f.endsWith(".onnx")).map((f) => shown(f)).join(", ") || "none"})`);
  }
  const missing = REQUIRED.filter((f) => !siblings.has(f));
  if (missing.length > 0) throw new HubError(`${repo}@${revision} lacks ${missing.join(", ")}: not a model groundwatch can load`);
  const wanted = [...REQUIRED, ...OPTIONAL.filter((f) => siblings.has(f)), graph];

  const results: Array<PullResult["files"][number]> = [];
  for (const path of wanted) {
    const meta = siblings.get(path);
    const expectedSize = meta?.size;
    const expectedSha = meta?.sha256;
    const dest = inside(target, join(target, path));
    const partial = `${dest}.incomplete`;
    mkdirSync(dirname(dest), { recursive: true });
    if (existsSync(dest) && (expectedSize === undefined || statSync(dest).size === expectedSize) && (!expectedSha || (await sha256Of(dest)) === expectedSha)) {
      results.push({ path, bytes: statSync(dest).size, status: "present", ...(expectedSha ? { sha256: expectedSha } : {}) });
      continue;
    }
    const url = `${endpoint}/${repo}/resolve/${encodeURIComponent(sha)}/${path}`;
    let resumed = false;
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const have = existsSync(partial) ? statSync(partial).size : 0;
        const res = await doFetch(url, { headers: have > 0 ? { ...headers, range: `bytes=${have}-` } : headers });
        if (res.status === 401 || res.status === 403) throw new HubError(`${path}: the hub refused access (HTTP ${res.status}); set HF_TOKEN`);
        if (res.status === 404) throw new HubError(`${path}: not found at ${url}`);
        if (res.status === 416 && have > 0) {
          // The partial file is already complete (or longer than the file): start over.
          unlinkSync(partial);
          throw new Error("range not satisfiable; restarting");
        }
        if (res.status !== 200 && res.status !== 206) throw new Error(`HTTP ${res.status}`);
        const append = res.status === 206 && have > 0;
        resumed ||= append;
        const total = expectedSize ?? (Number(res.headers.get("content-length")) || 0) + (append ? have : 0);
        let received = append ? have : 0;
        const out = createWriteStream(partial, { flags: append ? "a" : "w" });
        const done = new Promise<void>((res2, rej) => {
          out.once("finish", res2);
          out.once("error", rej);
        });
        try {
          if (!res.body) throw new Error("empty response body");
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            received += chunk.length;
            if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
            options.onProgress?.({ file: path, received, total: total || undefined });
          }
        } finally {
          out.end();
          await done;
        }
        const size = statSync(partial).size;
        if (expectedSize !== undefined && size !== expectedSize) {
          if (size > expectedSize) unlinkSync(partial);
          throw new Error(`got ${size} of ${expectedSize} bytes`);
        }
        const actual = await sha256Of(partial);
        if (expectedSha && actual !== expectedSha) {
          unlinkSync(partial);
          throw new HubError(`${path}: sha256 mismatch (expected ${expectedSha}, got ${actual}); the partial file was removed, run the pull again`);
        }
        renameSync(partial, dest);
        results.push({ path, bytes: size, status: resumed ? "resumed" : "downloaded", sha256: actual });
        lastError = undefined;
        break;
      } catch (error) {
        lastError = error as Error;
        if (error instanceof HubError) throw error;
        if (attempt < attempts) await sleep((options.backoffMs ?? 500) * attempt);
      }
    }
    if (lastError) throw new HubError(`${path}: download failed after ${attempts} attempts (${lastError.message}); run the pull again to resume`);
  }
  if (!options.dir) {
    const refs = join(repoDir, "refs");
    // A revision such as refs/pr/1 is a nested file, as the hub's own clients store it.
    const ref = inside(refs, join(refs, revision));
    mkdirSync(dirname(ref), { recursive: true });
    writeFileSync(ref, sha);
  }
  return { dir: target, revision: sha, files: results };
}
