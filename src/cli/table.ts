import type { AnswerResult } from "../core/groundedness.ts";
import { sanitizeForTerminal } from "./io.ts";

function clip(text: string, width: number): string {
  const flat = sanitizeForTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/**
 * A readable block for one scored answer: the verdict line, then each claim that
 * is not supported with its nearest evidence, and the sentences that were skipped.
 */
export function formatResultBlock(id: string | number, answer: string, result: AnswerResult): string[] {
  const lines: string[] = [];
  const score = result.score === null ? "  –  " : result.score.toFixed(3);
  lines.push(`${clip(String(id), 12).padEnd(12)} ${result.verdict.padEnd(11)} ${score}  ${clip(answer, 70)}`);
  if (result.verdict === "unscorable") {
    lines.push(`${" ".repeat(13)}reason: ${result.reason} — ${clip(result.detail, 80)}`);
    return lines;
  }
  for (const c of result.claims) {
    if (c.verdict === "supported") continue;
    lines.push(`${" ".repeat(13)}✗ ${c.verdict} (${c.score.toFixed(3)}): "${clip(c.text, 80)}"`);
    const ev = c.verdict === "contradicted" && c.contradictingEvidence ? c.contradictingEvidence : c.evidence;
    if (ev) lines.push(`${" ".repeat(15)}${c.verdict === "contradicted" ? "contradicting" : "nearest"} evidence [doc ${ev.doc}, ${ev.start}–${ev.end}]: "${clip(ev.text, 90)}"`);
    if (c.notes.length > 0) lines.push(`${" ".repeat(15)}why: ${clip(c.notes.join("; "), 100)}`);
  }
  const skipped = result.skipped.length;
  if (skipped > 0) lines.push(`${" ".repeat(13)}(${skipped} sentence${skipped === 1 ? "" : "s"} not checked: ${[...new Set(result.skipped.map((s) => s.reason))].join(", ")})`);
  return lines;
}

export function tableHeader(): string[] {
  return [`${"id".padEnd(12)} ${"verdict".padEnd(11)} score  answer`, "─".repeat(100)];
}
