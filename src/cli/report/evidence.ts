import type { ClaimResult, ClaimVerdict, Evidence } from "../../core/result.ts";
import { evidenceToShow } from "../../core/verdict.ts";

/** The evidence a report shows beside a claim, and what it is, in the words every report uses. */
export interface ShownEvidence {
  /** "evidence", "nearest evidence", "supported instead by" or "contradicting evidence". */
  readonly label: string;
  readonly evidence: Evidence;
}

/**
 * The sentence shown beside a claim (core's evidenceToShow) with its label. Undefined when there
 * is none (a claim decided without the backend).
 */
export function shownEvidence(c: Pick<ClaimResult, "verdict" | "evidence" | "contradictingEvidence">): ShownEvidence | undefined {
  const evidence = evidenceToShow(c);
  if (!evidence) return undefined;
  return { label: evidenceLabel(c.verdict, evidence === c.contradictingEvidence), evidence };
}

/** What the evidence shown beside a claim of this verdict is called; `contradicting`: it is the sentence that contradicts the claim. */
export function evidenceLabel(verdict: ClaimVerdict, contradicting = verdict === "contradicted"): string {
  return contradicting ? "contradicting evidence" : verdict === "supported" ? "evidence" : verdict === "misattributed" ? "supported instead by" : "nearest evidence";
}

/**
 * Where the sentence lies: "document [2], 175–223" (the document as an answer cites it, 1-based as
 * every report numbers sources; character offsets into it); for evidence of two sentences read
 * together, both: "document [1], 0–31 + document [2], 0–40".
 */
export function evidenceLocation(e: Evidence): string {
  const one = (x: Pick<Evidence, "doc" | "start" | "end">): string => `document [${x.doc + 1}], ${x.start}–${x.end}`;
  return e.also ? `${one(e)} + ${one(e.also)}` : one(e);
}

/** The evidence's text: its sentence, or both sentences of evidence read together, joined by " + ". */
export function evidenceText(e: Evidence): string {
  return e.also ? `${e.text} + ${e.also.text}` : e.text;
}

/** The evidence in one line, as the eval reports show it: "nearest evidence [document [2], 175–223]: text"; `text` shapes the sentence (clipped, quoted). */
export function evidenceLine(shown: ShownEvidence, text: (sentence: string) => string = (sentence) => sentence): string {
  return `${shown.label} [${evidenceLocation(shown.evidence)}]: ${text(evidenceText(shown.evidence))}`;
}
