/**
 * Every span, event, attribute and metric name groundwatch emits, with units.
 * GenAI and OpenInference names are copied here (not imported from an incubating
 * package) and checked against @opentelemetry/semantic-conventions/incubating by a test.
 */

import type { CallsByEngine, CallsSaved, RelevanceReport } from "../core/result.ts";

export { CAUSES, CAUSE_UNKNOWN_REASONS } from "../core/cause.ts";

// Spans
export const SPAN_EVALUATE = "groundwatch.evaluate";

// OTel GenAI evaluation event (semantic conventions v1.38+, Development status).
/** @experimental */
export const EVENT_GEN_AI_EVALUATION_RESULT = "gen_ai.evaluation.result";
/** @experimental */
export const ATTR_GEN_AI_EVALUATION_NAME = "gen_ai.evaluation.name";
/** @experimental */
export const ATTR_GEN_AI_EVALUATION_SCORE_VALUE = "gen_ai.evaluation.score.value";
/** @experimental */
export const ATTR_GEN_AI_EVALUATION_SCORE_LABEL = "gen_ai.evaluation.score.label";
/** @experimental */
export const ATTR_GEN_AI_EVALUATION_EXPLANATION = "gen_ai.evaluation.explanation";
export const ATTR_ERROR_TYPE = "error.type";

// OTel GenAI guardrail result event (semantic-conventions-genai docs/gen-ai/gen-ai-guardrails.md, Development status):
// one per Monitor.guard() check; monitoring keeps gen_ai.evaluation.result.
/** @experimental */
export const EVENT_GEN_AI_GUARDRAIL_RESULT = "gen_ai.guardrail.result";
/** @experimental The guardrail's name: always GUARDRAIL_COMPONENT. */
export const ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME = "gen_ai.guardrail.component.name";
/** @experimental The kind of result, in groundwatch's terms: always GUARDRAIL_RESULT_TYPE_DECISION. */
export const ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE = "gen_ai.guardrail.result.type";
/** @experimental The result, in groundwatch's terms: pass, block, correct or bypass (not translated to allow/deny). */
export const ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE = "gen_ai.guardrail.result.value";
/** @experimental Low-cardinality reason, no user content: a bypass's reason (GUARD_BYPASS_REASONS). */
export const ATTR_GEN_AI_GUARDRAIL_RESULT_REASON = "gen_ai.guardrail.result.reason";
/** @experimental The risk checked: always GUARDRAIL_RISK_UNGROUNDED. */
export const ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY = "gen_ai.guardrail.risk.category";
/** @experimental 1 − the groundedness score (only when the answer was scored). */
export const ATTR_GEN_AI_GUARDRAIL_RISK_SCORE = "gen_ai.guardrail.risk.score";
/** @experimental What was checked: always GUARDRAIL_SOURCE_OUTPUT (the model's answer). */
export const ATTR_GEN_AI_GUARDRAIL_SOURCE = "gen_ai.guardrail.source";
/** @experimental Opt-in content (content capture only): the text the guard let out (the answer, the replacement or the corrected answer), capped and redacted. */
export const ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE = "gen_ai.guardrail.content.output.value";
export const GUARDRAIL_COMPONENT = "groundwatch";
export const GUARDRAIL_RESULT_TYPE_DECISION = "decision";
export const GUARDRAIL_RISK_UNGROUNDED = "ungrounded";
export const GUARDRAIL_SOURCE_OUTPUT = "OUTPUT";

/** The evaluation names groundwatch reports under gen_ai.evaluation.name. */
export const EVALUATION_GROUNDEDNESS = "groundedness";
export const EVALUATION_SEMANTIC_ENTROPY = "semantic_entropy";

/** OpenInference evaluation attributes (indexed: evaluations.{i}.evaluation.*), for Phoenix and Langfuse. */
export function openInferenceEvaluation(i: number, field: "name" | "score" | "label" | "explanation" | "annotator_kind"): string {
  return `evaluations.${i}.evaluation.${field}`;
}

// groundwatch attributes (low cardinality on metrics: route template, backend, tier, verdict, reason)
export const ATTR_ROUTE = "groundwatch.route";
export const ATTR_BACKEND_NAME = "groundwatch.backend.name";
export const ATTR_BACKEND_TIER = "groundwatch.backend.tier";
/** The model behind the scoring backend (its version: onnx's model folder and graph, the judge's model, the offline model's version); on groundwatch.scoring.info. */
export const ATTR_BACKEND_MODEL = "groundwatch.backend.model";
/** The answer threshold in force, as text (on groundwatch.scoring.info). */
export const ATTR_THRESHOLD = "groundwatch.threshold";
/** The calibration in force: a short hash of calibration.json's bytes, or "none" (on groundwatch.scoring.info). */
export const ATTR_CALIBRATION_ID = "groundwatch.calibration.id";
export const ATTR_VERDICT = "groundwatch.verdict";
export const ATTR_CLAIM_VERDICT = "groundwatch.claim.verdict";
export const ATTR_REASON = "groundwatch.reason";
/** A guard decision (on groundwatch.guard.decisions and groundwatch.guard.duration): pass, block, correct, bypass. */
export const ATTR_GUARD_DECISION = "groundwatch.guard.decision";
/** Which size limit cut an observation short (on groundwatch.observations.limited). */
export const ATTR_LIMIT = "groundwatch.limit";
/** The size limits applied to one evaluation (span attribute, string array). */
export const ATTR_LIMITS = "groundwatch.limits";
/** The instrumentation convention an interaction was read from (collector): openinference, genai, openllmetry, mapping, prompt, mixed. */
export const ATTR_CONVENTION = "groundwatch.convention";
/** The collector endpoint a request was refused on (on groundwatch.collector.refused): /v1/traces, /v1/logs, /v1/observations, /v1/flagged, /metrics, other, or connection / health_connection (a connection closed before any request reached the app, on the main port / the probe listener). */
export const ATTR_ENDPOINT = "groundwatch.endpoint";
/** Why an answer is in the review spool: flagged or grounded_sample (on groundwatch.review.spooled and groundwatch.review.labels). */
export const ATTR_REVIEW_KIND = "groundwatch.review.kind";
/** The sink whose record was made without content (on groundwatch.content.withheld): span (the evaluation span and its events), flagged (the flagged-answer ring), review (the review spool), guard (a guard check's gen_ai.guardrail.result event). */
export const ATTR_CONTENT_SINK = "groundwatch.content.sink";
/** Whether the reviewers' label agrees with groundwatch's verdict: agree or disagree (on groundwatch.review.labels). */
export const ATTR_REVIEW_AGREEMENT = "groundwatch.review.agreement";
export const ATTR_SCORE = "groundwatch.score";
export const ATTR_CLAIMS_SUPPORTED = "groundwatch.claims.supported";
export const ATTR_CLAIMS_CONTRADICTED = "groundwatch.claims.contradicted";
export const ATTR_CLAIMS_UNSUPPORTED = "groundwatch.claims.unsupported";
/** Claims supported only by a retrieved document other than the one they cite (span attribute, a count). */
export const ATTR_CLAIMS_MISATTRIBUTED = "groundwatch.claims.misattributed";
export const ATTR_CLAIMS_SKIPPED = "groundwatch.claims.skipped";
export const ATTR_ENTROPY = "groundwatch.entropy";
export const ATTR_ENTROPY_NORMALIZED = "groundwatch.entropy.normalized";
export const ATTR_ENTROPY_CLUSTERS = "groundwatch.entropy.clusters";
export const ATTR_ENTROPY_RELIABLE = "groundwatch.entropy.reliable";
export const ATTR_COMBINED_VERDICT = "groundwatch.combined.verdict";
/** Claims of the answer that few resamples support (span attribute, a count). */
export const ATTR_CLAIMS_UNSTABLE = "groundwatch.claims.unstable";
/** How a resampler call ended (on groundwatch.resample.calls, and on the evaluation span): ok, error, too_large, timeout, short, shutdown, budget, busy, no_question. */
export const ATTR_RESAMPLE_OUTCOME = "groundwatch.resample.outcome";
/** How one call to a peer replica ended (on groundwatch.peer.requests): one of PEER_OUTCOMES. */
export const ATTR_OUTCOME = "groundwatch.outcome";
/** How one citation marker of an answer checked out (on groundwatch.citations): one of CITATION_STATUSES. */
export const ATTR_CITATION_STATUS = "groundwatch.citation.status";
/**
 * The answer's citation summary (span and evaluation-event attributes, counts; present only when the
 * answer cites something): markers found, those naming only retrieved documents (valid), those naming
 * a document that was not retrieved (invalid), and valid ones whose documents do not support their
 * claim while another retrieved document does (misattributed).
 */
export const ATTR_CITATIONS_FOUND = "groundwatch.citations.found";
export const ATTR_CITATIONS_VALID = "groundwatch.citations.valid";
export const ATTR_CITATIONS_INVALID = "groundwatch.citations.invalid";
export const ATTR_CITATIONS_MISATTRIBUTED = "groundwatch.citations.misattributed";
/**
 * Why an ungrounded answer, or a claim that is not supported, failed: one of CAUSES (retrieval,
 * generation, citation, mixed, unknown). On groundwatch.evaluations for ungrounded answers only, on
 * groundwatch.claims for claims other than supported, on the evaluation span and the groundedness
 * evaluation event.
 */
export const ATTR_CAUSE = "groundwatch.cause";
/** The best relevance of the retrieved documents to the question, in [0, 1] (span attribute; only when measured against a question). */
export const ATTR_RELEVANCE_CONTEXT = "groundwatch.relevance.context";
/** How well the answer addresses the question, in [0, 1]; a refusal is 1 (span attribute; only with a question). */
export const ATTR_RELEVANCE_ANSWER = "groundwatch.relevance.answer";
/** prompt or completion (on groundwatch.resample.tokens). */
export const ATTR_TOKEN_KIND = "groundwatch.token.kind";
/**
 * Words a span detector marked unsupported (core/result.ts AnswerSpan), on the evaluation span, only
 * when one ran: how many (int), and for the first SPAN_ATTRIBUTE_LIMIT in answer order their
 * character offsets into the answer (int arrays, end exclusive), highest token probability (double
 * array) and the index of the claim each falls in (int array, -1: outside every checked claim).
 * Never the words: those are groundwatch.content.spans, with content capture only.
 */
export const ATTR_SPANS_COUNT = "groundwatch.spans.count";
export const ATTR_SPANS_START = "groundwatch.spans.start";
export const ATTR_SPANS_END = "groundwatch.spans.end";
export const ATTR_SPANS_PROBABILITY = "groundwatch.spans.probability";
export const ATTR_SPANS_CLAIM = "groundwatch.spans.claim";
/** The most spans whose offsets the evaluation span lists (groundwatch.spans.count still counts them all). */
export const SPAN_ATTRIBUTE_LIMIT = 64;
/** Which engine did the model work (on groundwatch.entailment.calls): claims (the claim detector's pairs) or spans (the span detector's model inputs). */
export const ATTR_ENGINE = "groundwatch.engine";
/** The values of groundwatch.engine: the keys of AnswerResult.callsByEngine. */
export const ENGINES = ["claims", "spans"] as const satisfies ReadonlyArray<keyof CallsByEngine>;
/** Opt-in content (off by default; capped and passed through the redaction hook). */
export const ATTR_CONTENT_UNSUPPORTED_CLAIMS = "groundwatch.content.unsupported_claims";
export const ATTR_CONTENT_EVIDENCE = "groundwatch.content.evidence";
/** Opt-in content: the claims few resamples support (capped and redacted like the others). */
export const ATTR_CONTENT_UNSTABLE_CLAIMS = "groundwatch.content.unstable_claims";
/** Opt-in content: the words of the spans listed in groundwatch.spans.start/.end, in the same order (capped and redacted like the others). */
export const ATTR_CONTENT_SPANS = "groundwatch.content.spans";

/** A metric's name, unit, kind and description, and the name Prometheus shows. */
export interface MetricSpec {
  readonly name: string;
  readonly unit: string;
  readonly kind: "counter" | "histogram" | "gauge";
  readonly description: string;
  readonly prometheus: string;
}

function spec(name: string, unit: string, kind: MetricSpec["kind"], description: string): MetricSpec {
  // Prometheus (OTel exporter): dots become underscores; counters get _total; units are not appended.
  const base = name.replace(/\./g, "_");
  return { name, unit, kind, description, prometheus: kind === "counter" ? `${base}_total` : base };
}

export const METRICS = {
  score: spec("groundwatch.groundedness.score", "1", "histogram", "Groundedness score of evaluated answers (0–1, higher is better grounded)"),
  evaluations: spec(
    "groundwatch.evaluations",
    "{evaluation}",
    "counter",
    "Evaluated answers by verdict (grounded, ungrounded, unscorable); unscorable ones also by reason (empty_answer, empty_context, no_checkable_claims, language_mismatch, backend_error); ungrounded ones also by cause (retrieval, generation, citation, mixed, unknown) when relevance is on",
  ),
  claims: spec("groundwatch.claims", "{claim}", "counter", "Checked claims by verdict (supported, contradicted, unsupported, misattributed); those not supported of an ungrounded answer also by cause (retrieval, generation, citation, unknown)"),
  contextRelevance: spec("groundwatch.context.relevance", "1", "histogram", "Best relevance of the retrieved documents to the question (0–1) of each scored evaluation with a question, by route: a drop means the retriever or the index went stale"),
  answerRelevance: spec("groundwatch.answer.relevance", "1", "histogram", "How well the answer addresses the question (0–1; a refusal counts as relevant, 1) of each evaluation with a question, by route; not part of the verdict"),
  relevanceUnmeasured: spec(
    "groundwatch.relevance.unmeasured",
    "{evaluation}",
    "counter",
    "Evaluations whose relevance could not be measured, by route and reason: no_relevance_scorer (the backend has none), backend_error (its relevance scorer failed); their ungrounded answers have cause unknown",
  ),
  causeUnknown: spec(
    "groundwatch.cause.unknown",
    "{evaluation}",
    "counter",
    "Ungrounded answers whose cause is unknown, by route and reason: weak_failure (every failing claim scores within the claim margin below the threshold: too near it to name retrieval or generation), borderline_relevance (the documents' relevance lies within the relevance margin of its threshold), relevance_unmeasured (no relevance scorer, it failed, or the claims were past the relevance pair budget)",
  ),
  citations: spec(
    "groundwatch.citations",
    "{citation}",
    "counter",
    "Citation markers in scored answers ([1], (source: name)), by route and status: supported, misattributed (another retrieved document supports the claim), unsupported, contradicted, not_retrieved (names a document that was not retrieved; decided without a model call), unchecked (its claim was not checked: over a limit, or the answer was unscorable)",
  ),
  seen: spec("groundwatch.observations.seen", "{observation}", "counter", "Observations passed to observe()"),
  notSampled: spec("groundwatch.observations.not_sampled", "{observation}", "counter", "Observations the sampling decision skipped"),
  sampled: spec("groundwatch.observations.sampled", "{observation}", "counter", "Observations selected for scoring"),
  scored: spec("groundwatch.observations.scored", "{observation}", "counter", "Sampled observations that finished scoring (any verdict)"),
  dropped: spec("groundwatch.observations.dropped", "{observation}", "counter", "Sampled observations dropped before scoring, by reason"),
  failed: spec("groundwatch.observations.failed", "{observation}", "counter", "Sampled observations whose scoring failed, by reason"),
  entropy: spec("groundwatch.entropy", "1", "histogram", "Normalised semantic entropy of resampled answers (reliable measurements only)"),
  duration: spec("groundwatch.evaluation.duration", "s", "histogram", "Time to score one observation, from dequeue to result"),
  queueDepth: spec("groundwatch.queue.depth", "{observation}", "gauge", "Observations waiting to be scored"),
  driftStatistic: spec("groundwatch.drift.ks_statistic", "1", "gauge", "Two-sample Kolmogorov–Smirnov statistic: recent scores vs reference, per route"),
  driftPValue: spec("groundwatch.drift.p_value", "1", "gauge", "p-value of the drift test, per route (only with enough scores)"),
  driftReferenceRefused: spec(
    "groundwatch.drift.reference_refused",
    "{reference}",
    "counter",
    "Calibration drift references refused, by reason: bundled_examples (fitted on groundwatch's own examples), other_backend (fitted with another backend or model than the one scoring), selected_by_label (a review export of disagreements only), mixed_set (review rows mixed with another labelled set), no_sample_rate (review rows without their route and sample rate), too_few_scores (too few scores; for a per-route reference, the number of routes worth fewer than drift.minScores answers), no_route_reference (live routes a per-route reference does not name); each such route uses its first full window",
  ),
  scoringInfo: spec("groundwatch.scoring.info", "1", "gauge", "1, labelled with what scores: backend name, tier and model, the answer threshold in force and the calibration's id (a short hash of calibration.json, or none); from the latest evaluation"),
  scoringThreshold: spec("groundwatch.scoring.threshold", "1", "gauge", "The answer threshold in force: answers scoring below it are ungrounded (from the latest evaluation)"),
  collectorIncomplete: spec(
    "groundwatch.collector.incomplete",
    "{trace}",
    "counter",
    "Traces (or their records) the collector did not hand to scoring, by route and reason (no_answer, no_documents, buffer_full: an incomplete trace evicted for a new one, late, too_many_attributes: a span, event or log record over 4096 attributes, rejected unread, too_many_messages: a record's input messages past the 1000 a trace keeps, already_evaluated: groundwatch's own evaluation spans and events, …)",
  ),
  collectorRefused: spec(
    "groundwatch.collector.refused",
    "{request}",
    "counter",
    "Requests (and connections) the collector refused, by endpoint and reason: buffer_full and queue_full (429), too_large (413), unsupported_media_type (415), bad_request (400), unauthorized (401), misdirected (421: a Host that is not a loopback name on a loopback bind), too_many_connections (over maxConnections), too_many_per_address (over maxConnectionsPerAddress from one address), timeout (408: headers or body too slow; or an answer the client stopped reading; with TLS, a handshake not done within headersTimeoutMs), plain_http (a plain-http request on the TLS port, answered 400), tls_handshake (a failed TLS handshake), internal_error (500)",
  ),
  collectorBufferTraces: spec("groundwatch.collector.buffer.traces", "{trace}", "gauge", "Traces the collector's trace buffer holds (being joined, or complete and waiting for the scoring queue)"),
  collectorBufferWaiting: spec("groundwatch.collector.buffer.waiting", "{trace}", "gauge", "Complete traces in the trace buffer waiting for room in the scoring queue (they cannot be evicted)"),
  collectorBufferBytes: spec("groundwatch.collector.buffer.bytes", "By", "gauge", "Text the trace buffer holds (characters ≈ bytes)"),
  collectorBufferMaxTraces: spec("groundwatch.collector.buffer.max_traces", "{trace}", "gauge", "The trace buffer's limit in traces (collector.maxTraces): fill = buffer.traces / buffer.max_traces"),
  collectorBufferMaxBytes: spec("groundwatch.collector.buffer.max_bytes", "By", "gauge", "The trace buffer's limit in text (collector.maxBufferBytes): fill = buffer.bytes / buffer.max_bytes"),
  collectorInteractions: spec("groundwatch.collector.interactions", "{interaction}", "counter", "Interactions the collector joined from traces and handed to scoring, by route and convention"),
  collectorLogRecords: spec(
    "groundwatch.collector.log_records",
    "{record}",
    "counter",
    "Log records the collector took in on /v1/logs, by the convention it read them as: genai (OTel GenAI message, choice or operation-details events), mapping (a record carrying a key of collector.attributeMapping), other (a record it reads nothing from); none at all while GenAI traces arrive means their content events never reach it",
  ),
  entailmentCalls: spec(
    "groundwatch.entailment.calls",
    "{call}",
    "counter",
    "Model calls by route and engine (groundwatch.engine): claims (entailment pairs sent to the claim detector: groundedness, semantic entropy and claim consistency together), spans (model inputs a span detector ran, one or more per answer)",
  ),
  entailmentSaved: spec(
    "groundwatch.entailment.saved",
    "{call}",
    "counter",
    "Groundedness (claim, window) pairs decided without a model call, by route and reason: verbatim (the window states the claim as one of its whole sentences), cache (judged before by the same backend version, or repeated within the answer), triage (a claim the cascade's offline tier decided with confidence)",
  ),
  limited: spec("groundwatch.observations.limited", "{observation}", "counter", "Scored observations a size limit cut short (answer_chars, context_chars, documents, samples, token_chars, entailment_calls), by route and limit"),
  resampleCalls: spec("groundwatch.resample.calls", "{call}", "counter", "Resampler calls (redrawing an answer for semantic entropy), by route and outcome: ok, error, too_large (the endpoint's reply was over its byte cap: aborted), timeout, short (fewer answers than asked), shutdown (aborted at shutdown); and, never called, scored without entropy: budget (over maxCallsPerMinute), busy (maxConcurrent calls running and as many waiting), no_question (nothing to redraw an answer to)"),
  resampleTokens: spec("groundwatch.resample.tokens", "{token}", "counter", "Tokens the resampler reported using, by route and kind (prompt, completion)"),
  resampleDuration: spec("groundwatch.resample.duration", "s", "histogram", "Time of one resampler call, by route"),
  claimsResampled: spec("groundwatch.claims.resampled", "{claim}", "counter", "Claims checked against resamples (drawn by the resampler or sent with the observation): claim-level consistency, by route"),
  claimsUnstable: spec("groundwatch.claims.unstable", "{claim}", "counter", "Claims the resamples support less often than unstableShare: the model would not say them again, by route"),
  workerRestarts: spec("groundwatch.workers.restarts", "{restart}", "counter", "Scoring workers replaced, by reason (crashed: it exited or crashed; timeout: a job on it ran over timeoutMs and the worker did not give it up when told to)"),
  workersAlive: spec("groundwatch.workers.alive", "{worker}", "gauge", "Scoring workers running and able to take observations"),
  flaggedDropped: spec(
    "groundwatch.flagged.dropped",
    "{answer}",
    "counter",
    "Answers not grounded (flagged or unscorable) the ring of recent ones (/v1/flagged, Monitor.flagged) let go or cut, by reason: route_full (past the newest flaggedPerRoute of its route), bytes (the oldest, past flaggedMaxBytes), cut (kept without its question and answer text, or with its last claims cut, to fit), too_large (not kept)",
  ),
  flaggedSince: spec(
    "groundwatch.flagged.since",
    "s",
    "gauge",
    "Unix time since which the ring of recent answers not grounded (/v1/flagged, Monitor.flagged) has seen every one of them: when the monitor started, or, with a review spool, the time of the oldest flagged answer filled back from it at start. A restart without a spool moves it to the restart (what the ring held is gone); time() minus it is how far back /v1/flagged can reach",
  ),
  flaggedOldest: spec("groundwatch.flagged.oldest", "s", "gauge", "Unix time of the oldest answer the ring of recent answers not grounded holds (absent while it holds none); older ones were let go by its caps or lost in a restart"),
  flaggedRestored: spec("groundwatch.flagged.restored", "{answer}", "counter", "Flagged answers filled back into the ring from this replica's review spool when the monitor started (the newest that fit its caps)"),
  flaggedRestoreSkipped: spec(
    "groundwatch.flagged.restore_skipped",
    "{line}",
    "counter",
    "Lines of the review spool passed over while filling the ring back at start, by reason: unreadable (a partial last line a crash left, a line that is not JSON or not a record of this version, or a flagged record whose fields are out of shape)",
  ),
  contentWithheld: spec(
    "groundwatch.content.withheld",
    "{record}",
    "counter",
    "Records of an evaluation made without their content because the redact hook threw (never unredacted), by route, reason (redact_error) and sink: span (the evaluation span and its events), flagged (the flagged-answer ring entry, kept without its texts), review (the review spool, whose record is its content: not written, also counted in groundwatch.review.skipped), guard (a Monitor.guard() check's gen_ai.guardrail.result event, emitted without its text)",
  ),
  reviewSpooled: spec("groundwatch.review.spooled", "{answer}", "counter", "Answers written to the review spool, by kind: flagged (every ungrounded answer: scorable and not grounded) or grounded_sample (grounded answers drawn at the grounded sample rate)"),
  reviewSkipped: spec(
    "groundwatch.review.skipped",
    "{answer}",
    "counter",
    "Answers picked for the review spool but not written, by reason: bytes (the spool is at its byte cap), too_large (one record is longer than a segment), io_error (the write failed, or the spool could not be opened), redact_error (the redact hook threw: never written unredacted)",
  ),
  reviewFilesSkipped: spec(
    "groundwatch.review.files_skipped",
    "{file}",
    "counter",
    "Files under a review spool name (a segment, the labels file) that the spool writer or the labels gauge passed over, each time one met it, by reason: not_regular (a link, FIFO, socket, device or directory: never followed, waited on or written through), too_large (over the 1 GiB read cap, or the labels gauge's byte cap)",
  ),
  reviewLabels: spec(
    "groundwatch.review.labels",
    "{answer}",
    "gauge",
    "Collector with a review dir: labelled answers in its labels file by kind (flagged, grounded_sample) and agreement (agree, disagree) with groundwatch's verdict; one label per answer, the majority of its reviewers (ties left out); precision of the flags = agree / all of kind flagged",
  ),
  guardDecisions: spec(
    "groundwatch.guard.decisions",
    "{decision}",
    "counter",
    "Monitor.guard() decisions, by route and decision (pass, block, correct, bypass); bypasses also by reason (budget_exceeded, scorer_unavailable, scorer_error, over_limits, unscorable, invalid_input, closed, internal_error, saturated, source_error, cancelled)",
  ),
  guardDuration: spec("groundwatch.guard.duration", "s", "histogram", "Time from a Monitor.guard() call to its decision, by route and decision"),
  peerRequests: spec(
    "groundwatch.peer.requests",
    "{request}",
    "counter",
    "Calls to peer replicas (a merged answer: GET /v1/flagged and the review API over the deployment; a review label forwarded to the replica holding its answer), by outcome: ok, self (this replica, left out), duplicate (a replica already answered under another address), timeout (no complete reply within peerTimeoutMs), too_large (a reply past peerMaxBytes: the read stopped at the cap), unauthorized (401 or 403: the replicas' tokens differ), unreachable (the connection failed), bad_reply (another status, or a body that is not a valid answer), dns (the peers' Service name did not resolve)",
  ),
  degenerate: spec("groundwatch.entropy.degenerate", "{observation}", "counter", "Resample sets whose entropy measurement was unreliable, by reason"),
} as const satisfies Record<string, MetricSpec>;

/**
 * The values of groundwatch.citation.status: a citation's status as the scorer reports it
 * (supported, misattributed, unsupported, contradicted, not_retrieved), and unchecked for a marker
 * whose claim was not checked, so that the statuses of an answer add up to the citations found.
 */
export { CITATION_STATUSES } from "../evaluation/types.ts";
export type { CitationCountStatus } from "../evaluation/types.ts";

/** Why relevance was not measured (groundwatch.reason on groundwatch.relevance.unmeasured). */
export const RELEVANCE_UNMEASURED_REASONS = ["no_relevance_scorer", "backend_error"] as const satisfies ReadonlyArray<NonNullable<RelevanceReport["unmeasured"]>["reason"]>;
export type RelevanceUnmeasuredReason = (typeof RELEVANCE_UNMEASURED_REASONS)[number];

/** Why a pair was decided without a model call (groundwatch.reason on groundwatch.entailment.saved): the keys of GroundednessResult.callsSaved. */
export const ENTAILMENT_SAVED_REASONS = ["verbatim", "cache", "triage"] as const satisfies ReadonlyArray<keyof CallsSaved>;

/** Why the ring of flagged and unscorable answers let an answer go or cut it (groundwatch.reason on groundwatch.flagged.dropped). */
export { FLAGGED_DROP_REASONS } from "../evaluation/flagged-ring.ts";
export type { FlaggedDropReason } from "../evaluation/flagged-ring.ts";

/** Why a line of the review spool was passed over while the ring was filled back from it (groundwatch.reason on groundwatch.flagged.restore_skipped). */
export const FLAGGED_RESTORE_SKIP_REASONS = ["unreadable"] as const;

/** Why an answer picked for the review spool was not written (groundwatch.reason on groundwatch.review.skipped). */
export const REVIEW_SKIP_REASONS = ["bytes", "too_large", "io_error", "redact_error"] as const;

/** How a peer call failed (PEER_OUTCOMES less the calls that answered or were left out). */
export const PEER_FAILURE_REASONS = ["timeout", "too_large", "unauthorized", "unreachable", "bad_reply", "dns"] as const;
export type PeerFailureReason = (typeof PEER_FAILURE_REASONS)[number];
/** The values of groundwatch.outcome on groundwatch.peer.requests: a fixed set. */
export const PEER_OUTCOMES = ["ok", "self", "duplicate", ...PEER_FAILURE_REASONS] as const;
export type PeerOutcome = (typeof PEER_OUTCOMES)[number];

/** Why a file under a review spool name was passed over (groundwatch.reason on groundwatch.review.files_skipped). */
export const REVIEW_FILE_SKIP_REASONS = ["not_regular", "too_large"] as const;

/** The conventions a log record is counted under (groundwatch.convention on groundwatch.collector.log_records). */
export const LOG_RECORD_CONVENTIONS = ["genai", "mapping", "other"] as const;
export type LogRecordConvention = (typeof LOG_RECORD_CONVENTIONS)[number];

/** Histogram bucket boundaries. */
export const SCORE_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1];
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Resampler calls wait on a model: up to its timeout (30 s by default). */
export const RESAMPLE_DURATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
