/**
 * The guard bench's answers (bench:guard), from a seed: realistic RAG answers of 3–6 sentences
 * against 2–3 retrieved documents about one product, each in two versions — grounded (every sentence
 * restates a document sentence, with its figure) and invented (the same answer with one figure
 * changed, the error a guard must stop) — and the answer cut into token-sized deltas as an LLM
 * server streams it.
 */
import { rng } from "../src/core/rng.ts";

/** One answer to guard: the observation's fields, and which version it is. */
export interface GuardCase {
  readonly question: string;
  readonly context: readonly string[];
  readonly answer: string;
  /** "grounded": every sentence is stated in the context; "invented": one figure differs from the context's. */
  readonly kind: "grounded" | "invented";
  readonly sentences: number;
}

const BRANDS = ["Halden", "Corvane", "Mirelo", "Ostrava", "Pellum", "Quintor", "Saveno", "Tarrow"];
const KINDS = ["wireless router", "coffee grinder", "electric kettle", "desk lamp", "air purifier", "label printer"];
const CITIES = ["Lisbon", "Osaka", "Monterrey", "Gdansk", "Penang", "Tampere"];

type Num = (lo: number, hi: number) => number;

/** A fact: the document's sentence and the answer's sentence, given the product and its figure. */
interface Fact {
  readonly doc: (p: string, v: number) => string;
  readonly answer: (p: string, v: number) => string;
  readonly range: readonly [number, number];
}

const FACTS: readonly Fact[] = [
  { doc: (p, v) => `The ${p} comes with a warranty of ${v} months from the date of purchase.`, answer: (p, v) => `The ${p} comes with a ${v}-month warranty from the date of purchase.`, range: [12, 48] },
  { doc: (p, v) => `The ${p} weighs ${v} grams without its battery pack.`, answer: (p, v) => `Without its battery pack, the ${p} weighs ${v} grams.`, range: [300, 4000] },
  { doc: (_, v) => `A full charge lasts about ${v} hours under normal use.`, answer: (_, v) => `A full charge lasts about ${v} hours in normal use.`, range: [4, 40] },
  { doc: (_, v) => `The list price is ${v} dollars before tax.`, answer: (_, v) => `It costs ${v} dollars before tax.`, range: [40, 900] },
  { doc: (_, v) => `The device has ${v} USB ports on the back panel.`, answer: (_, v) => `There are ${v} USB ports on the back panel.`, range: [2, 6] },
  { doc: (_, v) => `Unused units may be returned within ${v} days for a full refund.`, answer: (_, v) => `You can return an unused unit within ${v} days for a full refund.`, range: [14, 90] },
  { doc: (_, v) => `Up to ${v} users can share one account at the same time.`, answer: (_, v) => `Up to ${v} users can share one account at once.`, range: [2, 12] },
];

const FILLER: ReadonlyArray<(c: string, n: number) => string> = [
  (_, n) => `The manual describes the setup in ${n} short steps.`,
  (c) => `Spare parts are stocked at the service centre in ${c}.`,
  (_, n) => `Firmware updates arrive every ${n} weeks over the air.`,
];

/**
 * The case at `index` of the sequence for `seed` (even indexes grounded, odd ones invented): the same
 * index, the same case, on every run. The index is in the product's name, so no two cases share a
 * document or a sentence (no case is scored faster for one scored before it). `sentences` (3–6)
 * sets the answer's length, else it is drawn.
 */
export function guardCase(seed: number, index: number, sentences?: number): GuardCase {
  const r = rng((seed * 2654435761 + index * 40503) >>> 0);
  for (let k = 0; k < 4; k++) r();
  const num: Num = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const product = `${pick(BRANDS)} ${pick(KINDS)} ${index + 100}`;
  const facts = [...FACTS].sort(() => r() - 0.5);
  const values = facts.map((f) => num(f.range[0], f.range[1]));
  const drawn = num(3, 6);
  const nSentences = sentences === undefined ? drawn : Math.min(6, Math.max(3, Math.round(sentences)));
  const nDocs = num(2, 3);
  const docs: string[][] = Array.from({ length: nDocs }, () => []);
  facts.forEach((f, k) => docs[k % nDocs]?.push(f.doc(product, values[k] as number)));
  docs.forEach((d) => d.push((pick(FILLER) as (c: string, n: number) => string)(pick(CITIES), num(3, 12))));
  const answer = facts.slice(0, nSentences).map((f, k) => f.answer(product, values[k] as number));
  const kind = index % 2 === 0 ? "grounded" : "invented";
  if (kind === "invented") {
    // One figure, in one sentence after the first, changed to one the documents never state.
    const k = 1 + num(0, nSentences - 2);
    const f = facts[k] as Fact;
    const stated = new Set(docs.join(" ").match(/[0-9]+/g));
    let v = (values[k] as number) + Math.max(1, Math.round((values[k] as number) * 0.5));
    while (stated.has(String(v))) v++;
    answer[k] = f.answer(product, v);
  }
  return { question: `What should I know about the ${product}?`, context: docs.map((d) => d.join(" ")), answer: answer.join(" "), kind, sentences: nSentences };
}

/** The answer as an LLM server streams it: token-sized deltas (a word or a punctuation mark, with the space before it), in order; joined they are the answer, byte for byte. */
export function tokenDeltas(answer: string): string[] {
  return answer.match(/\s*[A-Za-z]+|\s*[0-9]+|\s*[^\sA-Za-z0-9]|\s+$/g) ?? [];
}

/** The lower-case words of these cases: the vocabulary the bench tokenizer gives one piece each. */
export function caseWords(cases: readonly GuardCase[]): Set<string> {
  const words = new Set<string>();
  for (const c of cases) for (const text of [c.question, c.answer, ...c.context]) for (const m of text.toLowerCase().matchAll(/[a-z]+/g)) words.add(m[0]);
  return words;
}
