/**
 * Generated RAG observations for the model-tier benchmark, from a seed: a question, 3–5 retrieved
 * documents of 3–6 sentences about one product, and an answer of 2–4 claims about it.
 *
 * Every claim is a paraphrase of a document sentence (its own template, never a sentence of the
 * documents verbatim), and every claim names the observation's product, whose name carries the
 * observation's index: no two observations share a claim, so no two share a (window, claim) pair,
 * and every pair the scorer sends is a model call (none verbatim, none a cache hit).
 * About one claim in four carries a different figure from its document (an unsupported claim).
 */
import { rng } from "../src/core/rng.ts";

/** One observation as the collector's /v1/observations and createMonitor's observe() take it (without its route). */
export interface RagObservation {
  readonly question: string;
  readonly context: readonly string[];
  readonly answer: string;
}

const BRANDS = ["Halden", "Corvane", "Mirelo", "Ostrava", "Pellum", "Quintor", "Saveno", "Tarrow", "Ulmeric", "Veradin", "Wexford", "Yarrow"];
const SERIES = ["Vista", "Axis", "Nova", "Pulse", "Orbit", "Crest", "Summit", "Harbor", "Beacon", "Meridian"];
const KINDS = ["wireless router", "coffee grinder", "electric kettle", "desk lamp", "air purifier", "label printer", "soundbar", "robot vacuum"];
const COMPANIES = ["Brightwell Industries", "Northgate Appliances", "Kestrel Devices", "Lumen Works", "Harrow Electronics", "Ashby Systems"];
const CITIES = ["Lisbon", "Osaka", "Monterrey", "Gdansk", "Penang", "Tampere", "Leeds", "Porto", "Brno", "Cebu"];
const REGIONS = ["Canada", "Germany", "Japan", "Brazil", "Australia", "Mexico", "Sweden", "Spain"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const MATERIALS = ["aluminium", "plastic", "steel", "bamboo", "glass"];
const QUALITIES = ["compact", "quiet", "sturdy", "minimal", "practical"];

type Pick = <T>(xs: readonly T[]) => T;
type Num = (lo: number, hi: number) => number;

/** A fact: the sentence a document states it with, and the answer's paraphrase of it, given its figure. */
interface Fact {
  readonly doc: (p: string, v: string) => string;
  readonly claim: (p: string, v: string) => string;
  readonly value: (pick: Pick, num: Num) => string;
}

const FACTS: readonly Fact[] = [
  { doc: (p, v) => `The ${p} comes with a warranty of ${v} months from the date of purchase.`, claim: (p, v) => `The ${p} is covered for ${v} months after it is bought.`, value: (_, n) => String(n(6, 60)) },
  { doc: (_, v) => `It weighs ${v} grams without the battery pack attached.`, claim: (p, v) => `Without its battery pack the ${p} has a mass of ${v} grams.`, value: (_, n) => String(n(300, 4000)) },
  { doc: (_, v) => `A full charge lasts about ${v} hours under normal use.`, claim: (p, v) => `The ${p} runs for roughly ${v} hours on one charge.`, value: (_, n) => String(n(3, 40)) },
  { doc: (_, v) => `The list price in ${v.split("|")[0]} is ${v.split("|")[1]} dollars before tax.`, claim: (p, v) => `Buyers in ${v.split("|")[0]} pay ${v.split("|")[1]} dollars for the ${p} before tax.`, value: (pick, n) => `${pick(REGIONS)}|${n(40, 900)}` },
  { doc: (p, v) => `${v.split("|")[0]} released the ${p} in ${v.split("|")[1]}.`, claim: (p, v) => `The ${p} came out in ${v.split("|")[1]}.`, value: (pick, n) => `${pick(COMPANIES)}|${pick(MONTHS)} ${n(2015, 2026)}` },
  { doc: (_, v) => `Production takes place at the company plant in ${v}.`, claim: (p, v) => `The ${p} is manufactured in ${v}.`, value: (pick) => pick(CITIES) },
  { doc: (_, v) => `The device has ${v} USB ports and one power socket on the back panel.`, claim: (p, v) => `There are ${v} USB ports on the ${p}.`, value: (_, n) => String(n(1, 6)) },
  { doc: (_, v) => `Customer support answers calls from ${v} on weekdays.`, claim: (p, v) => `Phone support for the ${p} is open from ${v} on working days.`, value: (_, n) => `${n(6, 10)} am to ${n(4, 9)} pm` },
  { doc: (p, v) => `Up to ${v} users can share a single ${p} account at the same time.`, claim: (p, v) => `One ${p} account serves ${v} people simultaneously.`, value: (_, n) => String(n(2, 12)) },
  { doc: (_, v) => `Unused units may be returned within ${v} days for a full refund.`, claim: (p, v) => `Buyers have ${v} days to send back an unused ${p} for their money.`, value: (_, n) => String(n(14, 90)) },
];

const FILLER: ReadonlyArray<(pick: Pick, num: Num) => string> = [
  (_, n) => `The manual describes the setup in ${n(3, 12)} short steps.`,
  (_, n) => `Firmware updates arrive every ${n(2, 10)} weeks over the air.`,
  (pick) => `The casing is made of recycled ${pick(MATERIALS)}.`,
  (pick) => `Reviewers praised its ${pick(QUALITIES)} design and clear controls.`,
  (pick) => `Spare parts are stocked at the service centre in ${pick(CITIES)}.`,
  (_, n) => `The retail box measures ${n(20, 60)} by ${n(15, 40)} centimetres.`,
];

/** The observation at `index` of the sequence for `seed`: the same index, the same observation, on every run. */
export function ragObservation(seed: number, index: number): RagObservation {
  const r = rng((seed * 2654435761 + index * 40503) >>> 0);
  for (let k = 0; k < 4; k++) r();
  const pick: Pick = (xs) => xs[Math.floor(r() * xs.length)] as (typeof xs)[number];
  const num: Num = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  // The index in the name makes every claim (each names the product) this observation's alone.
  const product = `${pick(BRANDS)} ${pick(SERIES)} ${index + 100}`;
  const facts = [...FACTS].sort(() => r() - 0.5);
  const values = facts.map((f) => f.value(pick, num));
  const nDocs = num(3, 5);
  const context: string[] = [];
  for (let d = 0; d < nDocs; d++) {
    const kind = pick(KINDS);
    const sentences = [`The ${product} is ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} sold by ${pick(COMPANIES)}.`];
    const nSentences = num(3, 6);
    for (let s = 1; s < nSentences; s++) {
      // Document d states facts d and d + nDocs (so facts 0–5 are all stated: every claim below
      // paraphrases one); its later sentences are filler.
      const f = d + (s - 1) * nDocs;
      sentences.push(s <= 2 ? (facts[f] as Fact).doc(product, values[f] as string) : (pick(FILLER) as (p: Pick, n: Num) => string)(pick, num));
    }
    context.push(sentences.join(" "));
  }
  const nClaims = num(2, 4);
  const claims: string[] = [];
  for (let c = 0; c < nClaims; c++) {
    const f = facts[c] as Fact;
    // About one in four claims states another figure than the documents' (a fresh draw).
    claims.push(f.claim(product, r() < 0.25 ? f.value(pick, num) : (values[c] as string)));
  }
  return { question: `What should I know before buying the ${product}?`, context, answer: claims.join(" ") };
}

/** The lower-case words of these observations: the vocabulary the bench tokenizer gives one piece each. */
export function workloadWords(observations: readonly RagObservation[]): Set<string> {
  const words = new Set<string>();
  for (const o of observations) for (const text of [o.question, o.answer, ...o.context]) for (const m of text.toLowerCase().matchAll(/[a-z]+/g)) words.add(m[0]);
  return words;
}

const sentences = (text: string): string[] => text.split(/(?<=[.!?])\s+/).map((t) => t.toLowerCase().replace(/[^a-z0-9 ]/g, "").replace(/\s+/g, " ").trim());

/**
 * Checks the workload's premise on `observations`: claims that are a document sentence verbatim
 * (after lower-casing and dropping punctuation), and claims that occur in more than one observation.
 */
export function workloadOverlap(observations: readonly RagObservation[]): { verbatim: number; sharedClaims: number } {
  let verbatim = 0;
  let sharedClaims = 0;
  const owner = new Map<string, number>();
  observations.forEach((o, i) => {
    const stated = new Set(o.context.flatMap(sentences));
    for (const claim of sentences(o.answer)) {
      if (stated.has(claim)) verbatim++;
      const first = owner.get(claim);
      if (first !== undefined && first !== i) sharedClaims++;
      owner.set(claim, first ?? i);
    }
  });
  return { verbatim, sharedClaims };
}
