import { randomUUID } from "node:crypto";
import { diag } from "@opentelemetry/api";
import { documentId, toDocuments } from "../core/context.ts";
import type { SpoolDocument, SpoolKind, SpoolRecord } from "../review/record.ts";
import type { ContentPolicy } from "../telemetry/content-policy.ts";
import { REVIEW_RECORD_VERSION } from "../review/record.ts";
import type { SpoolSkipReason, SpoolWriter } from "../review/spool-writer.ts";
import { createSpoolWriter } from "../review/spool-writer.ts";
import type { SpoolFileSkip } from "../review/spool-fs.ts";
import { describeSkip } from "../review/spool-fs.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import { ATTR_REASON, ATTR_REVIEW_KIND, METRICS } from "../telemetry/semconv.ts";
import type { EvaluationSummary } from "../telemetry/summary.ts";
import type { ResolvedReviewOptions } from "./review-options.ts";
import type { ScoringRequest } from "./worker.ts";

/**
 * The monitor's side of the review spool: decides which scored answers are kept (every ungrounded
 * one; a grounded one with probability groundedSampleRate, drawn from the monitor's random source;
 * an unscorable answer has no claims to judge and is not review material), builds the record on the
 * main thread from the copied observation and the scorer's summary, passes every text through the
 * redact hook, writes it, and counts what was written and what was skipped.
 */

/** Where an evaluation happened: its route label and its evaluation span's ids. */
export interface ReviewAt {
  readonly route: string;
  readonly traceId: string;
  readonly spanId: string;
}

export interface ReviewSpool {
  /** Offers a scored answer; never throws. Returns what happened to it (undefined: not picked). */
  offer(observation: ScoringRequest, result: EvaluationSummary, at: ReviewAt): SpoolKind | SpoolSkipReason | "redact_error" | undefined;
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

const INVALID_ID = /^0+$/;

/** Which kind an answer would be spooled as, or undefined when it is not picked. */
function pick(verdict: EvaluationSummary["verdict"], rate: number, random: () => number): SpoolKind | undefined {
  if (verdict === "ungrounded") return "flagged";
  if (verdict === "grounded" && rate > 0 && random() < rate) return "grounded_sample";
  return undefined;
}

/** The spool record of a scored answer, every text through `redact` (which may throw: the content policy's rule then applies). */
export function spoolRecordOf(observation: ScoringRequest, result: EvaluationSummary, at: ReviewAt, kind: SpoolKind, meta: { replica: string; time: string; sampleRate: number; redact: (text: string) => string }): SpoolRecord {
  const r = meta.redact;
  const documents: SpoolDocument[] = toDocuments(observation.context).map((d) => {
    const id = documentId(d.id);
    return { ...(id !== undefined ? { id: r(id) } : {}), ...(d.title !== undefined ? { title: r(d.title) } : {}), ...(d.url !== undefined ? { url: r(d.url) } : {}), text: r(d.text) };
  });
  const traced = !INVALID_ID.test(at.traceId) && !INVALID_ID.test(at.spanId);
  return {
    v: REVIEW_RECORD_VERSION,
    id: traced ? `${at.traceId}-${at.spanId}` : randomUUID(),
    kind,
    time: meta.time,
    route: at.route,
    ...(traced ? { traceId: at.traceId, spanId: at.spanId } : {}),
    replica: meta.replica,
    ...(observation.question !== undefined ? { question: r(observation.question) } : {}),
    answer: r(observation.answer),
    documents,
    verdict: result.verdict,
    score: result.score,
    ...(result.threshold !== null ? { threshold: result.threshold } : {}),
    ...(result.cause ? { cause: result.cause } : {}),
    claims: (result.reviewClaims ?? []).map((c) => ({ ...c, text: r(c.text) })),
    backend: result.backend,
    sampleRate: kind === "flagged" ? 1 : meta.sampleRate,
  };
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
    offer(observation, result, at) {
      try {
        const kind = pick(result.verdict, review.groundedSampleRate, random);
        if (!kind) return undefined;
        if (!writer) return skipped("io_error");
        // A record without content is no review record: a redact hook that throws leaves it unwritten (never unredacted).
        const record = content.record("review", at.route, () => spoolRecordOf(observation, result, at, kind, { replica: review.replica, time: new Date(clock()).toISOString(), sampleRate: review.groundedSampleRate, redact: content.redacted }), () => undefined);
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
