import type { NliPair, NliResult } from "./backend.ts";
import type { ContextWindow } from "./context.ts";
import type { NliCache } from "./nli-cache.ts";
import type { CallsSaved } from "./result.ts";
import { nliPairKey } from "./pair-key.ts";
import { VERBATIM_RESULT, createVerbatimMatcher } from "./verbatim.ts";

/**
 * The (claim, window) pairs of one answer that a model need not judge: a claim its window states
 * verbatim (core/verbatim.ts), a pair the judgement cache holds for this backend version, a pair
 * of a claim the cascade's cheap tier decided (core/triage.ts), and a pair identical to one already
 * going to the backend in this answer. Only the rest is sent.
 */

/** The pairs of one answer, looked up before any is sent. */
export interface PairLookup {
  /** The pairs to send to the backend, each distinct pair once, in first-seen order. */
  readonly send: readonly NliPair[];
  readonly saved: CallsSaved;
  /** Per pair looked up, its judgement when known without the backend (verbatim, cached or given); undefined for the pairs sent and their repeats. */
  readonly known: readonly (NliResult | undefined)[];
  /**
   * Every pair's judgement, in the order of the pairs looked up, given the backend's judgements of
   * `send` (one each, in order, checked by core/checked-backend.ts); they are kept in the cache for later answers.
   */
  complete(sent: readonly NliResult[]): NliResult[];
}

/**
 * Looks up each pair (`owners[i]` is the window pairs[i]'s premise is): verbatim first, then the
 * cache under `version`, then `given[i]` (the cheap tier's judgement of a claim it decided; never
 * cached, since it is not the backend's), then the pairs already to be sent. Linear in the pairs' texts.
 */
export function lookUpPairs(pairs: readonly NliPair[], owners: readonly ContextWindow[], cache: NliCache | undefined, version: string, given: readonly (NliResult | undefined)[] = []): PairLookup {
  const verbatim = createVerbatimMatcher();
  const known: Array<NliResult | undefined> = [];
  // For each pair not known, the index of its judgement in `send`.
  const slots: number[] = [];
  const send: NliPair[] = [];
  const sending = new Map<string, number>();
  let byVerbatim = 0;
  let byCache = 0;
  let byTriage = 0;
  pairs.forEach((pair, i) => {
    const w = owners[i];
    if (w && verbatim.states(w, pair.hypothesis)) {
      known.push(VERBATIM_RESULT);
      slots.push(-1);
      byVerbatim++;
      return;
    }
    const cached = cache?.get(pair, version);
    if (cached) {
      known.push(cached);
      slots.push(-1);
      byCache++;
      return;
    }
    const decided = given[i];
    if (decided) {
      known.push(decided);
      slots.push(-1);
      byTriage++;
      return;
    }
    known.push(undefined);
    const key = nliPairKey(pair);
    const slot = sending.get(key);
    if (slot !== undefined) {
      slots.push(slot);
      byCache++;
      return;
    }
    sending.set(key, send.length);
    slots.push(send.length);
    send.push(pair);
  });
  return {
    send,
    saved: { verbatim: byVerbatim, cache: byCache, triage: byTriage },
    known,
    complete(sent) {
      if (cache) {
        send.forEach((pair, s) => {
          const r = sent[s];
          if (r) cache.set(pair, version, r);
        });
      }
      return known.map((r, i) => r ?? sent[slots[i] ?? -1] ?? { entailment: Number.NaN, neutral: Number.NaN, contradiction: Number.NaN });
    },
  };
}

/** The result's `callsSaved`: present when a pair was decided without a model call. */
export function callsSavedOf(saved: CallsSaved): { callsSaved?: CallsSaved } {
  return saved.verbatim > 0 || saved.cache > 0 || saved.triage > 0 ? { callsSaved: saved } : {};
}
