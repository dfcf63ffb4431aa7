import type { AnalyzedText, Token } from "../../core/text.ts";

/**
 * Paraphrase groups: words and phrases that say the same thing in the product, pricing and policy
 * text that answers are checked against ("yearly" and "annual", "Monday to Friday" and
 * "weekdays", "around the clock" and "24 hours a day", "pro rata" and "prorated"). A claim word
 * is stated by the evidence when the evidence holds any member of its group, as it is when the
 * evidence holds another derivation of it (word-forms.ts).
 *
 * The groups are narrow and written out by hand: each joins words that mean the same in every
 * sense a policy uses, never two that differ in what they assert. So "monthly" is not "yearly",
 * "weekends" are not "weekdays", and no number joins another: a claim that changes one of them
 * still lacks a word its evidence states. Each group that has an opposite names it (`opposes`),
 * so that a claim saying "weekends" where the evidence says "Monday to Friday" is read as a
 * contradiction, not only as a missing word. Number words ("two" for "2") are read by the
 * analyser, and other derivations (-ly, -al, -ment, -ion) by the stemmer; neither is repeated here.
 */

/** One slot of a phrase: any of these words (lower case, matched on the surface form or the lemma) fills it. */
type Slot = readonly string[];

interface Group {
  /** The group's name: the sense every member states. */
  readonly key: string;
  /** Single words of the group, matched on the surface form or the lemma ("refunded" is "refund"). */
  readonly words?: readonly string[];
  /** Phrases of the group, slot by slot, punctuation included ("mon", "-", "fri"). */
  readonly phrases?: ReadonlyArray<readonly Slot[]>;
  /** Groups whose sense excludes this one's: a claim with one against evidence with the other is contradicted. */
  readonly opposes?: readonly string[];
}

const UNTIL: Slot = ["to", "through", "thru", "until", "till", "-", "–", "—"];
const MONDAY: Slot = ["monday", "mon"];
const FRIDAY: Slot = ["friday", "fri"];
const SATURDAY: Slot = ["saturday", "saturdays", "sat"];
const SUNDAY: Slot = ["sunday", "sundays", "sun"];
const EACH: Slot = ["per", "each", "every"];

/** The groups, each as narrow as its words' common meaning. */
const GROUPS: readonly Group[] = [
  { key: "yearly", words: ["yearly", "annual", "annually", "annum"], phrases: [[EACH, ["year"]]], opposes: ["monthly", "weekly", "daily"] },
  { key: "monthly", words: ["monthly"], phrases: [[EACH, ["month"]]], opposes: ["yearly", "weekly", "daily"] },
  { key: "weekly", words: ["weekly"], phrases: [[EACH, ["week"]]], opposes: ["yearly", "monthly", "daily"] },
  { key: "daily", words: ["daily"], phrases: [[EACH, ["day"]]], opposes: ["yearly", "monthly", "weekly"] },
  {
    key: "weekdays",
    words: ["weekday", "weekdays"],
    phrases: [[MONDAY, UNTIL, FRIDAY], [["from"], MONDAY, UNTIL, FRIDAY]],
    opposes: ["weekends"],
  },
  { key: "weekends", words: ["weekend", "weekends"], phrases: [[SATURDAY, ["and", "&", "-", "–"], SUNDAY]], opposes: ["weekdays"] },
  {
    key: "all-hours",
    words: ["24/7"],
    phrases: [[["around", "round"], ["the"], ["clock"]], [["24"], ["hours", "hour"], ["a", "per", "each", "every"], ["day"]], [["24"], ["/"], ["7"]], [["24"], ["x7"]]],
  },
  {
    key: "pro-rata",
    words: ["prorate", "prorated", "pro-rata", "pro-rated", "proportionally"],
    phrases: [[["pro"], ["rata", "rated"]], [["pro"], ["rata", "rated"], ["basis"]], [["prorated", "pro-rata", "pro-rated", "proportional"], ["basis"]]],
  },
  { key: "pay", words: ["pay", "payment", "billing", "billed"] },
  { key: "save", words: ["save", "saving", "savings", "discount"] },
  { key: "cost", words: ["cost", "charge", "price"] },
  { key: "store", words: ["store", "keep", "hold"] },
  { key: "receive", words: ["get", "receive"] },
  { key: "answer", words: ["answer", "response", "reply", "respond"] },
  { key: "tier", words: ["tier", "plan", "level"] },
  { key: "member", words: ["member", "customer", "subscriber"] },
  // Derivations the stemmer leaves apart ("delivery" is "deliveri", "deliver" is "deliv").
  { key: "deliver", words: ["deliver", "delivery"] },
  { key: "subscribe", words: ["subscribe", "subscription"] },
  { key: "use", words: ["use", "usage"] },
];

/** The groups, indexed once: each single word, and each phrase by the words of its first slot. */
interface Index {
  readonly words: ReadonlyMap<string, string>;
  readonly phrases: ReadonlyMap<string, ReadonlyArray<{ readonly key: string; readonly slots: readonly Slot[] }>>;
  readonly opposes: ReadonlyMap<string, readonly string[]>;
}

function buildIndex(groups: readonly Group[]): Index {
  const words = new Map<string, string>();
  const phrases = new Map<string, Array<{ key: string; slots: readonly Slot[] }>>();
  const opposes = new Map<string, readonly string[]>();
  for (const g of groups) {
    for (const w of g.words ?? []) words.set(w, g.key);
    for (const slots of g.phrases ?? []) {
      for (const first of slots[0] ?? []) {
        const list = phrases.get(first) ?? [];
        list.push({ key: g.key, slots });
        phrases.set(first, list);
      }
    }
    if (g.opposes) opposes.set(g.key, g.opposes);
  }
  return { words, phrases, opposes };
}

const INDEX: Index = buildIndex(GROUPS);

/** Which paraphrase group each token of a text belongs to, and the groups the text states. */
export interface Paraphrases {
  /** The group of each token that is a group's word or part of a group's phrase. */
  readonly senses: ReadonlyMap<Token, string>;
  /** The groups the text states. */
  readonly groups: ReadonlySet<string>;
  /** The groups each sentence states, in the order of the text's sentences. */
  readonly sentenceGroups: ReadonlyArray<ReadonlySet<string>>;
}

const NO_PHRASES: ReadonlyArray<{ readonly key: string; readonly slots: readonly Slot[] }> = [];
const NO_LISTS: ReadonlyArray<typeof NO_PHRASES> = [];
const NO_GROUPS: ReadonlySet<string> = new Set();

const fills = (slot: Slot, t: Token): boolean => slot.includes(t.lower) || slot.includes(t.lemma);

/** Tokens of the phrase starting at `i` (0 when it does not match there); phrases stop at a sentence's end. */
function phraseLength(tokens: readonly Token[], i: number, slots: readonly Slot[], end: number): number {
  if (i + slots.length > end) return 0;
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k];
    const t = tokens[i + k];
    if (!slot || !t || !fills(slot, t)) return 0;
  }
  return slots.length;
}

/**
 * The paraphrase groups of a text's tokens: at each token the longest phrase of a group that
 * starts there, else the token's own group. Linear: a token is tried against the few phrases
 * that start with it, each a handful of slots long, and a matched phrase is skipped past.
 */
export function paraphrasesOf(doc: AnalyzedText): Paraphrases {
  const senses = new Map<Token, string>();
  const groups = new Set<string>();
  const sentenceGroups: Array<ReadonlySet<string>> = [];
  const { tokens } = doc;
  for (const s of doc.sentences) {
    // Most sentences state no group: they share one empty set, and a set is made for the others.
    let own: Set<string> | undefined;
    const add = (group: string): void => {
      groups.add(group);
      (own ??= new Set()).add(group);
    };
    let i = s.tokenStart;
    while (i < s.tokenEnd) {
      const t = tokens[i] as Token;
      let best = 0;
      let key: string | undefined;
      // Most words start no phrase: two lookups, nothing allocated.
      const byLower = INDEX.phrases.get(t.lower);
      const byLemma = t.lemma === t.lower ? undefined : INDEX.phrases.get(t.lemma);
      for (const list of byLower || byLemma ? [byLower ?? NO_PHRASES, byLemma ?? NO_PHRASES] : NO_LISTS) {
        for (const p of list) {
          const n = phraseLength(tokens, i, p.slots, s.tokenEnd);
          if (n > best) {
            best = n;
            key = p.key;
          }
        }
      }
      if (key !== undefined) {
        for (let k = i; k < i + best; k++) senses.set(tokens[k] as Token, key);
        add(key);
        i += best;
        continue;
      }
      const word = INDEX.words.get(t.lower) ?? INDEX.words.get(t.lemma);
      if (word !== undefined) {
        senses.set(t, word);
        add(word);
      }
      i++;
    }
    sentenceGroups.push(own ?? NO_GROUPS);
  }
  return { senses, groups, sentenceGroups };
}

/** A claim's group and the group opposing it that an evidence sentence states instead. */
export interface Opposition {
  readonly claim: string;
  readonly evidence: string;
}

/**
 * A group of the claim whose opposite an evidence sentence states while lacking the group itself
 * ("weekends" where the sentence says "Monday to Friday"), among the sentences `about` accepts
 * (those about what the claim is about); undefined when there is none. The claim must not state
 * the opposite itself ("on weekdays and weekends"). Linear in the claim's groups times the sentences.
 */
export function opposedIn(claim: Paraphrases, evidence: Paraphrases, about: (sentence: number) => boolean): Opposition | undefined {
  for (const group of claim.groups) {
    const opposed = (INDEX.opposes.get(group) ?? []).filter((o) => !claim.groups.has(o) && evidence.groups.has(o));
    if (opposed.length === 0) continue;
    for (let si = 0; si < evidence.sentenceGroups.length; si++) {
      const own = evidence.sentenceGroups[si] as ReadonlySet<string>;
      const hit = opposed.find((o) => own.has(o));
      if (hit !== undefined && !own.has(group) && about(si)) return { claim: group, evidence: hit };
    }
  }
  return undefined;
}

/** Modals by which a claim says a thing can be done ("you can pay cash on delivery"). */
const POSSIBILITY_MODALS: ReadonlySet<string> = new Set(["can", "may", "could"]);

/** Words by which evidence says a thing can be done, or with a negation that it cannot ("cash on delivery is not available"). */
const POSSIBILITY_WORDS: ReadonlySet<string> = new Set(["available", "possible", "allowed", "permitted", "accepted", "offered", "supported", "eligible", "accept", "allow", "permit", "offer", "support"]);

/**
 * The word by which an evidence sentence denies a possibility that the claim asserts with a modal
 * and no negation of its own ("You can pay cash on delivery." against "Cash on delivery is not
 * available."): a possibility word in the sentence's negated lemmas (`negated`) that the claim does
 * not state itself (when it does, the negation flip is read as it is). Undefined otherwise. Linear
 * in the claim's tokens.
 */
export function deniedPossibility(claim: readonly Token[], claimLemmas: ReadonlySet<string>, negated: ReadonlySet<string>): string | undefined {
  if (!claim.some((t) => POSSIBILITY_MODALS.has(t.lower))) return undefined;
  for (const l of negated) if (POSSIBILITY_WORDS.has(l) && !claimLemmas.has(l)) return l;
  return undefined;
}

/**
 * How many of the claim's paraphrase groups an evidence sentence states in another word than the
 * claim's ("Payment" for "pay"): a sentence that states the claim so shares those words with it.
 * `claim` is the claim's groups, `groups` and `lemmas` the sentence's. Linear in the claim's
 * distinct words in groups, as the count of shared lemmas is in its distinct lemmas.
 */
export function paraphraseOverlap(claim: Paraphrases): (groups: ReadonlySet<string>, lemmas: ReadonlySet<string>) => number {
  // Each group's distinct lemmas in the claim: as many as the claim's distinct words, at most.
  const lemmasOf = new Map<string, Set<string>>();
  for (const [t, g] of claim.senses) {
    const own = lemmasOf.get(g);
    if (own) own.add(t.lemma);
    else lemmasOf.set(g, new Set([t.lemma]));
  }
  return (groups, lemmas) => {
    let n = 0;
    for (const [g, own] of lemmasOf) {
      if (!groups.has(g)) continue;
      let stated = false;
      for (const l of own) if (lemmas.has(l)) stated = true;
      if (!stated) n++;
    }
    return n;
  };
}
