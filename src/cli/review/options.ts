import { resolve } from "node:path";
import { COLLECTOR_ENV, REVIEW_ENV } from "../../config/env.ts";
import { stripControls } from "../../core/safe-text.ts";
import { labelsPath } from "../../review/spool-files.ts";
import type { ReviewStore } from "../../review/store.ts";
import { createDirectoryStore } from "../../review/store.ts";
import { createRemoteStore } from "./remote-store.ts";
import { UsageError } from "../shared/command.ts";
import type { CommandIo } from "../shared/io.ts";

/**
 * What a review session reads and who labels, resolved once at the edge for the terminal review and
 * `review --web` alike: each from its flag, else its environment variable, else the default (the
 * labels file: labels.jsonl in the first spool directory). Paths are resolved against the working
 * directory.
 */

/** The flags both review views take for the session. */
export interface ReviewTargetFlags {
  readonly dir?: readonly string[] | undefined;
  readonly reviewer?: string | undefined;
  readonly labels?: string | undefined;
}

export interface ReviewTarget {
  /** The spool directories (replicas), merged; at least one. */
  readonly dirs: readonly string[];
  /** The reviewer's name (reviewerProblem finds nothing wrong with it). */
  readonly reviewer: string;
  /** The labels file read and appended to. */
  readonly labels: string;
}

/** The longest reviewer name. */
export const REVIEWER_MAX_LENGTH = 100;

/**
 * What is wrong with a reviewer name, in words, or undefined when nothing is. One rule for every
 * view, so a name that labelled in the terminal can go on labelling on the page: 1 to 100
 * characters, no control characters, no space at either end.
 */
export function reviewerProblem(name: string): string | undefined {
  if (name.trim() !== name || name === "") return "a name without spaces at either end";
  if (name.length > REVIEWER_MAX_LENGTH || stripControls(name) !== name) return `at most ${REVIEWER_MAX_LENGTH} characters, without control characters`;
  return undefined;
}

/** The reviewer (flag > environment); a missing or bad one is a UsageError naming --reviewer. */
function resolveReviewer(flags: ReviewTargetFlags, io: Pick<CommandIo, "env">): string {
  const reviewer = (flags.reviewer ?? io.env[REVIEW_ENV.reviewer] ?? "").trim();
  if (reviewer === "") throw new UsageError(`--reviewer is required: who is labelling (or set ${REVIEW_ENV.reviewer})`, true);
  const problem = reviewerProblem(reviewer);
  if (problem !== undefined) throw new UsageError(`--reviewer must be ${problem}`);
  return reviewer;
}

/** Resolves the spool directories, the reviewer and the labels file (flag > environment > default); a missing or bad one is a UsageError naming the flag. */
export function resolveReviewTarget(flags: ReviewTargetFlags, io: Pick<CommandIo, "env" | "cwd">): ReviewTarget {
  const given = flags.dir ?? [];
  const envDir = io.env[REVIEW_ENV.dir];
  const dirs = (given.length > 0 ? given : envDir ? [envDir] : []).map((d) => resolve(io.cwd, d));
  const first = dirs[0];
  if (first === undefined) throw new UsageError(`--dir is required (a spool directory; or set ${REVIEW_ENV.dir}), or --url (a collector)`, true);
  const reviewer = resolveReviewer(flags, io);
  const labels = flags.labels !== undefined ? resolve(io.cwd, flags.labels) : labelsPath(first);
  return { dirs, reviewer, labels };
}

/** Where a review reads and writes: spool directories, or a deployment's collectors over their API. */
export interface ReviewSourceFlags extends ReviewTargetFlags {
  /** A collector's base URL (any replica of the deployment). */
  readonly url?: string | undefined;
  /** The collector's bearer token (default GROUNDWATCH_TOKEN). */
  readonly collectorToken?: string | undefined;
}

/**
 * Checks `--url` (an http or https URL; not with --dir or --labels, which name files on this machine)
 * and returns it with the collector's token (the flag, else GROUNDWATCH_TOKEN); undefined without --url.
 */
export function resolveCollectorUrl(flags: Pick<ReviewSourceFlags, "url" | "collectorToken" | "dir" | "labels">, io: Pick<CommandIo, "env">, dirFlag = "--dir"): { url: string; token: string | undefined } | undefined {
  if (flags.url === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(flags.url);
  } catch {
    throw new UsageError(`--url must be a collector's http(s) URL, e.g. http://127.0.0.1:4318 (got ${JSON.stringify(flags.url.slice(0, 80))})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--url must be http or https (got ${url.protocol})`);
  if ((flags.dir ?? []).length > 0 || flags.labels !== undefined) throw new UsageError(`--url reads the spools and labels through the collector: not with ${dirFlag} or --labels`);
  return { url: url.toString().replace(/\/+$/, ""), token: flags.collectorToken ?? (io.env[COLLECTOR_ENV.token]?.trim() || undefined) };
}

/** The store a review session works through and the reviewer: the collector at --url, else the spool directories (resolveReviewTarget). */
export function resolveReviewSource(flags: ReviewSourceFlags, io: Pick<CommandIo, "env" | "cwd">): { readonly store: ReviewStore; readonly reviewer: string } {
  const remote = resolveCollectorUrl(flags, io);
  if (remote) return { store: createRemoteStore(remote), reviewer: resolveReviewer(flags, io) };
  const target = resolveReviewTarget(flags, io);
  // Without --labels: labels.jsonl of every directory is read (labels follow their answers), the first one's written.
  return { store: createDirectoryStore({ dirs: target.dirs, labelsFile: flags.labels !== undefined ? target.labels : undefined }), reviewer: target.reviewer };
}
