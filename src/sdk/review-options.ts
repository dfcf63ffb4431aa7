import { REVIEW_ENV } from "../config/env.ts";
import { hostname } from "node:os";
import { dirname, resolve as resolvePath } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { parseInteger, parseNonEmpty, parseNumber, parseRate } from "../config/parse.ts";
import { pickSource } from "../config/resolve.ts";
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
  const pick = (key: keyof ReviewOptions & string) => {
    const picked = pickSource({ key: `review.${key}`, option: o[key], env: context.env, envName: REVIEW_ENV[key], file: fileSection, section: "monitor.review", fileKey: key });
    return picked;
  };
  const dirPick = pick("dir");
  const rawDir = parseNonEmpty(dirPick.field, dirPick.value);
  if (rawDir === undefined) {
    if (option !== undefined) throw new ConfigError("review.dir", o.dir, "expected the spool directory");
    return undefined;
  }
  if (!context.captureContent) throw new ConfigError(dirPick.field, rawDir, "the review spool keeps answer and document text, so it needs content capture: set captureContent (GROUNDWATCH_CAPTURE_CONTENT=1), or leave review off");
  const dir = dirPick.source === "file" && context.configFile ? resolvePath(dirname(context.configFile), rawDir) : resolvePath(rawDir);
  const value = <T>(key: keyof ReviewOptions & string, parse: (field: string, v: unknown) => T | undefined, fallback: T): T => {
    const picked = pick(key);
    return parse(picked.field, picked.value) ?? fallback;
  };
  const maxBytes = value("maxBytes", (f, v) => parseInteger(f, v, 1024, 2 ** 48), 256 * 1024 * 1024);
  // A segment is read whole line by line: no longer than the longest line a reader takes.
  const segmentBytes = value("segmentBytes", (f, v) => parseInteger(f, v, 1024, SPOOL_LINE_MAX_BYTES), 8 * 1024 * 1024);
  if (segmentBytes > maxBytes) throw new ConfigError("review.segmentBytes", segmentBytes, `expected at most review.maxBytes (${maxBytes})`);
  const replicaPick = pick("replica");
  const replica = parseNonEmpty(replicaPick.field, replicaPick.value);
  return {
    dir,
    groundedSampleRate: value("groundedSampleRate", (f, v) => parseRate(f, v, "a sampling rate"), 0.05),
    maxBytes,
    segmentBytes,
    retentionMs: value("retentionDays", (f, v) => parseNumber(f, v, { min: 0.001, max: 36_500, what: "a number of days" }), 30) * DAY_MS,
    replica: sanitizeReplica(replica ?? `${hostname()}-${process.pid}`),
  };
}
