import type { ClaimCitation, ClaimResult, CitationSummary } from "../../core/result.ts";

/** The status of a citation in the words the reports use ("not retrieved", not "not_retrieved"). */
export function citationStatusWord(status: ClaimCitation["status"]): string {
  return status === "not_retrieved" ? "not retrieved" : status;
}

/**
 * A retrieved document as the reports name it: by position, 1-based as answers number their
 * sources ("document 1"), with its name when it has one ("document 2 (refund-policy)").
 */
export function documentLabel(doc: number, names?: ReadonlyArray<string | null>): string {
  const name = names?.[doc];
  return `document ${doc + 1}${name ? ` (${name})` : ""}`;
}

/**
 * One citation of a claim in one line, its status beside the marker: "[1] supported (0.912)",
 * "[2] misattributed — supported by document 1", "[3] not retrieved — names "3", not among the 2
 * retrieved documents". Plain text: each report escapes it for its format.
 */
export function citationLine(claim: Pick<ClaimResult, "verdict" | "evidence" | "reason">, c: ClaimCitation, documents: number, names?: ReadonlyArray<string | null>): string {
  const head = `${c.marker} ${citationStatusWord(c.status)}`;
  const cited = c.docs.map((d) => documentLabel(d, names)).join(" and ");
  const does = c.docs.length === 1 ? "does" : "do";
  switch (c.status) {
    case "supported":
      return `${head} (${c.score.toFixed(3)}) by ${cited}`;
    case "not_retrieved":
      return `${head} — names ${c.missing.map((m) => JSON.stringify(m)).join(", ")}, not among the ${documents} retrieved document${documents === 1 ? "" : "s"}`;
    case "misattributed":
      // The claim's evidence is where it is supported when the claim itself is misattributed.
      return claim.verdict === "misattributed" && claim.evidence ? `${head} — supported by ${documentLabel(claim.evidence.doc, names)}, not by ${cited}` : `${head} — ${cited} ${does} not support it, another retrieved document does`;
    case "contradicted":
      return `${head} — the retrieved documents state otherwise`;
    case "unsupported":
      // Beside a marker naming a document that was not retrieved, the claim was decided without a model.
      if (claim.reason === "citation_not_retrieved") return `${head} — not checked: the claim also cites a document that was not retrieved`;
      return `${head} (${c.score.toFixed(3)}) — ${cited} ${does} not support it, nor does any other retrieved document`;
  }
}

/** The citation lines of a claim; empty when it cites nothing. */
export function citationLines(claim: ClaimResult, documents: number, names?: ReadonlyArray<string | null>): string[] {
  return (claim.citations ?? []).map((c) => citationLine(claim, c, documents, names));
}

/** Citation errors of an answer or a set: markers naming a document that was not retrieved, and misattributed ones. */
export function citationErrors(c: Pick<CitationSummary, "invalid" | "misattributed">): number {
  return c.invalid + c.misattributed;
}

/** A citation summary in words: "citations: 3 found, 1 not retrieved, 1 misattributed". */
export function citationSummaryText(c: CitationSummary): string {
  return `citations: ${c.found} found, ${c.invalid} not retrieved, ${c.misattributed} misattributed`;
}
