import type { ContextInput } from "../../core/context.ts";
import type { CallsByEngine } from "../../core/result.ts";
import type { Evaluation } from "../../scoring/scorer.ts";
import type { EntailmentCounts } from "../../evaluation/types.ts";
import { sanitizeForTerminal } from "./io.ts";
import { citationLines, citationSummaryText } from "../report/citations.ts";
import { evidenceLocation, evidenceText, shownEvidence } from "../report/evidence.ts";
import type { MarkStyle } from "./spans.ts";
import { SPANS_SHOWN, claimMarkedLine, markedText, spanLine } from "./spans.ts";

const ID_WIDTH = 20;
const INDENT = " ".repeat(ID_WIDTH + 1);
const INDENT2 = " ".repeat(ID_WIDTH + 3);
/** Characters of an evidence sentence shown before "…". */
const EVIDENCE_WIDTH = 160;

function clip(text: string, width: number): string {
  const flat = sanitizeForTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/** The context's documents as citations may name them (id, else title, else URL; null when unnamed). */
function documentNames(context: ContextInput | undefined): Array<string | null> {
  if (context === undefined) return [];
  if (typeof context === "string") return [null];
  return context.map((d) => (typeof d === "string" ? null : (d.id ?? d.title ?? d.url ?? null)));
}

/**
 * A readable block for one scored answer: the verdict line, then each claim that is not
 * supported (with the sentence of the context that comes nearest to supporting it, or that
 * contradicts it), is unstable across the resamples (with how many of them entail and contradict
 * it) or cites a source (each citation's status under it), and the sentences that were skipped.
 * `context` names the documents the citations point at. With a span detector, the answer follows with
 * its marked words (`style`: colour, else `[[` … `]]`), each span in a line (probability, claim), the
 * model calls by engine, and each claim's marked words under it ("marked: «…» p=0.91").
 */
export function formatResultBlock(id: string | number, answer: string, result: Evaluation, context?: ContextInput, style: MarkStyle = { color: false }): string[] {
  const lines: string[] = [];
  const score = result.score === null ? "  –  " : result.score.toFixed(3);
  lines.push(`${clip(String(id), ID_WIDTH).padEnd(ID_WIDTH)} ${result.verdict.padEnd(11)} ${score}  ${clip(answer, 64)}`);
  if (result.entropy) {
    const e = result.entropy;
    const h = e.normalizedEntropy === null ? "not measured" : `${e.normalizedEntropy.toFixed(3)} normalised (${e.clusters.length} meanings in ${e.diagnostics.samples} samples)`;
    lines.push(`${INDENT}semantic entropy: ${h}${e.reliable ? "" : ` — UNRELIABLE: ${clip(e.reasons.join("; "), 80)}`}`);
  }
  const cc = result.claimConsistency;
  if (cc) {
    const share = `${Math.round(cc.unstableShare * 100)}%`;
    const measured = cc.measured < cc.claims ? ` (${cc.measured} of ${cc.claims} claims measured)` : "";
    lines.push(`${INDENT}claim stability: ${cc.unstable} of ${cc.claims} claims entailed by fewer than ${share} of ${cc.samples} resamples${measured}${cc.reliable ? "" : ` — UNRELIABLE: ${clip(cc.reasons.join("; "), 80)}`}`);
  }
  const why = causeAndRelevance(result);
  if (why) lines.push(`${INDENT}${why}`);
  if (result.citations) lines.push(`${INDENT}${citationSummaryText(result.citations)}`);
  if (result.combined) lines.push(`${INDENT}combined: ${result.combined.verdict}${result.combined.reasons.length ? ` — ${clip(result.combined.reasons.join("; "), 90)}` : ""}`);
  lines.push(...spanLines(answer, result, style));
  if (result.verdict === "unscorable") {
    lines.push(`${INDENT}reason: ${result.reason} — ${clip(result.detail, 80)}`);
    return lines;
  }
  const unstable = new Set((result.unstableClaims ?? []).map((c) => c.index));
  const names = documentNames(context);
  for (const c of result.claims) {
    const isUnstable = unstable.has(c.index);
    const cites = citationLines(c, names.length, names);
    const marked = claimMarkedLine(c.spans, result.spans);
    if (c.verdict === "supported" && !isUnstable && cites.length === 0 && marked === undefined) continue;
    if (c.verdict === "supported") {
      const but = isUnstable ? " but unstable" : marked !== undefined ? " but words marked" : "";
      lines.push(but ? `${INDENT}~ supported (${c.score.toFixed(3)})${but}: "${clip(c.text, 80)}"` : `${INDENT}✓ supported (${c.score.toFixed(3)}): "${clip(c.text, 80)}"`);
    } else {
      lines.push(`${INDENT}✗ ${c.verdict} (${c.score.toFixed(3)})${c.cause ? ` [${c.cause}]` : ""}: "${clip(c.text, 80)}"`);
      const shown = shownEvidence(c);
      if (shown) lines.push(`${INDENT2}${shown.label} [${evidenceLocation(shown.evidence)}]: "${clip(evidenceText(shown.evidence), EVIDENCE_WIDTH)}"`);
      if (c.notes.length > 0) lines.push(`${INDENT2}why: ${clip(c.notes.join("; "), 100)}`);
    }
    if (marked !== undefined) lines.push(`${INDENT2}${marked}`);
    for (const line of cites) lines.push(`${INDENT2}${clip(line, 140)}`);
    const rs = c.resampleSupport;
    if (isUnstable && rs) lines.push(`${INDENT2}unstable: entailed by ${rs.supported} of ${rs.of} resamples, contradicted by ${rs.contradicted} — the model would not say it again`);
  }
  const skipped = result.skipped.length;
  if (skipped > 0) lines.push(`${INDENT}(${skipped} sentence${skipped === 1 ? "" : "s"} not checked: ${[...new Set(result.skipped.map((s) => s.reason))].join(", ")})`);
  return lines;
}

/**
 * With a span detector: the answer with its marked words, the spans (words, offsets, probability,
 * claim; the first SPANS_SHOWN), and the model calls by engine. None without one (a result without
 * `spans` or `callsByEngine` reads as before).
 */
function spanLines(answer: string, result: Evaluation, style: MarkStyle): string[] {
  const lines: string[] = [];
  const spans = result.spans;
  const calls = result.callsByEngine ? `model calls by engine: ${byEngineText(result.callsByEngine)}` : undefined;
  if (spans === undefined) {
    // The span detector failed in refine mode: the claim verdicts stand, and "no span" is not what happened.
    if (result.spansUnmeasured) lines.push(`${INDENT}spans: not measured (${sanitizeForTerminal(result.spansUnmeasured.detail)})`);
    if (calls) lines.push(`${INDENT}${calls}`);
    return lines;
  }
  if (spans.length > 0) lines.push(`${INDENT}answer: ${markedText(answer, spans, style)}`);
  lines.push(`${INDENT}spans: ${spans.length === 0 ? "none marked" : `${spans.length} marked`}${calls ? ` · ${calls}` : ""}`);
  for (const s of spans.slice(0, SPANS_SHOWN)) lines.push(`${INDENT2}${spanLine(s)}`);
  if (spans.length > SPANS_SHOWN) lines.push(`${INDENT2}(${spans.length - SPANS_SHOWN} more spans)`);
  return lines;
}

/** Model work by engine: "claims 12, spans 3" (pairs the claim detector judged, inputs the span detector ran). */
export function byEngineText(calls: CallsByEngine): string {
  return `claims ${calls.claims}, spans ${calls.spans}`;
}

/**
 * One line on why an answer failed and how relevant its context and it are: "cause: retrieval ·
 * context relevance 0.12 (< 0.50: off-topic documents) · answer relevance 0.81"; undefined when
 * there is neither a cause nor a relevance to show.
 */
export function causeAndRelevance(result: Evaluation): string | undefined {
  const parts: string[] = [];
  if (result.verdict === "ungrounded" && result.cause) parts.push(`cause: ${result.cause}${result.causeReason ? ` (${result.causeReason})` : ""}`);
  const rel = result.relevance;
  if (rel?.context) parts.push(`context relevance ${rel.context.best.toFixed(2)}${rel.context.addressed ? "" : ` (< ${rel.thresholds.context.toFixed(2)}: off-topic documents)`}`);
  if (rel?.answer) parts.push(rel.answer.refusal ? "answer relevance 1.00 (a refusal)" : `answer relevance ${rel.answer.score.toFixed(2)}${rel.answer.onTopic ? "" : ` (< ${rel.thresholds.answer.toFixed(2)}: off-topic answer)`}`);
  if (rel?.unmeasured) parts.push(`relevance not measured (${rel.unmeasured.reason})`);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

export function tableHeader(): string[] {
  return [`${"id".padEnd(ID_WIDTH)} ${"verdict".padEnd(11)} score  answer`, "─".repeat(104)];
}

/**
 * The closing line of a table: "model calls 12, saved 3 verbatim + 5 cached" (pairs sent to the
 * backend, and decided without it), "+ 4 by triage" when the cascade decided some, and with a span
 * detector "; by engine: claims 12, spans 3".
 */
export function modelWorkLine(work: EntailmentCounts, byEngine?: CallsByEngine): string {
  return `model calls ${work.calls}, saved ${work.saved.verbatim} verbatim + ${work.saved.cache} cached${work.saved.triage > 0 ? ` + ${work.saved.triage} by triage` : ""}${byEngine ? `; by engine: ${byEngineText(byEngine)}` : ""}`;
}
