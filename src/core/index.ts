export { backendInfo } from "./backend.ts";
export type { BackendInfo, BackendTier, EntailmentBackend, NliPair, NliProbabilities, NliResult, PremiseSource, RelevancePair, RelevanceScorerInfo, ScoredToken, SpanDetection, SpanDetector, SpanInput } from "./backend.ts";
export { splitClaims } from "./claims/index.ts";
export type { AnswerSegment, Claim, SkipReason, SkippedSentence } from "./claims/index.ts";
export type { Span } from "./span.ts";
export { attachCitations, findCitations, resolveCitations, stripCitations } from "./citations.ts";
export type { CitationMarker, CitationTarget, ContextDocument, ResolvedCitation, StrippedAnswer } from "./citations.ts";
export { buildWindows, contextChars, contextTexts, estimateTokens } from "./context.ts";
export type { ContextInput, ContextWindow, WindowOptions } from "./context.ts";
export { createGroundednessScorer } from "./groundedness.ts";
export { planClaimChecks } from "./plan.ts";
export type { ClaimCheckPlan } from "./plan.ts";
export type {
  AnswerInput,
  AnswerResult,
  GroundednessResult,
  AnswerSpan,
  AnswerVerdict,
  CallsByEngine,
  CallsSaved,
  CitationStatus,
  CitationSummary,
  ClaimCitation,
  ClaimResult,
  ClaimVerdict,
  Evidence,
  GroundednessScorer,
  GroundednessSettings,
  RelevanceReport,
  RelevanceSettings,
  RelevanceThresholds,
  ResampleSupport,
  SpanSettings,
  UnscorableReason,
} from "./result.ts";
export { claimTokenMax, spanSegments, spansByClaim, spansOf } from "./spans.ts";
export type { ClaimPlace, SpanSegment } from "./spans.ts";
export { LIMIT_NAMES, capTokens, cutPoint, limitText } from "./limits.ts";
export type { CappedText, LimitName } from "./limits.ts";
export { indexWindows } from "./window-index.ts";
export type { WindowIndex } from "./window-index.ts";
export { DEFAULT_RELEVANCE_TOP_K, contextRelevance } from "./relevance.ts";
export { CAUSES, CAUSE_MARGINS, CAUSE_UNKNOWN_REASONS, answerCause, claimCause, failingClaims, isCitationFailure, isWeakFailure } from "./cause.ts";
export type { AnswerCause, CauseEvidence, CauseUnknownReason, ClaimCause, NamedCause } from "./cause.ts";
export { answerRelevance, attributeCauses, unscoredRelevance } from "./cause-analysis.ts";
export type { Attribution, AttributionInput } from "./cause-analysis.ts";
export type { ContextRelevance, ContextRelevanceInput, ContextRelevanceResult } from "./relevance.ts";
export { extractQuantities } from "./quantities.ts";
export { matchQuantity } from "./quantity-match.ts";
export type { Quantity, QuantityKind, QuantityRelation } from "./quantities.ts";
export type { QuantityMatch } from "./quantity-match.ts";
export { auroc, balancedAccuracy, bestBalancedThreshold, reliability } from "./stats.ts";
export type { ReliabilityBin } from "./stats.ts";
export { fitLogistic } from "./logistic.ts";
export type { LogisticFit } from "./logistic.ts";
export { createTextAnalyzer, isContentToken } from "./text.ts";
export type { AnalyzedText, SentenceSpan, TextAnalyzer, TextAnalyzerOptions, Token } from "./text.ts";
export { normaliseAnswer, semanticEntropy } from "./entropy/semantic-entropy.ts";
export type { Cluster, EntropyInput, EntropyResult, Judgement, Sample, SemanticEntropyOptions } from "./entropy/semantic-entropy.ts";
export { isRefusalAnswer, isRefusalSentence } from "./refusal.ts";
export { claimConsistency, isUnstable } from "./entropy/claim-consistency.ts";
export type { ClaimConsistency, ClaimConsistencyInput, ClaimConsistencyOptions, ClaimConsistencyResult, ClaimRef, UnstableClaim } from "./entropy/claim-consistency.ts";
export { chao1, entropyOf, millerMadow, raoBlackwellMasses } from "./entropy/estimators.ts";
