import type { AnswerCause, AnswerSpan, AnswerVerdict, CallsByEngine, CitationSummary, ClaimResult, RelevanceReport } from "../../core/result.ts";
import type { BackendInfo } from "../../core/backend.ts";
import type { ProductionProvenance } from "../../core/calibration.ts";

/** One evaluated row of the set, as stored in report.json. */
export interface EvalRow {
  readonly id: string | number;
  readonly question: string | undefined;
  readonly answer: string;
  readonly verdict: AnswerVerdict;
  readonly score: number | null;
  readonly reason?: string;
  readonly claims: readonly ClaimResult[];
  /** With a span detector: the words it marked unsupported (offsets into `answer`, probability, claim, text); [] when none; absent without one. */
  readonly spans?: readonly AnswerSpan[];
  /** With a span detector: model work by engine (claim pairs, span detector inputs). */
  readonly callsByEngine?: CallsByEngine;
  readonly label?: 0 | 1;
  readonly combined?: string;
  readonly error?: string;
  /** "reply" when the documents came from the service's reply (--context-path), not the set. */
  readonly contextFrom?: "reply";
  /** The answer's citation markers and how they checked out; absent when it cites nothing. */
  readonly citations?: CitationSummary;
  /**
   * With citations: one entry per retrieved document, its name as a citation may give it (id, else
   * title, else URL; null when unnamed), so the reports can say which document supports a claim.
   */
  readonly sources?: ReadonlyArray<string | null>;
  /** Why an ungrounded row is not grounded (retrieval, generation, citation, mixed, unknown); absent on the others and when relevance is off. */
  readonly cause?: AnswerCause;
  /** Context and answer relevance as the scorer measured them (or why it could not); absent when relevance is off. */
  readonly relevance?: RelevanceReport;
}

/** The failing answers of a set by cause, and its answers' relevance to their questions where measured. */
export interface CauseSummary {
  /** Ungrounded rows by cause (every cause listed, 0 when none). */
  readonly causes: Readonly<Record<AnswerCause, number>>;
  /** Rows whose answer relevance was measured (they had a question), their mean relevance and those under the answer relevance threshold. */
  readonly answerRelevance: { readonly measured: number; readonly mean: number | null; readonly offTopic: number };
}

/** What a span detector marked over a set: answers and claims with a marked span, spans in all, and the detector's inputs (its model calls). */
export interface SpanSummary {
  /** Rows a span detector ran on (rows with `spans`). */
  readonly rows: number;
  /** Of them, answers with at least one marked span. */
  readonly answers: number;
  /** Claims with at least one marked span in them. */
  readonly claims: number;
  /** Marked spans in all. */
  readonly spans: number;
  /** Model inputs the span detector ran, where rows counted them. */
  readonly calls: number;
}

/** Where a gate number came from; every report states it next to the number. */
export type GateSource =
  | { readonly kind: "flag"; readonly flag: string }
  | { readonly kind: "env"; readonly variable: string }
  | { readonly kind: "calibration"; readonly file: string }
  | { readonly kind: "config"; readonly file: string; readonly key: string }
  | { readonly kind: "backend"; readonly backend: string }
  | { readonly kind: "default" };

/** The gate's criteria, by the name report.json gives them. */
export type CriterionName = "maxHallucinationRate" | "maxUnscorableShare" | "minGroundedShare" | "minMeanScore" | "maxCitationErrorRate" | "minLabelAgreement" | "noRegressions";

/** One criterion of the gate, with what was measured and whether it held. */
export interface GateCriterion {
  readonly name: CriterionName;
  /** The limit: a rate, share or raw score from 0 to 1; for noRegressions, the most regressed rows allowed (0). */
  readonly limit: number;
  /** null when nothing could be measured (no scorable row), which fails the criterion. */
  readonly measured: number | null;
  readonly source: GateSource;
  readonly passed: boolean;
  /** Why it failed, in groundwatch's words; only when it failed. */
  readonly failure?: string;
}

/** The gate that applied. "report-only" (--no-gate) has no criteria and never fails. */
export interface EvalGate {
  readonly status: "passed" | "failed" | "report-only";
  /** null for report-only: nothing was gated. */
  readonly passed: boolean | null;
  /** The gate in one line, with where each number came from (or "report only, no gate"). */
  readonly description: string;
  readonly criteria: readonly GateCriterion[];
  readonly failures: readonly string[];
}

export interface EvalReport {
  readonly version: 2;
  readonly createdAt: string;
  readonly set: string;
  readonly backend: BackendInfo;
  /** The backend is triage-tier: results are for trends and review, not decisions on their own. */
  readonly triage: boolean;
  /** The answer threshold: an answer is grounded when its score reaches it (and every claim is supported). */
  readonly threshold: number;
  readonly thresholdSource: GateSource;
  /** Things the reader must know about this run (triage backend first), in groundwatch's words. */
  readonly notices: readonly string[];
  /** Present when the set's rows came from production review (groundwatch review export); also named in the notices. */
  readonly production?: ProductionProvenance;
  readonly summary: {
    readonly rows: number;
    readonly scorable: number;
    readonly unscorable: number;
    readonly grounded: number;
    /** grounded / rows: unscorable rows count as not grounded. Backend-independent, unlike the mean score. */
    readonly groundedShare: number;
    /** The mean raw score of scorable rows; its scale depends on the backend. */
    readonly meanGroundedness: number | null;
    /** ungrounded / scorable. */
    readonly hallucinationRate: number | null;
    readonly hallucinationInterval: { readonly low: number; readonly high: number } | null;
    /**
     * Citation markers over the set's answers (found, valid, invalid: naming a document that was
     * not retrieved, misattributed), and the citation error rate: (invalid + misattributed) / found,
     * null when no answer cites anything. Absent in reports written before citations were checked.
     */
    readonly citations?: CitationSummary & { readonly errorRate: number | null };
    /** Failing answers by cause and answer relevance; absent when relevance was off (and in reports written before it). */
    readonly attribution?: CauseSummary;
    /** What a span detector marked over the set; absent when none ran. */
    readonly spans?: SpanSummary;
  };
  readonly gate: EvalGate;
  readonly regressions: ReadonlyArray<{ readonly id: string | number; readonly before: string; readonly after: string; readonly scoreBefore: number | null; readonly scoreAfter: number | null }>;
  readonly rows: readonly EvalRow[];
}

/** The limits a gated run applies, each with its source; undefined criteria do not apply. */
export interface GateSpec {
  readonly maxHallucinationRate: { readonly value: number; readonly source: GateSource };
  /** Most rows allowed unscorable (no context, a failed --target call…): a gate must not pass on the few rows that could be scored. */
  readonly maxUnscorableShare: { readonly value: number; readonly source: GateSource };
  readonly minGroundedShare?: { readonly value: number; readonly source: GateSource };
  readonly minMeanScore?: { readonly value: number; readonly source: GateSource };
  /** Most citation errors (not retrieved or misattributed) among the citations found in the set. */
  readonly maxCitationErrorRate?: { readonly value: number; readonly source: GateSource };
  /** Least share of the labelled, scored rows whose verdict agrees with their label (a regressions set from production review). */
  readonly minLabelAgreement?: { readonly value: number; readonly source: GateSource };
  /** Present when --baseline was given: no row may regress. */
  readonly baseline?: { readonly source: GateSource };
}

/** The one-line text of a report-only run, the same in every format. */
export const REPORT_ONLY = "report only, no gate";
