import type { EntailmentBackend } from "./backend.ts";
import { checkedBackend } from "./checked-backend.ts";
import type { AnswerCause, CauseUnknownReason, NamedCause } from "./cause.ts";
import { answerCause, claimCause, failingClaims, isCitationFailure } from "./cause.ts";
import type { ContextWindow } from "./context.ts";
import { isRefusalAnswer } from "./refusal.ts";
import { contextRelevance } from "./relevance.ts";
import type { ClaimResult, RelevanceReport, RelevanceSettings } from "./result.ts";
import type { TextAnalyzer } from "./text.ts";

/**
 * Relevance and cause of one scored answer: how well the retrieved documents address the question
 * (or, without one, each failing claim), whether the answer addresses the question, and from those
 * the cause of each failing claim and of the answer. Over the backend port; a backend without a
 * relevance scorer, or one that fails, leaves relevance unmeasured and the cause `unknown` (a
 * citation failure is still named: it needs no relevance). Never guessed.
 */

export interface AttributionInput {
  /** The user's question; blank or absent: relevance is measured against the failing claims. */
  readonly question?: string;
  /** The answer as it was checked (after the input limits). */
  readonly answer: string;
  /** The windows the claims were checked against, numbered as buildWindows cut them. */
  readonly windows: readonly ContextWindow[];
  /** Documents in the context. */
  readonly documents: number;
  /** The documents' texts as checked (the windows' offsets point into them), so a backend may read a window inside its document. */
  readonly documentTexts?: readonly string[];
  readonly claims: readonly ClaimResult[];
  readonly verdict: "grounded" | "ungrounded";
  /** The answer threshold: which claims an answer with every claim supported fails on. */
  readonly threshold: number;
  readonly backend: EntailmentBackend;
  readonly analyzer: TextAnalyzer;
  readonly settings: RelevanceSettings;
}

export interface Attribution {
  readonly relevance: RelevanceReport;
  /** The claims, each failing one with its `cause` (and, without a question, its `relevance`). */
  readonly claims: readonly ClaimResult[];
  /** The answer's cause; only for an ungrounded answer. */
  readonly cause?: AnswerCause;
  /** Why the answer's cause is `unknown`; only then. */
  readonly causeReason?: CauseUnknownReason;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether the answer addresses the question: 1 for a refusal (declining is an answer to the
 * question; it is reported as a refusal), else the backend's relevance of the answer to the
 * question. Throws when the backend has no relevance scorer, or a BackendReplyError when it returns
 * no score in [0, 1] (checkedBackend).
 */
export async function answerRelevance(question: string, answer: string, given: EntailmentBackend, threshold: number): Promise<NonNullable<RelevanceReport["answer"]>> {
  if (isRefusalAnswer(answer)) return { score: 1, refusal: true, onTopic: true };
  const backend = checkedBackend(given);
  if (!backend.relevance) throw new Error(`answer relevance: backend ${backend.name} has no relevance scorer`);
  const [score] = await backend.relevance([{ query: question, passage: answer }]);
  return answerFrom(score as number, threshold);
}

/** The answer's relevance from its score (in [0, 1]: a checked backend's) in a relevance batch. */
function answerFrom(score: number, threshold: number): NonNullable<RelevanceReport["answer"]> {
  return { score, refusal: false, onTopic: score >= threshold };
}

/** Relevance of an answer that was not scored: whether it addresses the question only (nothing to attribute). */
export async function unscoredRelevance(question: string | undefined, answer: string, backend: EntailmentBackend, settings: RelevanceSettings): Promise<RelevanceReport | undefined> {
  if (!question?.trim() || !answer.trim()) return undefined;
  const thresholds = settings.thresholds;
  if (!backend.relevance && !isRefusalAnswer(answer)) return { thresholds, calls: 0, unmeasured: { reason: "no_relevance_scorer", detail: `backend ${backend.name} has no relevance scorer` } };
  try {
    const answerScore = await answerRelevance(question, answer, backend, thresholds.answer);
    return { thresholds, answer: answerScore, calls: answerScore.refusal ? 0 : 1 };
  } catch (error) {
    return { thresholds, calls: 1, unmeasured: { reason: "backend_error", detail: errorText(error) } };
  }
}

/** Measures relevance and names the causes (see the module comment). */
export async function attributeCauses(input: AttributionInput): Promise<Attribution> {
  const { backend, analyzer, windows, settings, claims } = input;
  const thresholds = settings.thresholds;
  const question = input.question?.trim() ? input.question : undefined;
  const failing = input.verdict === "ungrounded" ? new Set(failingClaims(claims, input.threshold)) : new Set<ClaimResult>();
  /** Names each failing claim's cause from the relevance measured for it (undefined: not measured); `perClaim` also reports that relevance on the claim. */
  const withCauses = (relevanceOf: (c: ClaimResult) => number | undefined, perClaim = false): { claims: Attribution["claims"]; causes: NamedCause[] } => {
    const causes: NamedCause[] = [];
    const attributed = claims.map((c) => {
      if (!failing.has(c)) return c;
      const relevance = relevanceOf(c);
      const named = claimCause(c, { threshold: input.threshold, relevance, relevanceThreshold: thresholds.context });
      causes.push(named);
      return { ...c, cause: named.cause, ...(perClaim && relevance !== undefined ? { relevance } : {}) };
    });
    return { claims: attributed, causes };
  };
  const finish = (relevance: RelevanceReport, attributed: ReturnType<typeof withCauses>): Attribution => {
    if (input.verdict !== "ungrounded") return { relevance, claims: attributed.claims };
    const { cause, reason } = answerCause(attributed.causes);
    return { relevance, claims: attributed.claims, cause, ...(reason === undefined ? {} : { causeReason: reason }) };
  };
  const unmeasured = (reason: "no_relevance_scorer" | "backend_error", detail: string, calls: number): Attribution =>
    finish({ thresholds, calls, unmeasured: { reason, detail } }, withCauses(() => undefined));

  if (!backend.relevance) return unmeasured("no_relevance_scorer", `backend ${backend.name} has no relevance scorer`, 0);
  const common = { windows, documents: input.documents, backend, analyzer, topK: settings.topK, ...(input.documentTexts ? { documentTexts: input.documentTexts } : {}) };
  if (question !== undefined) {
    let calls = 0;
    try {
      // The answer against the question goes in the same batch as the documents (a refusal needs no score).
      const refusal = isRefusalAnswer(input.answer);
      const context = await contextRelevance({ ...common, question, ...(refusal ? {} : { extra: [{ query: question, passage: input.answer }] }) });
      calls = context.pairs;
      const addressed = context.best >= thresholds.context;
      const answer = refusal ? { score: 1, refusal: true, onTopic: true } : answerFrom(context.extra[0] as number, thresholds.answer);
      return finish({ thresholds, calls, context: { perDocument: context.perDocument, best: context.best, addressed }, answer }, withCauses(() => context.best));
    } catch (error) {
      return unmeasured("backend_error", errorText(error), calls);
    }
  }
  // Without a question: the documents' relevance to each failing claim (none for a grounded answer)
  // whose cause is not already a citation failure (decided without relevance: no model call for it).
  const failingList = claims.filter((c) => failing.has(c) && !isCitationFailure(c));
  if (failingList.length === 0) return finish({ thresholds, calls: 0 }, withCauses(() => undefined));
  // Each claim sends at most topK windows of each document: the claims measured are those the pair budget covers.
  const perQuery = Math.max(1, Math.min(windows.length, input.documents * Math.max(1, settings.topK)));
  const measuredClaims = failingList.slice(0, Math.max(1, Math.floor((settings.maxPairs ?? Infinity) / perQuery)));
  try {
    const measured = await contextRelevance({ ...common, claims: measuredClaims.map((c) => c.text) });
    const bestOf = new Map(measuredClaims.map((c, i) => [c, measured.perClaim?.[i]?.best] as const));
    return finish({ thresholds, calls: measured.pairs }, withCauses((c) => bestOf.get(c), true));
  } catch (error) {
    return unmeasured("backend_error", errorText(error), 0);
  }
}
