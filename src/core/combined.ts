import type { EntropyResult } from "./entropy/semantic-entropy.ts";
import type { AnswerResult } from "./groundedness.ts";

/** How groundedness and semantic entropy combine into one verdict. */
export interface CombinedPolicy {
  /** Normalised semantic entropy at or above which the model counts as guessing. */
  readonly entropyThreshold: number;
  /** "either": fail when ungrounded or guessing; "groundedness-only": entropy is reported, not gated on. */
  readonly mode: "either" | "groundedness-only";
}

export interface CombinedVerdict {
  readonly verdict: "pass" | "fail" | "unscorable";
  readonly reasons: readonly string[];
}

/**
 * One verdict from both signals. Fails closed: an unscorable answer or an unreliable
 * entropy measurement is `unscorable`, never `pass`; resamples that all decline to
 * answer mean the model does not stand behind its answer, which is a `fail`.
 */
export function combineVerdicts(groundedness: AnswerResult, entropy: EntropyResult | undefined, policy: CombinedPolicy): CombinedVerdict {
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
  return { verdict: reasons.length > 0 ? "fail" : "pass", reasons };
}
