/**
 * Semantic entropy cost: entailment calls made against the brute-force N(N − 1), and
 * time per sample set, at N = 5, 10 and 20, on a generated mix of confident sets
 * (paraphrases of one answer) and confabulating sets (different answers), with the
 * offline backend and the onnx backend.
 *
 *   npm run bench:entropy
 *
 * The onnx backend runs a random-weight graph with MiniLM-L6-H384's shape (built by
 * `npm run bench:nli` into the bench cache) behind the WordPiece test tokenizer: its
 * judgements are noise, so its rows measure cost, not clustering quality.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, homedir } from "node:os";
import { join } from "node:path";
import { semanticEntropy } from "../src/core/entropy/semantic-entropy.ts";
import { auroc } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import type { EntailmentBackend, NliResult } from "../src/core/backend.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { createOnnxBackend } from "../src/nli/onnx/backend.ts";

const ROOT = join(import.meta.dirname, "..");
const CACHE = join(process.env.GROUNDWATCH_CACHE ?? join(homedir(), ".cache", "groundwatch"), "bench-models");
const SETS_PER_KIND = 20;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const TOPICS = [
  { q: "What is the capital of Australia?", a: "Canberra", wrong: ["Sydney", "Melbourne", "Perth", "Brisbane", "Adelaide", "Hobart", "Darwin"] },
  { q: "Who wrote the novel Middlemarch?", a: "George Eliot", wrong: ["Charlotte Bronte", "Jane Austen", "Thomas Hardy", "Charles Dickens", "Elizabeth Gaskell", "Anne Bronte"] },
  { q: "In what year did the Berlin Wall fall?", a: "1989", wrong: ["1987", "1991", "1985", "1990", "1979", "1993", "1961"] },
];
const PARAPHRASE = ["{a}.", "It is {a}.", "The answer is {a}.", "I believe it is {a}.", "{a}, as far as I know.", "That would be {a}.", "Definitely {a}."];
const GUESS = ["{a}.", "It is {a}.", "Probably {a}.", "I think {a}.", "Maybe {a}."];

function makeSets(n: number): Array<{ question: string; samples: string[]; confabulating: boolean }> {
  const r = rng(n * 7919);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const sets: Array<{ question: string; samples: string[]; confabulating: boolean }> = [];
  for (let k = 0; k < SETS_PER_KIND; k++) {
    const t = pick(TOPICS);
    sets.push({ question: t.q, confabulating: false, samples: Array.from({ length: n }, () => pick(PARAPHRASE).replace("{a}", t.a)) });
    sets.push({ question: t.q, confabulating: true, samples: Array.from({ length: n }, () => pick(GUESS).replace("{a}", r() < 0.3 ? t.a : pick(t.wrong))) });
  }
  return sets;
}

function onnxModelDir(): string | undefined {
  const graph = join(CACHE, "minilm-l6-h384", "onnx", "model.onnx");
  if (!existsSync(graph)) return undefined;
  const dir = join(CACHE, "entropy-minilm");
  if (!existsSync(join(dir, "onnx", "model.onnx"))) {
    mkdirSync(join(dir, "onnx"), { recursive: true });
    const fixture = join(ROOT, "test", "fixtures", "models", "bert-wordpiece");
    cpSync(join(fixture, "config.json"), join(dir, "config.json"));
    cpSync(join(fixture, "tokenizer.json"), join(dir, "tokenizer.json"));
    writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ model_max_length: 128 }));
    cpSync(graph, join(dir, "onnx", "model.onnx"));
  }
  return dir;
}

async function measure(name: string, backend: EntailmentBackend): Promise<string[]> {
  const rows: string[] = [];
  for (const n of [5, 10, 20]) {
    const sets = makeSets(n);
    let calls = 0;
    let ms = 0;
    const scores: number[] = [];
    const labels: number[] = [];
    for (const set of sets) {
      const t0 = performance.now();
      const r = await semanticEntropy({ question: set.question, samples: set.samples, backend, options: { cache: new Map<string, NliResult>() } });
      ms += performance.now() - t0;
      calls += r.entailmentCalls;
      scores.push(r.normalizedEntropy ?? 1);
      labels.push(set.confabulating ? 1 : 0);
    }
    const worst = n * (n - 1);
    const meanCalls = calls / sets.length;
    rows.push(`| ${name} | ${n} | ${meanCalls.toFixed(1)} | ${worst} | ${((100 * meanCalls) / worst).toFixed(0)}% | ${(ms / sets.length).toFixed(1)} | ${auroc(scores, labels).toFixed(3)} |`);
  }
  return rows;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const offline = createOfflineBackend({ analyzer: createTextAnalyzer() });
  rows.push(...(await measure("offline", offline)));
  await offline.close();
  const dir = onnxModelDir();
  if (dir) {
    const onnx = await createOnnxBackend({ dir, workers: 1 });
    rows.push(...(await measure("onnx (MiniLM-L6 shape, random weights)", onnx)));
    await onnx.close();
  } else {
    console.error("onnx rows skipped: run `npm run bench:nli` first to build the MiniLM-shaped graph");
  }
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; ${SETS_PER_KIND} confident + ${SETS_PER_KIND} confabulating sets per N`);
  console.log("");
  console.log("| backend | N | entailment calls per set (mean) | N(N−1) | share | ms per set | AUROC confabulating vs confident |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(rows.join("\n"));
}

await main();
