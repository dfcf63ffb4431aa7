import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError, isConfigError } from "../../config/errors.ts";
import type { HubSettings } from "../../config/hub.ts";
import type { OnnxVariant } from "../onnx/model-dir.ts";
import type { GraphVariant } from "../onnx/variants.ts";
import { cachedSnapshot, isRepoId } from "./cache.ts";
import type { RepoListing } from "./pull.ts";
import { fetchRepoListing, readSavedListing } from "./pull.ts";

// What a model name given on the command line (`model info DIR|REPO`) points at, decided once:
// a local directory, or a Hugging Face repo with its cached snapshot and the variants it offers.

/** The graph variants a repository offers at a commit. */
export interface OfferedGraphs {
  /** The commit the listing describes. */
  readonly sha: string;
  readonly graphs: readonly GraphVariant[];
}

/** A model directory on disk. */
export interface ModelDirTarget {
  readonly kind: "dir";
  /** The directory, resolved against the command's directory. */
  readonly dir: string;
  /** The repository listing `model pull` saved into it, when it was pulled. */
  readonly saved: (OfferedGraphs & { readonly repo: string }) | undefined;
}

/** A Hugging Face repo id, with what is known of it locally and from the hub. */
export interface ModelRepoTarget {
  readonly kind: "repo";
  readonly repo: string;
  readonly revision: string;
  /** Its snapshot in the hub cache, when pulled. */
  readonly cached: string | undefined;
  /** The variants it offers: the listing saved by `model pull`, else the hub's (unless offline). */
  readonly listing: OfferedGraphs | undefined;
  /** True when the listing is the one saved by `model pull`. */
  readonly listingSaved: boolean;
  /** Why the hub's listing could not be read, in one line (only for a cached repo: otherwise it throws). */
  readonly listingError: string | undefined;
}

/** What `model info` describes. */
export type ModelTarget = ModelDirTarget | ModelRepoTarget;

/** How describeModelTarget looks a model up. */
export interface DescribeModelTargetOptions {
  /** The directory a relative path is found from (the command's, not the process's). */
  readonly cwd: string;
  /** The hub's settings (cache folder, offline, endpoint, token), resolved at the edge. */
  readonly hub: HubSettings;
  /** The repo revision (default "main"). */
  readonly revision?: string | undefined;
  /** The variant asked for; the listing's refusal names it. */
  readonly variant: OnnxVariant;
  /** How long the hub's listing may take to answer, in ms. */
  readonly timeoutMs: number;
  /** Injected for tests; defaults to global fetch. */
  readonly fetch?: typeof fetch | undefined;
}

/** An existing path as a model directory; a file is a ConfigError on `field` (model, relevanceModel) naming what was given. */
export function modelDirectory(path: string, given: string = path, field = "model"): string {
  if (!statSync(path).isDirectory()) throw new ConfigError(field, given, "expected a model directory, got a file");
  return path;
}

/** The refusal of a repo that is not in the hub cache (scoring never downloads), on `field` (model, relevanceModel). */
export function notCachedError(repo: string, cacheDir: string, revision = "main", field = "model"): ConfigError {
  const pin = revision === "main" ? "" : ` at revision ${revision}`;
  return new ConfigError(field, repo, `not in the model cache ${cacheDir}${pin}; run \`groundwatch model pull ${repo}${revision === "main" ? "" : ` --revision ${revision}`}\``);
}

/** The refusal of a name that is neither an existing directory nor a repo id, on `field` (model, relevanceModel). */
export function notAModelError(given: string, field = "model"): ConfigError {
  return new ConfigError(field, given, "no such directory, and not a Hugging Face repo id (org/name)");
}

/**
 * Decides what `target` names, once: an existing directory (relative to `cwd`), else a repo id,
 * described from its cached snapshot and its listing. Throws a ConfigError for a name that is
 * neither, and for a repo that is not cached when its listing cannot be had (HF_HUB_OFFLINE).
 */
export async function describeModelTarget(target: string, options: DescribeModelTargetOptions): Promise<ModelTarget> {
  const local = resolve(options.cwd, target);
  if (existsSync(local)) return { kind: "dir", dir: modelDirectory(local), saved: readSavedListing(local) };
  if (!isRepoId(target)) throw notAModelError(target);
  const revision = options.revision ?? "main";
  const cached = cachedSnapshot(options.hub.cacheDir, target, revision);
  const saved = cached ? readSavedListing(cached) : undefined;
  let listing: OfferedGraphs | undefined = saved;
  let listingError: string | undefined;
  if (!listing && !options.hub.offline) {
    try {
      const fetched: Pick<RepoListing, "sha" | "graphs"> = await fetchRepoListing({ repo: target, hub: options.hub, timeoutMs: options.timeoutMs, ...(options.revision ? { revision: options.revision } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) }, options.variant);
      listing = fetched;
    } catch (error) {
      if (isConfigError(error) || !cached) throw error;
      listingError = (error as Error).message.split("\n")[0];
    }
  }
  // HF_HUB_OFFLINE and not cached: the same refusal as --model REPO.
  if (!cached && !listing) throw notCachedError(target, options.hub.cacheDir, revision);
  return { kind: "repo", repo: target, revision, cached, listing, listingSaved: saved !== undefined, listingError };
}
