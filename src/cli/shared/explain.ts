import type { EntropyResult } from "../../core/entropy/semantic-entropy.ts";
import { sanitizeForTerminal } from "./io.ts";

function clip(text: string, width: number): string {
  const flat = sanitizeForTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/** A readable audit trail of one entropy measurement: what was sampled, how it clustered, and why the verdict. */
export function explainEntropy(id: string | number, r: EntropyResult, threshold: number): string {
  const rule = "─".repeat(78);
  const lines = [rule, `${clip(String(id), 30)} — ${clip(r.question, 60)}`];
  lines.push(`samples ${r.samples.length}, meanings ${r.clusters.length}, estimator ${r.estimator}, backend ${r.backend.name} (${r.backend.tier})`);
  if (r.entropy === null || r.normalizedEntropy === null) {
    lines.push("semantic entropy: NOT MEASURED");
  } else {
    lines.push(`semantic entropy ${r.entropy.toFixed(4)} nats, normalised ${r.normalizedEntropy.toFixed(3)}; string entropy ${(r.naiveEntropy ?? 0).toFixed(4)} (phrasing alone: ${(r.lexicalEntropy ?? 0).toFixed(4)})`);
    lines.push(`agreement with the largest meaning ${(100 * (r.agreement ?? 0)).toFixed(0)}%; Chao1 ${r.diagnostics.chao1.toFixed(1)} meanings; Miller–Madow ${r.diagnostics.millerMadow.toFixed(4)} nats`);
    lines.push(`entailment calls ${r.entailmentCalls} of a worst case ${r.worstCaseCalls}`);
  }
  if (r.clusters.length > 0) lines.push("meanings:");
  for (const c of [...r.clusters].sort((a, b) => b.mass - a.mass)) {
    const bar = "#".repeat(Math.round(c.mass * 20)).padEnd(20, ".");
    lines.push(`  ${bar} ${c.mass.toFixed(3)}  n=${c.members.length}  ${c.refusal ? "(declined) " : ""}${clip(c.representative, 50)}`);
  }
  const answers = r.clusters.filter((c) => !c.refusal);
  if (answers.length > 1) {
    lines.push("disagreeing answers:");
    for (const c of answers.slice(0, 5)) lines.push(`  - ${clip(r.samples[c.members[0] ?? 0] ?? "", 70)}`);
  }
  let verdict: string;
  if (!r.reliable) verdict = `UNRELIABLE — not evidence of confidence: ${r.reasons.join("; ")}`;
  else if (r.abstained) verdict = `ABSTAINED — ${r.reasons.join("; ")}`;
  else if ((r.normalizedEntropy ?? 1) >= threshold) verdict = `UNCERTAIN — normalised entropy ${(r.normalizedEntropy ?? 1).toFixed(3)} ≥ ${threshold}: the samples disagree in meaning`;
  else verdict = `CONSISTENT — normalised entropy ${(r.normalizedEntropy ?? 0).toFixed(3)} < ${threshold}: the samples agree in meaning`;
  lines.push(`verdict: ${clip(verdict, 300)}`);
  return lines.join("\n") + "\n";
}
