/**
 * npx tsx bench/spool-size.ts [--n 1000] [--seed 7]: the bytes a review spool record takes on disk, measured
 * on records the real spool writes. A monitor (createMonitor: the embedded offline backend, every
 * observation sampled, content capture on, a review spool with groundedSampleRate 1 so that grounded
 * samples are measured beside the flagged answers) observes generated RAG answers (bench/rag-workload.ts:
 * a question, 3–5 documents about one product, 2–4 claims, about one claim in four unsupported) in
 * three document sizes — as generated (3–6 sentences a document), and each document grown to about
 * 1 KiB and about 2 KiB of such sentences (retrieved chunks as RAG services commonly cut them) — then
 * the spool's segments are read back: bytes per record by kind (mean, p50, p95, max), the record's
 * texts (question, answer, documents) in UTF-8, and what the record adds to them (ids, verdicts,
 * claims with offsets and evidence, JSON). docs/deploy.md's "Disk for the spool" sizes a replica's
 * volume from these figures; docs/benchmarks.md records a run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createMonitor } from "../src/sdk/index.ts";
import { flag } from "./args.ts";
import { ragObservation } from "./rag-workload.ts";
import type { RagObservation } from "./rag-workload.ts";

const N = Number(flag("n") ?? 1000);
const SEED = Number(flag("seed") ?? 7);

/** The observation at `i`, each document grown (with the sentences of later observations' documents) to at least `docBytes`. */
function observation(i: number, docBytes: number): RagObservation {
  const o = ragObservation(SEED, i);
  if (docBytes === 0) return o;
  let k = 1;
  const context = o.context.map((doc) => {
    let text = doc;
    while (Buffer.byteLength(text) < docBytes) text += ` ${ragObservation(SEED + 1, i * 16 + k++).context.join(" ")}`;
    return text;
  });
  return { ...o, context };
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

interface Row {
  readonly shape: string;
  readonly kind: string;
  readonly records: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  readonly textMean: number;
}

async function measure(shape: string, docBytes: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "gw-spool-size-"));
  try {
    const spool = join(dir, "review");
    const monitor = createMonitor({ scoring: { backend: "offline" }, sampling: { default: 1 }, captureContent: true, review: { dir: spool, groundedSampleRate: 1, replica: "groundwatch-0" }, env: {} });
    await monitor.ready();
    for (let i = 0; i < N; i++) {
      const o = observation(i, docBytes);
      monitor.observe({ route: "/api/ask", question: o.question, context: o.context, answer: o.answer });
      if (i % 100 === 99) await monitor.flush();
    }
    await monitor.flush();
    await monitor.shutdown(30_000);
    const byKind = new Map<string, { bytes: number[]; text: number[] }>();
    for (const file of readdirSync(spool).filter((f) => f.startsWith("segment-"))) {
      for (const line of readFileSync(join(spool, file), "utf8").split("\n")) {
        if (line.trim() === "") continue;
        const r = JSON.parse(line) as { kind: string; question?: string; answer: string; documents: Array<{ text: string }> };
        const entry = byKind.get(r.kind) ?? { bytes: [], text: [] };
        entry.bytes.push(Buffer.byteLength(line) + 1); // the newline is on disk too
        entry.text.push(Buffer.byteLength(r.question ?? "") + Buffer.byteLength(r.answer) + r.documents.reduce((s, d) => s + Buffer.byteLength(d.text), 0));
        byKind.set(r.kind, entry);
      }
    }
    return [...byKind].map(([kind, { bytes, text }]) => {
      const sorted = [...bytes].sort((a, b) => a - b);
      const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
      return { shape, kind, records: bytes.length, mean: mean(bytes), p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted.at(-1) ?? 0, textMean: mean(text) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const [shape, docBytes] of [["as generated (3–6 sentences a document)", 0], ["documents of ≥ 1 KiB", 1024], ["documents of ≥ 2 KiB", 2048]] as const) rows.push(...(await measure(shape, docBytes)));

console.log(`bench/spool-size.ts — ${N} observations a shape, seed ${SEED}, offline backend, ${cpus()[0]?.model ?? "?"} × ${cpus().length}, Node ${process.version}`);
console.log("");
console.log("| documents | kind | records | bytes/record mean | p50 | p95 | max | texts (question + answer + documents) mean | record − texts |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.shape} | ${r.kind} | ${r.records} | ${Math.round(r.mean)} | ${r.p50} | ${r.p95} | ${r.max} | ${Math.round(r.textMean)} | ${Math.round(r.mean - r.textMean)} |`);
