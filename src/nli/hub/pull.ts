import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SCORE_ENV_NAMES } from "../../config/env.ts";
import { isConfigError } from "../../config/errors.ts";
import type { HubSettings } from "../../config/hub.ts";
import { positiveInteger } from "../../config/positive-integer.ts";
import { isSafeRelativePath } from "../../config/safe-path.ts";
import { fetchBounded } from "../../net/bounded-fetch.ts";
import { BodyTooLargeError } from "../../net/read-capped.ts";
import { redactSecrets } from "../../net/redact.ts";
import type { OnnxVariant } from "../onnx/model-dir.ts";
import { ONNX_RUNTIME_INSTALL_HINT, ONNX_RUNTIME_PACKAGE } from "../onnx/runtime.ts";
import { localGraphs } from "../onnx/model-dir.ts";
import type { CpuFeatures, GraphVariant, VariantChoice } from "../onnx/variants.ts";
import { checkVariant, graphVariants, readCpuFeatures } from "../onnx/variants.ts";
import { BORROWED_TOKENIZER_FILES, TOKENIZER_SOURCE_FILE, tokenizerLoan } from "./borrowed-tokenizer.ts";
import type { TokenizerLoan } from "./borrowed-tokenizer.ts";
import { planGraphs } from "./pull-graphs.ts";
import { LISTING_FILE, cachedSnapshot, repoCacheDir } from "./cache.ts";
import { downloadFile, sha256Of } from "./download.ts";
import { HubError } from "./errors.ts";
import { checkRepoId, checkRevision, isCommitSha, isInside, isSha256, shown } from "./names.ts";
import { ensureDirInside, existingFileSize, openWriteRoot, writeFileReplacing } from "./safe-fs.ts";
import { isPlainObject } from "../../core/plain-object.ts";

export { HubError } from "./errors.ts";

/** How long a hub request may wait for its response headers, by default: 30 s. */
export const DEFAULT_HUB_TIMEOUT_MS = 30_000;
/** How long a hub body may send nothing before the attempt is given up, by default: 60 s. */
export const DEFAULT_HUB_IDLE_TIMEOUT_MS = 60_000;
/** The largest listing read: 32 MiB, far above the hub's answer for a repository of thousands of files. */
export const MAX_LISTING_BYTES = 32 * 1024 * 1024;

export interface PullOptions {
  readonly repo: string;
  readonly revision?: string;
  /**
   * Which graph to fetch: auto (default: the int8 graph for this CPU, else a generic int8
   * graph, else fp32), fp32, int8, quantized, or a file name (see chooseGraph). Only that
   * graph is downloaded, with the config and tokenizer files.
   */
  readonly variant?: OnnxVariant;
  /** The CPU to choose for (default: this machine's); injected in tests. */
  readonly cpu?: CpuFeatures;
  /** Write the files here instead of the hub cache. */
  readonly dir?: string;
  /** The hub's settings (cache folder, endpoint, token, offline), resolved at the edge. */
  readonly hub: HubSettings;
  /** Injected for tests; defaults to global fetch. */
  readonly fetch?: typeof fetch;
  /** Attempts per file when the connection drops or the server fails (default 3). */
  readonly attempts?: number;
  /** Called as bytes arrive. */
  readonly onProgress?: (p: { file: string; received: number; total: number | undefined }) => void;
  /** The first delay between attempts, in ms, doubling after each (default 500). */
  readonly backoffMs?: number;
  /** How long each hub request waits for its response headers, in ms (default DEFAULT_HUB_TIMEOUT_MS, 30 s); a download attempt that times out is retried. Not a positive whole number: ConfigError. */
  readonly timeoutMs?: number;
  /** How long a download may receive nothing before the attempt is given up and later resumed, in ms (default DEFAULT_HUB_IDLE_TIMEOUT_MS, 60 s). Not a positive whole number: ConfigError. */
  readonly idleTimeoutMs?: number;
}

export interface PullResult {
  readonly dir: string;
  readonly revision: string;
  readonly files: ReadonlyArray<{ path: string; bytes: number; status: "downloaded" | "resumed" | "present"; sha256?: string }>;
  /** The graph chosen (a seq2seq export's encoder), and why. */
  readonly choice: VariantChoice;
  /** A seq2seq export's decoder graph, fetched with the encoder `choice` names. */
  readonly decoder?: string;
  /** Where the tokenizer came from when the repository ships none and the model borrows one (HHEM: google/flan-t5-base). */
  readonly tokenizerFrom?: TokenizerLoan & { readonly revision: string };
  /** Every graph the repository offers (or, offline, the cached snapshot holds), with sizes. */
  readonly graphs: readonly GraphVariant[];
}

/**
 * The repository's graphs as recorded when the directory was pulled, or undefined when it
 * was not pulled by groundwatch (or the record is unreadable).
 */
export function readSavedListing(dir: string): { repo: string; sha: string; graphs: GraphVariant[] } | undefined {
  try {
    const raw = JSON.parse(readFileSync(join(dir, LISTING_FILE), "utf8")) as { repo?: unknown; sha?: unknown; graphs?: unknown };
    if (typeof raw.repo !== "string" || typeof raw.sha !== "string" || !Array.isArray(raw.graphs)) return undefined;
    const files = (raw.graphs as Array<{ path?: unknown; bytes?: unknown }>).flatMap((g) => (isSafeRelativePath(g.path) ? [[g.path, typeof g.bytes === "number" && Number.isSafeInteger(g.bytes) && g.bytes >= 0 ? g.bytes : undefined] as const] : []));
    return { repo: raw.repo, sha: raw.sha, graphs: graphVariants(files) };
  } catch {
    return undefined;
  }
}

const REQUIRED = ["config.json"];
/** Tokenizer and config files fetched when the repository has them. */
const OPTIONAL = ["tokenizer_config.json", "special_tokens_map.json", "added_tokens.json"];

/** The graph files to fetch by hand for a variant, when the listing is not known. */
function graphHint(variant: OnnxVariant): string {
  switch (variant) {
    case "auto":
    case "int8":
    case "quantized":
      return "one int8 graph: onnx/model_quantized.onnx (transformers.js exports), or the onnx/model_q*int8_*.onnx built for your CPU (sentence-transformers cross-encoders); else onnx/model.onnx (or model.onnx at the root)";
    case "fp32":
      return "onnx/model.onnx (or model.onnx at the root)";
    default:
      return variant;
  }
}

/** What a user does by hand when the hub cannot be reached. */
export function manualSteps(repo: string, variant: OnnxVariant, target: string): string {
  return [
    `To install ${repo} by hand, download these files from https://huggingface.co/${repo}/tree/main on a machine with access:`,
    `  config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json (if present), and ${graphHint(variant)}`,
    `and put them, keeping the onnx/ folder, in a directory such as:`,
    `  ${target}`,
    `then pass it with --model ${target} (or ${SCORE_ENV_NAMES.model}).`,
    `The model runs on ${ONNX_RUNTIME_PACKAGE}, an optional peer dependency: ${ONNX_RUNTIME_INSTALL_HINT} (npm install needs the npm registry; copy it over with the model where even that is out of reach).`,
  ].join("\n");
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
  if (!isPlainObject(raw)) throw new HubError(`${repo}@${revision}: the hub's answer is not a JSON object`);
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

export interface ListingOptions {
  readonly repo: string;
  readonly revision?: string;
  /** The hub's settings (cache folder, endpoint, token, offline), resolved at the edge. */
  readonly hub: HubSettings;
  /** Injected for tests; defaults to global fetch. */
  readonly fetch?: typeof fetch;
  /** How long the listing request waits for its response headers, in ms (default DEFAULT_HUB_TIMEOUT_MS, 30 s). */
  readonly timeoutMs?: number;
  /** How long the listing's body may send nothing, in ms (default DEFAULT_HUB_IDLE_TIMEOUT_MS, 60 s). */
  readonly idleTimeoutMs?: number;
}

export interface RepoListing {
  readonly repo: string;
  readonly revision: string;
  /** The commit the revision points at. */
  readonly sha: string;
  readonly files: ReadonlyMap<string, { readonly size: number | undefined; readonly sha256: string | undefined }>;
  /** The ONNX graphs among the files, with their sizes. */
  readonly graphs: readonly GraphVariant[];
}

function requestHeaders(hub: HubSettings): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": "groundwatch" };
  const token = hub.token;
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/**
 * The hub's file listing for a revision (GET /api/models/{repo}/revision/{rev}?blobs=true:
 * its siblings, with sizes and LFS hashes), checked. A bad repo id or revision is a
 * ConfigError; an unreachable hub, a refusal or an unsafe answer is a HubError (an
 * unreachable hub's message ends with the steps to install `variant` by hand).
 */
export async function fetchRepoListing(options: ListingOptions, variant: OnnxVariant = "auto", fallbackTarget?: string): Promise<RepoListing> {
  const repo = checkRepoId(options.repo);
  const revision = checkRevision(options.revision ?? "main");
  const endpoint = options.hub.endpoint;
  const infoUrl = `${endpoint}/api/models/${repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  const target = fallbackTarget ?? join(repoCacheDir(options.hub.cacheDir, repo), "snapshots", revision);
  const timeoutMs = positiveInteger("timeoutMs", options.timeoutMs, DEFAULT_HUB_TIMEOUT_MS);
  const idleTimeoutMs = positiveInteger("idleTimeoutMs", options.idleTimeoutMs, DEFAULT_HUB_IDLE_TIMEOUT_MS);
  let raw: unknown;
  try {
    // The listing is small: the whole request is bounded too (the client's default), not only its silences.
    const res = await fetchBounded(infoUrl, { headers: requestHeaders(options.hub) }, { fetch: options.fetch, headersMs: timeoutMs, idleMs: idleTimeoutMs, maxBytes: MAX_LISTING_BYTES });
    if (!res.ok) res.discard();
    if (res.status === 401 || res.status === 403) throw new HubError(`${repo}: the hub refused access (HTTP ${res.status}); for a private or gated repo set HF_TOKEN`);
    if (res.status === 404) throw new HubError(`${repo}@${revision}: not found on ${endpoint} (HTTP 404)`);
    if (!res.ok) throw new HubError(`${infoUrl}: HTTP ${res.status}`);
    const text = await res.text();
    raw = JSON.parse(text);
  } catch (error) {
    if (error instanceof HubError) throw error;
    if (error instanceof SyntaxError) throw new HubError(`${repo}@${revision}: the hub's answer from ${endpoint} is not JSON`);
    if (error instanceof BodyTooLargeError) throw new HubError(`${repo}@${revision}: the hub's listing from ${endpoint} is larger than ${MAX_LISTING_BYTES} bytes; refused`);
    throw new HubError(`cannot reach ${endpoint} (${redactSecrets((error as Error).message, [options.hub.token])}).\n${manualSteps(repo, variant, target)}`);
  }
  const { sha, files } = readListing(raw, repo, revision);
  return { repo, revision, sha, files, graphs: graphVariants([...files].map(([path, f]) => [path, f.size] as const)) };
}

/**
 * Downloads a model repository's ONNX files from the Hugging Face Hub (or any server
 * with its URL layout: HF_ENDPOINT) into the hub cache: the config and tokenizer files and
 * the one graph `variant` chooses (with its external data file, if it has one), never the
 * whole onnx/ folder. Each file is written to `.incomplete`, resumed with a Range request
 * after an interruption, never past the size the hub lists (a file listed without one is
 * refused), checked against that size and the sha256, and renamed into place only when whole.
 * Every request waits at most `timeoutMs` for its headers and `idleTimeoutMs` between chunks.
 * Writes stay inside the cache (or `dir`): a planted link that leads out of it is refused, and
 * files are opened without following links (see safe-fs.ts). A bad repo id, revision or variant
 * is a ConfigError; an unsafe answer from the hub is a HubError.
 */
export async function pullModel(options: PullOptions): Promise<PullResult> {
  const repo = checkRepoId(options.repo);
  const revision = checkRevision(options.revision ?? "main");
  const variant = checkVariant(options.variant ?? "auto");
  const cpu = options.cpu ?? readCpuFeatures();
  const cache = options.hub.cacheDir;
  const repoDir = repoCacheDir(cache, repo);
  const doFetch = options.fetch ?? fetch;
  const attempts = options.attempts ?? 3;
  const headers = requestHeaders(options.hub);
  const fallbackTarget = options.dir ?? join(repoDir, "snapshots", revision);

  if (options.hub.offline) {
    const cached = options.dir ? (existsSync(join(options.dir, "config.json")) ? options.dir : undefined) : cachedSnapshot(cache, repo, revision);
    if (!cached) throw new HubError(`HF_HUB_OFFLINE is set and ${repo}@${revision} is not cached in ${cache}.\n${manualSteps(repo, variant, fallbackTarget)}`);
    const graphs = localGraphs(cached);
    let plan: ReturnType<typeof planGraphs>;
    try {
      plan = planGraphs(graphs, variant, cpu, `the cached ${repo}@${revision}`);
    } catch (error) {
      throw new HubError(`HF_HUB_OFFLINE is set and the cached ${repo}@${revision} in ${cached} has no graph for --variant ${variant}: ${(error as Error).message}\n${manualSteps(repo, variant, cached)}`);
    }
    return { dir: cached, revision, files: [], choice: plan.choice, graphs, ...(plan.decoder ? { decoder: plan.decoder } : {}) };
  }

  const listing = await fetchRepoListing({ ...options, repo, revision }, variant, fallbackTarget);
  const { sha, files: siblings } = listing;
  const endpoint = options.hub.endpoint;
  const snapshots = join(repoDir, "snapshots");
  const target = options.dir ?? inside(snapshots, join(snapshots, sha));
  let plan: ReturnType<typeof planGraphs>;
  try {
    plan = planGraphs(listing.graphs, variant, cpu, `${repo}@${revision}`);
  } catch (error) {
    if (isConfigError(error)) throw error;
    throw new HubError(`${(error as Error).message}: not a model groundwatch can load`);
  }
  const { choice } = plan;
  const missing = REQUIRED.filter((f) => !siblings.has(f));
  if (missing.length > 0) throw new HubError(`${repo}@${revision} lacks ${missing.join(", ")}: not a model groundwatch can load`);
  // A repository without tokenizer.json loads only when its model borrows one (HHEM); by name that is known now, by config.json once fetched.
  const ownTokenizer = siblings.has("tokenizer.json");
  const support = [...REQUIRED, ...(ownTokenizer ? ["tokenizer.json"] : []), ...OPTIONAL.filter((f) => siblings.has(f))];
  // A graph over 2 GB keeps its weights in an external data file beside it, which onnxruntime reads from there.
  const graphFiles = plan.paths.flatMap((graph) => [graph, ...[`${graph}_data`, `${graph}.data`].filter((f) => siblings.has(f))]);
  const wanted = [...support, ...graphFiles];
  // Nothing is fetched past the size the hub lists, so a file must have one.
  const unsized = wanted.filter((f) => siblings.get(f)?.size === undefined);
  if (unsized.length > 0) throw new HubError(`${repo}@${revision}: the hub lists no size for ${unsized.map((f) => shown(f)).join(", ")}; groundwatch downloads only files of a known size`);

  // Every folder written into is checked against the root's real path before anything is fetched.
  const root = openWriteRoot(options.dir ?? cache);
  ensureDirInside(root, target);
  const refs = join(repoDir, "refs");
  // A revision such as refs/pr/1 is a nested file, as the hub's own clients store it.
  const ref = options.dir ? undefined : inside(refs, join(refs, revision));
  if (ref) ensureDirInside(root, dirname(ref));
  const settings = {
    headers,
    fetch: doFetch,
    attempts,
    backoffMs: options.backoffMs ?? 500,
    timeoutMs: positiveInteger("timeoutMs", options.timeoutMs, DEFAULT_HUB_TIMEOUT_MS),
    idleTimeoutMs: positiveInteger("idleTimeoutMs", options.idleTimeoutMs, DEFAULT_HUB_IDLE_TIMEOUT_MS),
    onProgress: options.onProgress,
  };

  const results: Array<PullResult["files"][number]> = [];
  const fetchFiles = async (from: string, fromSha: string, listed: ReadonlyMap<string, Listed>, paths: readonly string[]): Promise<void> => {
    for (const path of paths) {
      const meta = listed.get(path);
      const size = meta?.size ?? 0;
      const expectedSha = meta?.sha256;
      const dest = inside(target, join(target, path));
      ensureDirInside(root, dirname(dest));
      if (existingFileSize(root, dest) === size && (!expectedSha || (await sha256Of(dest)) === expectedSha)) {
        results.push({ path, bytes: size, status: "present", ...(expectedSha ? { sha256: expectedSha } : {}) });
        continue;
      }
      const url = `${endpoint}/${from}/resolve/${encodeURIComponent(fromSha)}/${path}`;
      const got = await downloadFile({ path, url, dest, size, sha256: expectedSha }, settings);
      results.push({ path, ...got });
    }
  };
  await fetchFiles(repo, sha, siblings, support);
  const tokenizerFrom = ownTokenizer ? undefined : await borrowTokenizer(repo, revision, target, options, async (from, fromSha, listed, paths) => fetchFiles(from, fromSha, listed, paths));
  await fetchFiles(repo, sha, siblings, graphFiles);
  // What the repository offers, so that `model info` can list its variants without the network.
  await writeFileReplacing(inside(target, join(target, LISTING_FILE)), `${JSON.stringify({ repo, revision, sha, graphs: listing.graphs.map((g) => ({ path: g.path, bytes: g.bytes ?? null })) }, null, 1)}\n`);
  if (ref) await writeFileReplacing(ref, sha);
  return { dir: target, revision: sha, files: results, choice, graphs: listing.graphs, ...(plan.decoder ? { decoder: plan.decoder } : {}), ...(tokenizerFrom ? { tokenizerFrom } : {}) };
}

type FetchFiles = (from: string, sha: string, listed: ReadonlyMap<string, Listed>, paths: readonly string[]) => Promise<void>;

/**
 * For a repository without tokenizer.json: the tokenizer files of the repository its model borrows
 * from (recognised by name or by the config.json just fetched), written beside the graph with a
 * record of where they came from; a HubError when the model borrows none.
 */
async function borrowTokenizer(repo: string, revision: string, target: string, options: PullOptions, fetchFiles: FetchFiles): Promise<(TokenizerLoan & { revision: string }) | undefined> {
  let config: Record<string, unknown> | undefined;
  try {
    const raw: unknown = JSON.parse(readFileSync(join(target, "config.json"), "utf8"));
    config = isPlainObject(raw) ? (raw as Record<string, unknown>) : undefined;
  } catch {
    config = undefined;
  }
  const loan = tokenizerLoan(repo, config);
  if (!loan) throw new HubError(`${repo}@${revision} lacks tokenizer.json, and is not a model known to borrow one (HHEM-2.1-Open borrows google/flan-t5-base's): not a model groundwatch can load`);
  const lender = await fetchRepoListing({ ...options, repo: loan.from, revision: "main" });
  const files = BORROWED_TOKENIZER_FILES.filter((f) => lender.files.has(f));
  if (!files.includes("tokenizer.json")) throw new HubError(`${repo} borrows its tokenizer from ${loan.from}, which lacks tokenizer.json`);
  const unsized = files.filter((f) => lender.files.get(f)?.size === undefined);
  if (unsized.length > 0) throw new HubError(`${loan.from}@main: the hub lists no size for ${unsized.map((f) => shown(f)).join(", ")}; groundwatch downloads only files of a known size`);
  await fetchFiles(loan.from, lender.sha, lender.files, files);
  await writeFileReplacing(inside(target, join(target, TOKENIZER_SOURCE_FILE)), `${JSON.stringify({ repo: loan.from, sha: lender.sha, recipe: loan.recipe, because: loan.because })}\n`);
  return { ...loan, revision: lender.sha };
}
