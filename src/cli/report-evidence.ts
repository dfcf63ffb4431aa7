import type { ClaimResult, Evidence } from "../core/groundedness.ts";

/** The evidence a report shows beside a claim, and what it is, in the words every report uses. */
export interface ShownEvidence {
  /** "evidence", "nearest evidence", "supported instead by" or "contradicting evidence". */
  readonly label: string;
  readonly evidence: Evidence;
}

/**
 * The sentence shown beside a claim: for a contradicted claim, the one that states otherwise; for
 * a misattributed one, where it is supported instead; else its best (or, unsupported, nearest)
 * support. Undefined when there is none (a claim decided without the backend).
 */
export function shownEvidence(c: Pick<ClaimResult, "verdict" | "evidence" | "contradictingEvidence">): ShownEvidence | undefined {
  if (c.verdict === "contradicted" && c.contradictingEvidence) return { label: "contradicting evidence", evidence: c.contradictingEvidence };
  if (!c.evidence) return undefined;
  const label = c.verdict === "supported" ? "evidence" : c.verdict === "misattributed" ? "supported instead by" : "nearest evidence";
  return { label, evidence: c.evidence };
}

/** Where the sentence lies: "doc 1, 175–223" (the document's index in the context, character offsets into it). */
export function evidenceLocation(e: Evidence): string {
  return `doc ${e.doc}, ${e.start}–${e.end}`;
}
