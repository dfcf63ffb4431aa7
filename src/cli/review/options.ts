import { resolve } from "node:path";
import { REVIEW_ENV } from "../../config/env.ts";
import { stripControls } from "../../core/safe-text.ts";
import { labelsPath } from "../../review/spool-files.ts";
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

/** Resolves the spool directories, the reviewer and the labels file (flag > environment > default); a missing or bad one is a UsageError naming the flag. */
export function resolveReviewTarget(flags: ReviewTargetFlags, io: Pick<CommandIo, "env" | "cwd">): ReviewTarget {
  const given = flags.dir ?? [];
  const envDir = io.env[REVIEW_ENV.dir];
  const dirs = (given.length > 0 ? given : envDir ? [envDir] : []).map((d) => resolve(io.cwd, d));
  const first = dirs[0];
  if (first === undefined) throw new UsageError(`--dir is required (a spool directory; or set ${REVIEW_ENV.dir})`, true);
  const reviewer = (flags.reviewer ?? io.env[REVIEW_ENV.reviewer] ?? "").trim();
  if (reviewer === "") throw new UsageError(`--reviewer is required: who is labelling (or set ${REVIEW_ENV.reviewer})`, true);
  const problem = reviewerProblem(reviewer);
  if (problem !== undefined) throw new UsageError(`--reviewer must be ${problem}`);
  const labels = flags.labels !== undefined ? resolve(io.cwd, flags.labels) : labelsPath(first);
  return { dirs, reviewer, labels };
}
