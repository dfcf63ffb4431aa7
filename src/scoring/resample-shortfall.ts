import type { ClaimConsistency } from "../core/entropy/claim-consistency.ts";
import type { EntropyResult } from "../core/entropy/semantic-entropy.ts";
import { describeResampleProblem } from "../core/entropy/semantic-entropy.ts";

/** How the monitor's resampler fared for an observation: how many answers it asked for, and why none came (fixed text, never the host's). */
export interface ResampleNote {
  readonly requested: number;
  readonly failure?: string;
}

/** What arrived of the resamples asked for: how many were asked and received, and why none came when the request failed. */
export interface ResampleShortfall {
  /** Samples asked for. */
  readonly requested: number;
  /** Samples that arrived, before any cut at maxSamples (a cut is the "samples" limit, not a shortfall). */
  readonly received: number;
  /** Why the request for samples failed (timed out, aborted, over the byte budget); absent when it answered. */
  readonly failure?: string;
}

/**
 * Fails closed on resamples that were asked for and did not all come: a set shorter than
 * requested, or none at all (the sampler failed, timed out, was aborted), gives an unreliable
 * entropy with the reason first (and a degenerate, unreliable claim consistency), so under the
 * combined policy the verdict is unscorable, never a confident one. The failure, when there is
 * one, is the first reason. A full set without a failure changes nothing.
 */
export function applyResampleShortfall(
  entropy: EntropyResult,
  consistency: ClaimConsistency | undefined,
  shortfall: ResampleShortfall,
): { entropy: EntropyResult; consistency: ClaimConsistency | undefined } {
  let e = entropy;
  let c = consistency;
  if (shortfall.received < shortfall.requested) {
    const short = describeResampleProblem({ code: "short_batch", requested: shortfall.requested, received: shortfall.received });
    e = { ...e, reliable: false, reasons: [short, ...e.reasons] };
    if (c) c = { ...c, degenerate: true, reliable: false, reasons: [short, ...c.reasons] };
  }
  if (shortfall.failure !== undefined) e = { ...e, reliable: false, reasons: [shortfall.failure, ...e.reasons] };
  return { entropy: e, consistency: c };
}
