import { combineVerdicts } from "../core/combined.ts";
import { semanticEntropy } from "../core/entropy/semantic-entropy.ts";
import type { Observation, ScoredAnswer, Scorer } from "../scoring/scorer.ts";

/** How the monitor's resampler fared for an observation: how many answers it asked for, and why none came (fixed text, never the host's). */
export interface ResampleNote {
  readonly requested: number;
  readonly failure?: string;
}

const SHORT = /^received \d+ of \d+ requested samples/;

/**
 * Fails closed on resamples the monitor asked for, in the scoring worker: a set shorter than
 * requested, or none at all (the sampler failed, timed out, was aborted), gives an unreliable
 * entropy with the reason (and a degenerate claim consistency) and so, under the combined
 * policy, an unscorable verdict, never a confident one. Where the scorer already judged the set
 * against `requested` (its reason is there), that part changes nothing.
 */
export async function failClosed(scored: ScoredAnswer, observation: Observation, note: ResampleNote, scorer: Pick<Scorer, "entailment" | "policy">): Promise<ScoredAnswer> {
  const sent = observation.samples?.length ?? 0;
  // No samples reached the scorer's entropy: an empty set against `requested` is unmeasured, without a backend call.
  let entropy = scored.entropy ?? (await semanticEntropy({ question: observation.question ?? "", samples: [], backend: scorer.entailment, options: { requested: note.requested } }));
  let consistency = scored.claimConsistency;
  let changed = scored.entropy === undefined;
  if (sent < note.requested) {
    const short = `received ${sent} of ${note.requested} requested samples: a short batch hides disagreement`;
    if (!entropy.reasons.some((r) => SHORT.test(r))) {
      entropy = { ...entropy, reliable: false, reasons: [short, ...entropy.reasons] };
      changed = true;
    }
    if (consistency && !consistency.reasons.some((r) => SHORT.test(r))) {
      consistency = { ...consistency, degenerate: true, reliable: false, reasons: [short, ...consistency.reasons] };
      changed = true;
    }
  }
  if (note.failure !== undefined && !entropy.reasons.includes(note.failure)) {
    entropy = { ...entropy, reliable: false, reasons: [note.failure, ...entropy.reasons] };
    changed = true;
  }
  if (!changed) return scored;
  const claims = consistency && scored.unstableClaims ? { summary: consistency, unstableClaims: scored.unstableClaims } : undefined;
  return { ...scored, entropy, ...(consistency ? { claimConsistency: consistency } : {}), combined: combineVerdicts(scored, entropy, scorer.policy, claims) };
}
