/**
 * Cost of the citation pass, and that rows without citations score as before.
 *
 *   npx tsx bench/citations.ts
 *
 * 1. Every dev set (../shared/data/dev): how many claims carry a citation marker, and the time
 *    the citation pass (find → strip → resolve → attach) takes per answer on them.
 * 2. Generated cited answers (3, 10 and 30 sentences, one marker each, a tenth citing a document
 *    that was not retrieved) against 10 documents: the citation pass alone per answer, and the
 *    whole offline scoring per answer with the markers and with the same answers stripped of them
 *    (the difference is the cited documents' windows checked besides the preselected ones).
 */
import { cpus } from "node:os";
import { attachCitations, findCitations, resolveCitations, stripCitations } from "../src/core/citations.ts";
import type { ContextDocument } from "../src/core/citations.ts";
import { createGroundednessScorer } from "../src/core/groundedness.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import { loadDevSets } from "../scripts/devsets.ts";

function citationPass(answer: string, documents: readonly ContextDocument[]): number {
  const markers = findCitations(answer, true);
  const stripped = stripCitations(answer, markers);
  const resolved = resolveCitations(markers, documents);
  // Attach to sentence-sized spans, as the scorer attaches to claims.
  const spans = [...stripped.text.matchAll(/[^.]+\./g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  return attachCitations(resolved.map((c) => c.marker.start), spans).length;
}

function timePerCall(fn: () => unknown, rounds: number): number {
  for (let i = 0; i < Math.min(200, rounds); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) fn();
  return ((performance.now() - t0) / rounds) * 1000;
}

const TOPICS = ["refunds", "shipping", "warranty", "payment", "membership", "returns", "exchanges", "gift cards", "repairs", "pickup"];

function documentsOf(): ContextDocument[] {
  return TOPICS.map((t, i) => ({
    id: `doc-${i + 1}`,
    title: `${t} policy`,
    text: `Our ${t} policy covers orders placed online. ${t[0]?.toUpperCase()}${t.slice(1)} requests are handled within ${i + 2} business days. Customers must keep the receipt for ${t}. Staff at every store can answer questions about ${t}.`,
  }));
}

function answerOf(sentences: number): string {
  const parts: string[] = [];
  for (let k = 0; k < sentences; k++) {
    const i = k % TOPICS.length;
    const cite = k % 10 === 9 ? 42 : i + 1;
    parts.push(`${TOPICS[i]?.[0]?.toUpperCase()}${TOPICS[i]?.slice(1)} requests are handled within ${i + 2} business days [${cite}].`);
  }
  return parts.join(" ");
}

async function main(): Promise<void> {
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}`);
  console.log("");
  console.log("| dev set | rows | claims with a marker | citation pass per answer (µs) |");
  console.log("|---|---|---|---|");
  for (const [name, rows] of loadDevSets()) {
    const withMarkers = rows.filter((r) => findCitations(r.claim, false).length > 0).length;
    let k = 0;
    const us = timePerCall(() => citationPass(rows[k++ % rows.length]?.claim ?? "", []), 20_000);
    console.log(`| ${name} | ${rows.length} | ${withMarkers} | ${us.toFixed(1)} |`);
  }
  console.log("");
  const analyzer = createTextAnalyzer();
  const backend = createOfflineBackend({ analyzer });
  const scorer = createGroundednessScorer(backend, analyzer, { ...DEFAULT_SETTINGS, threshold: backend.recommendedThreshold ?? 0.5 });
  const documents = documentsOf();
  console.log("| cited answer | markers | citation pass per answer (µs) | scoring with markers (ms) | scoring without (ms) | entailment calls with / without |");
  console.log("|---|---|---|---|---|---|");
  for (const n of [3, 10, 30]) {
    const answer = answerOf(n);
    const plain = stripCitations(answer, findCitations(answer)).text;
    const pass = timePerCall(() => citationPass(answer, documents), 5_000);
    const time = async (a: string): Promise<{ ms: number; calls: number }> => {
      let calls = 0;
      for (let i = 0; i < 20; i++) calls = (await scorer.score({ answer: a, context: documents })).entailmentCalls;
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) await scorer.score({ answer: a, context: documents });
      return { ms: (performance.now() - t0) / 100, calls };
    };
    const cited = await time(answer);
    const bare = await time(plain);
    console.log(`| ${n} sentences | ${findCitations(answer).length} | ${pass.toFixed(1)} | ${cited.ms.toFixed(2)} | ${bare.ms.toFixed(2)} | ${cited.calls} / ${bare.calls} |`);
  }
  await backend.close();
}

await main();
