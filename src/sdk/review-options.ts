import { MONITOR_ENV, REVIEW_ENV } from "../config/env.ts";
import { hostname } from "node:os";
import { resolve as resolvePath } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { integerIn, numberIn, parseNonEmpty, parseRate } from "../config/parse.ts";
import { fieldReader, fileRelativePath } from "../config/resolve.ts";
import { SPOOL_LINE_MAX_BYTES } from "../review/spool-fs.ts";
import { isPlainObject } from "../core/plain-object.ts";

/**
 * The review spool's options (`createMonitor({ review })`, the config file's monitor.review, the
 * GROUNDWATCH_REVIEW_* variables, `serve --review-dir`), resolved once: option > env > config file > default.
 */

/** Keep answers for people to review: every flagged answer and a sample of grounded ones, written to a spool on disk (docs/review.md). */
export interface ReviewOptions {
  /** The spool directory (created 0700). Env GROUNDWATCH_REVIEW_DIR; in a config file, relative to its folder. Needs captureContent. */
  readonly dir: string;
  /** Share of grounded answers also spooled, so that labels estimate recall too, in [0, 1]. Env GROUNDWATCH_REVIEW_SAMPLE_RATE, default 0.05. */
  readonly groundedSampleRate?: number;
  /** Most bytes the spool's segments may hold; past it answers are skipped (counted). Env GROUNDWATCH_REVIEW_MAX_BYTES, default 256 MiB. */
  readonly maxBytes?: number;
  /** A new segment starts before one would pass this size; a longer record is skipped. Env GROUNDWATCH_REVIEW_SEGMENT_BYTES, default 8 MiB, at most 256 MiB. */
  readonly segmentBytes?: number;
  /** Segments whose newest answer is older than this many days are removed. Env GROUNDWATCH_REVIEW_RETENTION_DAYS, default 30. */
  readonly retentionDays?: number;
  /** This writer's name in segment file names, [A-Za-z0-9_.-] (others become "_"). Env GROUNDWATCH_REVIEW_REPLICA, default hostname-pid. */
  readonly replica?: string;
}

/** The review options' environment variables: spelled once, in config/env.ts. */
export { REVIEW_ENV };

export interface ResolvedReviewOptions {
  readonly dir: string;
  readonly groundedSampleRate: number;
  readonly maxBytes: number;
  readonly segmentBytes: number;
  readonly retentionMs: number;
  readonly replica: string;
}

const DAY_MS = 86_400_000;

/** A replica name as segment names allow it: [A-Za-z0-9_.-], at most 64 characters. */
export function sanitizeReplica(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
  return clean === "" ? "replica" : clean;
}

/**
 * Resolves the review options, or undefined when no spool directory is set. A spool without content
 * capture is a ConfigError naming review.dir: the spool holds answer and document text, which is only
 * kept when captureContent is on.
 */
export function resolveReviewOptions(
  option: ReviewOptions | undefined,
  context: { readonly env: NodeJS.ProcessEnv; readonly file: Readonly<Record<string, unknown>> | undefined; readonly configFile: string | undefined; readonly captureContent: boolean },
): ResolvedReviewOptions | undefined {
  if (option !== undefined && !isPlainObject(option)) throw new ConfigError("review", option, "expected an object with a dir");
  const fileSection = context.file;
  if (fileSection !== undefined && !isPlainObject(fileSection)) throw new ConfigError("config file monitor.review", fileSection, "expected an object with a dir");
  const o = (option ?? {}) as Record<string, unknown>;
  const read = fieldReader<keyof ReviewOptions>({ options: o, env: context.env, envNames: REVIEW_ENV, file: fileSection, section: "monitor.review", prefix: "review." });
  const dirField = read.field("dir", parseNonEmpty);
  const rawDir = dirField.value;
  if (rawDir === undefined) {
    if (option !== undefined) throw new ConfigError("review.dir", o.dir, "expected the spool directory");
    return undefined;
  }
  if (!context.captureContent) throw new ConfigError(dirField.field, rawDir, `the review spool keeps answer and document text, so it needs content capture: set captureContent (${MONITOR_ENV.captureContent}=1), or leave review off`);
  const dir = resolvePath(fileRelativePath(dirField, context.configFile) ?? rawDir);
  const maxBytes = read("maxBytes", integerIn(1024, 2 ** 48), 256 * 1024 * 1024);
  // A segment is read whole line by line: no longer than the longest line a reader takes.
  const segmentBytes = read("segmentBytes", integerIn(1024, SPOOL_LINE_MAX_BYTES), 8 * 1024 * 1024);
  if (segmentBytes > maxBytes) throw new ConfigError("review.segmentBytes", segmentBytes, `expected at most review.maxBytes (${maxBytes})`);
  const replica = read("replica", parseNonEmpty);
  return {
    dir,
    groundedSampleRate: read("groundedSampleRate", (f, v) => parseRate(f, v, "a sampling rate"), 0.05),
    maxBytes,
    segmentBytes,
    retentionMs: read("retentionDays", numberIn({ min: 0.001, max: 36_500, what: "a number of days" }), 30) * DAY_MS,
    replica: sanitizeReplica(replica ?? `${hostname()}-${process.pid}`),
  };
}
