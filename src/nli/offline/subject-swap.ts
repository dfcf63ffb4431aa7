import type { Lexicon } from "./lexicon.ts";
import type { MentionClause } from "./mentions.ts";
import { resolveMention } from "./mentions.ts";

/** Most of a claim's mentions checked for a swap: a claim naming more is checked on its first ones. */
const MAX_CLAIM_MENTIONS = 16;

/** A clause of the evidence with its mentions resolved (computed once per evidence text: see `SwapMemo`). */
export interface KeyedClause {
  readonly lemmas: ReadonlySet<string>;
  /** Each mention's key, with its kind (see `resolveMention`) and how it is written. */
  readonly keys: ReadonlyMap<string, { kind?: string; words: readonly string[]; text: string }>;
  readonly kinds: ReadonlySet<string>;
}

/** Whether every word of one name is a word of the other: "CBS News" and "CBS Evening News" may be one thing. */
function nested(a: readonly string[], b: readonly string[]): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  const words = new Set(long);
  return short.every((w) => words.has(w));
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const l of a) if (b.has(l)) n++;
  return n;
}

/** What `subjectSwap` keeps of one evidence text between the claims checked against it. */
export interface SwapMemo {
  keyed?: readonly KeyedClause[];
}

/** The evidence's clauses with their mentions resolved. */
function keyedClauses(premise: readonly MentionClause[], lexicon: Lexicon): KeyedClause[] {
  return premise.map((c) => {
    const keys = new Map<string, { kind?: string; words: readonly string[]; text: string }>();
    const kinds = new Set<string>();
    for (const m of c.mentions) {
      const r = resolveMention(m, lexicon);
      if (r === undefined) continue;
      keys.set(r.key, { ...(r.kind === undefined ? {} : { kind: r.kind }), words: r.words, text: m.text });
      if (r.kind !== undefined) kinds.add(r.kind);
    }
    return { lemmas: c.lemmas, keys, kinds };
  });
}

/**
 * A claim that says of one named thing what the evidence says of another of its kind: "The Basic
 * plan includes phone support" against "The Premium plan includes phone support; the Basic plan
 * includes email support only". Word overlap cannot see it: every word of the claim is in the
 * evidence.
 *
 * It is a swap when the claim's mention ("Basic plan", "version 3", "Dr. Lee") is in the evidence,
 * and a clause of the evidence that names another thing of the same kind (see `resolveMention`; the
 * kind the evidence gives the name counts too, so "Lee" is of the kind of "Dr. Lee"), and not the
 * claim's, holds at least half of what the claim's clause says (its content words outside mentions)
 * and more of it than any clause naming the claim's thing; and a word of the claim is in that
 * clause, in no clause naming the claim's thing, and in no clause that names nothing of that kind
 * (which could be said of anyone: "she performed the surgery"). Names one inside the other ("CBS
 * News", "CBS Evening News") are not told apart. Returns a note saying so, or undefined.
 *
 * Cost: per claim mention (at most MAX_CLAIM_MENTIONS), the claim clause's words against each
 * evidence clause naming that kind of thing: linear in the evidence and in the claim.
 */
export function subjectSwap(premise: readonly MentionClause[], hypothesis: readonly MentionClause[], lexicon: Lexicon, memo: SwapMemo = {}): string | undefined {
  // Most claims name nothing of a kind: then the evidence is never read.
  if (!hypothesis.some((c) => c.lemmas.size > 0 && c.mentions.some((m) => resolveMention(m, lexicon) !== undefined))) return undefined;
  memo.keyed ??= keyedClauses(premise, lexicon);
  const clauses = memo.keyed;
  // Words said in a clause naming nothing of a kind, per kind (computed when a claim names that kind).
  const loose = new Map<string, Set<string>>();
  const looseOf = (kind: string): ReadonlySet<string> => {
    let set = loose.get(kind);
    if (!set) {
      set = new Set();
      for (const c of clauses) if (!c.kinds.has(kind)) for (const l of c.lemmas) set.add(l);
      loose.set(kind, set);
    }
    return set;
  };
  let checked = 0;
  for (const claim of hypothesis) {
    if (claim.lemmas.size === 0) continue;
    const enough = Math.max(1, Math.ceil(claim.lemmas.size / 2));
    for (const m of claim.mentions) {
      if (checked++ >= MAX_CLAIM_MENTIONS) return undefined;
      const mention = resolveMention(m, lexicon);
      if (mention === undefined) continue;
      const { key } = mention;
      const own = clauses.filter((c) => c.keys.has(key));
      // Its kinds: its own, and those the evidence gives it ("Lee" is the "Dr. Lee" of the evidence).
      const kinds = new Set<string>();
      if (mention.kind !== undefined) kinds.add(mention.kind);
      for (const c of own) {
        const kind = c.keys.get(key)?.kind;
        if (kind !== undefined) kinds.add(kind);
      }
      if (own.length === 0 || kinds.size === 0) continue;
      const ownBest = own.reduce((best, c) => Math.max(best, overlap(claim.lemmas, c.lemmas)), 0);
      const ownLemmas = new Set(own.flatMap((c) => [...c.lemmas].filter((l) => claim.lemmas.has(l))));
      const anywhere = [...kinds].map(looseOf);
      for (const other of clauses) {
        if (other.keys.has(key) || ![...kinds].some((k) => other.kinds.has(k))) continue;
        const theirs = [...other.keys.values()].find((v) => v.kind !== undefined && kinds.has(v.kind) && !nested(v.words, mention.words));
        if (theirs === undefined) continue;
        const hits = overlap(claim.lemmas, other.lemmas);
        if (hits < enough || hits <= ownBest) continue;
        const bound = [...claim.lemmas].find((l) => other.lemmas.has(l) && !ownLemmas.has(l) && !anywhere.some((set) => set.has(l)));
        if (bound === undefined) continue;
        return `"${m.text}" where the evidence says "${bound}" of "${theirs.text}"`;
      }
    }
  }
  return undefined;
}
