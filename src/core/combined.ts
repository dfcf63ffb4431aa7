import type { ClaimConsistency, UnstableClaim } from "./entropy/claim-consistency.ts";
import type { EntropyResult } from "./entropy/semantic-entropy.ts";
import type { GroundednessResult } from "./result.ts";

/** How groundedness, semantic entropy and claim-level consistency combine into one verdict. */
export interface CombinedPolicy {
  /** Normalised semantic entropy at or above which the model counts as guessing. */
  readonly entropyThreshold: number;
  /** "either": fail when ungrounded or guessing; "groundedness-only": entropy is reported, not gated on. */
  readonly mode: "either" | "groundedness-only";
  /**
   * Also gate on claim-level consistency (in either mode): fail when a claim is unstable, and be
   * unscorable when stability could not be measured. Default false: unstable claims are reported only.
   */
  readonly failOnUnstableClaims?: boolean;
}

export interface CombinedVerdict {
  readonly verdict: "pass" | "fail" | "unscorable";
  readonly reasons: readonly string[];
}

/** Claim-level consistency as the combined verdict reads it. */
export interface ConsistencyInput {
  readonly summary: ClaimConsistency;
  readonly unstableClaims: readonly UnstableClaim[];
}

const percent = (share: number): string => `${Math.round(share * 100)}%`;

/** "claim 2 (1 of 5)" for up to three unstable claims, and how many more. */
function listUnstable(claims: readonly UnstableClaim[]): string {
  const shown = claims.slice(0, 3).map((c) => `claim ${c.index} (${c.resampleSupport.supported} of ${c.resampleSupport.of})`);
  return claims.length > 3 ? `${shown.join(", ")} and ${claims.length - 3} more` : shown.join(", ");
}

/**
 * One verdict from both signals. Fails closed: an unscorable answer or an unreliable
 * entropy measurement is `unscorable`, never `pass`; resamples that all decline to
 * answer mean the model does not stand behind its answer, which is a `fail`.
 * With `failOnUnstableClaims`, a measured unstable claim is a `fail`; a resample set that
 * cannot show disagreement (identical samples…) or claims left unmeasured (budget, backend
 * error) are `unscorable`, so stability that was not measured never passes.
 */
export function combineVerdicts(groundedness: GroundednessResult, entropy: EntropyResult | undefined, policy: CombinedPolicy, consistency?: ConsistencyInput): CombinedVerdict {
  const reasons: string[] = [];
  if (groundedness.verdict === "unscorable") return { verdict: "unscorable", reasons: [`groundedness unscorable: ${groundedness.reason}`] };
  if (groundedness.verdict === "ungrounded") reasons.push(`ungrounded: score ${groundedness.score.toFixed(3)} below ${groundedness.threshold}`);
  if (entropy && policy.mode === "either") {
    if (!entropy.reliable) return { verdict: "unscorable", reasons: [...reasons, `semantic entropy unreliable: ${entropy.reasons.join("; ")}`] };
    if (entropy.abstained) reasons.push("every resample declined to answer");
    else if ((entropy.normalizedEntropy ?? 1) >= policy.entropyThreshold) {
      reasons.push(`uncertain: normalised semantic entropy ${(entropy.normalizedEntropy ?? 1).toFixed(3)} at or above ${policy.entropyThreshold} (${entropy.clusters.length} meanings in ${entropy.diagnostics.samples} samples)`);
    }
  }
  if (consistency && policy.failOnUnstableClaims) {
    const { summary: s, unstableClaims } = consistency;
    // Support counts on identical or too few samples mean nothing, in either direction.
    if (s.degenerate) return { verdict: "unscorable", reasons: [...reasons, `claim stability unreliable: ${s.reasons.join("; ")}`] };
    if (unstableClaims.length > 0) {
      reasons.push(`unstable: ${unstableClaims.length} of ${s.claims} claims entailed by fewer than ${percent(s.unstableShare)} of ${s.samples} resamples: ${listUnstable(unstableClaims)}`);
    } else if (!s.reliable) {
      return { verdict: "unscorable", reasons: [...reasons, `claim stability not measured: ${s.reasons.join("; ")}`] };
    }
  }
  return { verdict: reasons.length > 0 ? "fail" : "pass", reasons };
}
