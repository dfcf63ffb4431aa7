/**
 * Answers that fill an observation's entailment budget the way an end user can make them ("list 100
 * facts with their sources"): many claims, each citing several of many retrieved documents, so each
 * claim is checked against its top windows and the best windows of every document it cites. Numbers
 * differ per observation index, so no pair is shared with another observation or judged verbatim.
 * Used by bench:inference-budget and by the interrupted-inference chaos tests.
 */

const TOPICS = ["bridge", "tower", "canal", "tunnel", "harbour", "station"];

/** Every word the answers and documents use, for a tokenizer's vocabulary (bench/models.ts tierModelDir). */
export const CITED_WORDS: readonly string[] = [...TOPICS, ..."the number was opened in and carries vehicles a day across river its length is metres it restored list facts with their sources".split(" ")];

export interface CitedShape {
  /** Claims in the answer, each citing `citations` documents. */
  readonly claims: number;
  readonly citations: number;
  /** Retrieved documents. */
  readonly documents: number;
  /** Sentences per document (default 4): longer documents have more windows for a citation to bring in. */
  readonly sentences?: number;
}

/** The answer the red team used: 100 claims citing 5 of 120 documents each (≈ 770 model calls with documents of 4 sentences). */
export const HEAVY: CitedShape = { claims: 100, citations: 5, documents: 120 };
/** 100 claims citing 5 of 30 documents of 60 sentences: past the default entailment budget (1,000 pairs), which cuts it there (990 calls). */
export const AT_BUDGET: CitedShape = { claims: 100, citations: 5, documents: 30, sentences: 60 };

export interface CitedObservation {
  readonly route: string;
  readonly question: string;
  readonly answer: string;
  readonly context: string[];
}

/** Observation `k` of a shape. */
export function citedObservation(k: number, shape: CitedShape): CitedObservation {
  const cite = (i: number): string => Array.from({ length: shape.citations }, (_, c) => `[${((i * (7 + c * 4) + c) % shape.documents) + 1}]`).join("");
  const answer = Array.from({ length: shape.claims }, (_, i) => `The ${TOPICS[i % 6]} number ${i} was opened in ${1850 + ((i * 7 + k) % 150)} and carries ${(i * 13 + k * 31) % 900} vehicles a day ${cite(i)}.`).join(" ");
  const facts = (d: number, j: number): string => {
    const v = d * 31 + j * 7 + k;
    return [`The ${TOPICS[d % 6]} number ${d} was opened in ${1800 + ((d * 11 + k + j) % 200)}.`, `It carries ${v % 1000} vehicles a day across the river.`, `Its length is ${(v * 29) % 2000} metres.`, `It was restored in ${1950 + ((d + j) % 70)}.`][j % 4] as string;
  };
  const context = Array.from({ length: shape.documents }, (_, d) => Array.from({ length: shape.sentences ?? 4 }, (_, j) => facts(d, j)).join(" "));
  return { route: "/facts", question: "List the facts with their sources", answer, context };
}
