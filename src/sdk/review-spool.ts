import { diag } from "@opentelemetry/api";
import type { ContentPolicy } from "../telemetry/content-policy.ts";
import type { EvaluationAt } from "../evaluation/views.ts";
import { spoolRecordOf } from "../evaluation/views.ts";
import type { SpoolKind, SpoolRecord } from "../review/record.ts";
import { REVIEW_RECORD_VERSION } from "../review/record.ts";
import type { SpoolSkipReason, SpoolWriter } from "../review/spool-writer.ts";
import { createSpoolWriter } from "../review/spool-writer.ts";
import type { SpoolFileSkip } from "../review/spool-fs.ts";
import { describeSkip } from "../review/spool-fs.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import { ATTR_REASON, ATTR_REVIEW_KIND, METRICS } from "../telemetry/semconv.ts";
import type { EvaluationSummary } from "../evaluation/types.ts";
import type { ResolvedReviewOptions } from "./review-options.ts";
import type { ScoringRequest } from "./worker.ts";

/**
 * The monitor's side of the review spool: decides which scored answers are kept (every flagged one,
 * i.e. ungrounded; a grounded one with probability groundedSampleRate, drawn from the monitor's
 * random source; an unscorable answer has no claims to judge and is not review material), builds the
 * record on the main thread from the copied observation and the scorer's summary with the
 * evaluation's spool view (every text through the redact hook), writes it, and counts what was
 * written and what was skipped.
 */

export interface ReviewSpool {
  /** Offers a scored answer, dated `timeMs` (ms since the epoch; default the spool's clock: the flagged ring's time of it, so both say the same); never throws. Returns what happened to it (undefined: not picked). */
  offer(observation: ScoringRequest, result: EvaluationSummary, at: EvaluationAt, timeMs?: number): SpoolKind | SpoolSkipReason | "redact_error" | undefined;
  close(): void;
}

export interface ReviewSpoolOptions {
  readonly review: ResolvedReviewOptions;
  /** The monitor's random source (grounded sample draws). */
  readonly random: () => number;
  /** The monitor's content policy: every text passes its redact hook before it is written, under its one failure rule. */
  readonly content: ContentPolicy;
  readonly instruments: () => Instruments;
  /** Wall clock in ms (default Date.now): record times and segment names. */
  readonly clock?: () => number;
}

/** Which kind an answer would be spooled as, or undefined when it is not picked. */
function pick(verdict: EvaluationSummary["verdict"], rate: number, random: () => number): SpoolKind | undefined {
  if (verdict === "ungrounded") return "flagged";
  if (verdict === "grounded" && rate > 0 && random() < rate) return "grounded_sample";
  return undefined;
}

/** Opens the spool; a directory that cannot be opened is said once (diag) and every answer picked is counted io_error. */
export function createReviewSpool(options: ReviewSpoolOptions): ReviewSpool {
  const { review, random, instruments } = options;
  const clock = options.clock ?? Date.now;
  const content = options.content;
  /** Reasons already said (diag, once each); every file passed over is counted. */
  const said = new Set<SpoolFileSkip>();
  const onSkippedFile = (path: string, reason: SpoolFileSkip): void => {
    instruments().reviewFilesSkipped.add(1, { [ATTR_REASON]: reason });
    if (said.has(reason)) return;
    said.add(reason);
    diag.warn(`groundwatch: the review spool passes over ${path}: it is ${describeSkip(reason)}; counted on ${METRICS.reviewFilesSkipped.prometheus}{groundwatch_reason="${reason}"}`);
  };
  let writer: SpoolWriter | undefined;
  try {
    writer = createSpoolWriter({ dir: review.dir, replica: review.replica, maxBytes: review.maxBytes, segmentBytes: review.segmentBytes, retentionMs: review.retentionMs, clock, onSkippedFile });
  } catch (error) {
    diag.error(`groundwatch: the review spool ${review.dir} cannot be opened (${(error as Error).message}); answers picked for review are counted as skipped (io_error)`);
  }
  const skipped = (reason: SpoolSkipReason | "redact_error"): typeof reason => {
    instruments().reviewSkipped.add(1, { [ATTR_REASON]: reason });
    return reason;
  };
  return {
    offer(observation, result, at, timeMs) {
      try {
        const kind = pick(result.verdict, review.groundedSampleRate, random);
        if (!kind) return undefined;
        if (!writer) return skipped("io_error");
        const sampleRate = kind === "flagged" ? 1 : review.groundedSampleRate;
        // A record without content is no review record: a redact hook that throws leaves it unwritten (never unredacted).
        const record: SpoolRecord | undefined = content.record(
          "review",
          at.route,
          () => ({ v: REVIEW_RECORD_VERSION, ...spoolRecordOf(observation, result, at, kind, { replica: review.replica, time: new Date(timeMs ?? clock()).toISOString(), sampleRate, redact: content.redacted }) }),
          () => undefined,
        );
        if (!record) return skipped("redact_error");
        const written = writer.append(record);
        if (!written.written) return skipped(written.reason);
        instruments().reviewSpooled.add(1, { [ATTR_REVIEW_KIND]: kind });
        return kind;
      } catch (error) {
        diag.error(`groundwatch: spooling an answer for review failed: ${(error as Error).message}`);
        return undefined;
      }
    },
    close() {
      writer?.close();
    },
  };
}
