import type { SpoolClaim, SpoolDocument, SpoolRecord, SpoolSpan } from "./record.ts";
import { isPlainObject } from "../core/plain-object.ts";

/**
 * A spool record as a review view may rely on it. The spool reader checks a record's outline only,
 * so the review session passes every record through `viewableRecord` before the terminal or the page
 * sees it.
 */

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/**
 * A spool record as the view may rely on it: the reader checks a record's outline only, so claims
 * and documents that are not objects are dropped, a claim without a numeric index takes its position,
 * and text fields that are not strings become absent (question) or empty (answer, document text).
 */
export function viewableRecord(r: SpoolRecord): SpoolRecord {
  const claims = (r.claims as readonly unknown[]).filter(isPlainObject).map((c, i): SpoolClaim => {
    const { evidence, ...claim } = c as unknown as SpoolClaim;
    return { ...claim, index: finite(claim.index) ? claim.index : i, ...(isPlainObject(evidence) ? { evidence } : {}) };
  });
  const spans = Array.isArray(r.spans) ? (r.spans as readonly unknown[]).map(viewableSpan) : undefined;
  const documents = (r.documents as readonly unknown[]).filter(isPlainObject).map((d) => ({ ...(d as unknown as SpoolDocument), text: typeof d.text === "string" ? d.text : "" }));
  const { question, spans: _spans, ...rest } = r;
  return { ...rest, ...(typeof question === "string" ? { question } : {}), answer: typeof r.answer === "string" ? r.answer : "", claims, documents, ...(spans ? { spans } : {}) };
}

/**
 * A span as the view may rely on it: every entry keeps its place (claims' `spans` and labels index
 * them), so one that is not an object, or has offsets that are not numbers, becomes an empty span at 0.
 */
function viewableSpan(s: unknown): SpoolSpan {
  if (!isPlainObject(s) || !finite(s.start) || !finite(s.end)) return { start: 0, end: 0, probability: 0, claim: null, text: "" };
  return {
    start: s.start,
    end: s.end,
    probability: finite(s.probability) ? s.probability : 0,
    claim: finite(s.claim) ? s.claim : null,
    text: typeof s.text === "string" ? s.text : "",
  };
}
