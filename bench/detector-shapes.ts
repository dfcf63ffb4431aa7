/**
 * The detectors' shapes (issue 38), timed through onnxruntime-node as the onnx backend runs them:
 * random-weight graphs of the real architectures at full size, built once by
 * scripts/onnx_fixtures.py into GROUNDWATCH_CACHE (default ~/.cache/groundwatch/bench-models):
 *
 * - DeBERTa-v3-large sequence classifier (FactCG, MiniCheck-DeBERTa): disentangled attention with
 *   256 position buckets, 24 layers, hidden 1024, vocabulary 128,100; one graph, logits [batch, 2].
 * - flan-t5-base encoder with a token head read at position 0 (HHEM-2.1-Open is built on it): 12 layers,
 *   d_model 768, gated GELU.
 * - Flan-T5-large encoder and one decoder step from id 0 (MiniCheck-Flan-T5): 24 + 24 layers,
 *   d_model 1024, gated GELU; a pair costs the encoder pass plus the decoder's single step.
 *
 * Each is timed fp32 and int8 (dynamic quantisation, every weight MatMul; the int8 graph is what
 * `--variant auto` loads when an export has one), at 128 tokens (batch 1 and 8) and 512 (batch 1: a
 * 512-token pair already fills the matrix products, and batch 8 of the large shapes takes minutes a run), alternating
 * fp32 and int8 `GROUNDWATCH_BENCH_DETECTOR_ROUNDS` times (default 2) and keeping each one's best
 * round. Weights are random: these are costs of the shapes, not the models' quality.
 */
import { existsSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { CACHE, runFixtures } from "./models.ts";

/** One detector shape: how to build it, and the graphs a pair runs through. */
interface DetectorShape {
  readonly name: string;
  /** What the recipe reads, in words. */
  readonly reads: string;
  readonly build: readonly string[];
  /** The graphs of one pair, in order (the decoder is fed the encoder's output). */
  readonly graphs: { readonly fp32: readonly string[]; readonly int8: readonly string[] };
}

const SHAPES: DetectorShape[] = [
  {
    name: "deberta-v3-large-seqcls",
    reads: "FactCG, MiniCheck-DeBERTa: one pass, logits [batch, 2]",
    build: ["shape-deberta", "--int8"],
    graphs: { fp32: ["onnx/model.onnx"], int8: ["onnx/model_int8.onnx"] },
  },
  {
    name: "flan-t5-base-token0",
    reads: "HHEM-2.1-Open: the flan-t5-base encoder (gated GELU) HHEM is built from, logits [batch, seq, 2] read at position 0",
    build: ["shape-t5", "--preset", "flan-t5-base", "--int8"],
    graphs: { fp32: ["onnx/model.onnx"], int8: ["onnx/model_quantized.onnx"] },
  },
  {
    name: "flan-t5-large-seq2seq",
    reads: "MiniCheck-Flan-T5: encoder pass + one decoder step from id 0",
    build: ["shape-t5", "--preset", "flan-t5-large", "--int8"],
    graphs: { fp32: ["onnx/encoder_model.onnx", "onnx/decoder_model.onnx"], int8: ["onnx/encoder_model_quantized.onnx", "onnx/decoder_model_quantized.onnx"] },
  },
];

const CELLS: Array<{ seq: number; batch: number }> = [
  { seq: 128, batch: 1 },
  { seq: 128, batch: 8 },
  { seq: 512, batch: 1 },
];

const ROUNDS = Number(process.env.GROUNDWATCH_BENCH_DETECTOR_ROUNDS ?? 2);

/** Builds a shape's graphs into CACHE/<name> unless every graph is there. */
function buildDetectorShape(shape: DetectorShape): string {
  const dir = join(CACHE, shape.name);
  const all = [...shape.graphs.fp32, ...shape.graphs.int8];
  if (!all.every((g) => existsSync(join(dir, g)))) {
    const [what, ...rest] = shape.build;
    runFixtures([what as string, dir, ...rest], dir);
  }
  return dir;
}

/** Runs `fn` at least 3 times and at least `minMs` after 1 warm-up run; returns runs per second. */
async function rate(fn: () => Promise<unknown>, minMs: number): Promise<number> {
  await fn();
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < minMs || runs < 3) {
    await fn();
    runs++;
  }
  return (runs * 1000) / (performance.now() - start);
}

type Feeds = Record<string, ort.Tensor>;

function tokens(batch: number, seq: number, vocab: number): Feeds {
  const n = batch * seq;
  return {
    input_ids: new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(5 + ((i * 31) % (vocab - 10)))), [batch, seq]),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(n).fill(1n), [batch, seq]),
  };
}

/** One pair batch through a shape's graphs: a single pass, or encoder then one decoder step. */
function pass(sessions: readonly ort.InferenceSession[], batch: number, seq: number): () => Promise<unknown> {
  const feeds = tokens(batch, seq, 32000);
  const [first, decoder] = sessions;
  if (!first) throw new Error("no session");
  if (!decoder) return () => first.run(feeds);
  const start = new ort.Tensor("int64", new BigInt64Array(batch), [batch, 1]);
  return async () => {
    const encoded = await first.run(feeds);
    const hidden = encoded.last_hidden_state ?? Object.values(encoded)[0];
    if (!hidden) throw new Error("the encoder returned no output");
    return decoder.run({ input_ids: start, encoder_attention_mask: feeds.attention_mask as ort.Tensor, encoder_hidden_states: hidden });
  };
}

async function open(dir: string, graphs: readonly string[], threads: number): Promise<ort.InferenceSession[]> {
  return Promise.all(graphs.map((g) => ort.InferenceSession.create(join(dir, g), { executionProviders: ["cpu"], graphOptimizationLevel: "all", intraOpNumThreads: threads, interOpNumThreads: 1 })));
}

/** Times every detector shape and prints one markdown table. */
export async function benchDetectorShapes(threads: number): Promise<void> {
  const rows: string[] = [];
  for (const shape of SHAPES) {
    const dir = buildDetectorShape(shape);
    for (const cell of CELLS) {
      // One precision's sessions at a time: flan-t5-large's fp32 pair alone is 3 GB.
      let fp32 = 0;
      let int8 = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (const precision of ["fp32", "int8"] as const) {
          const sessions = await open(dir, shape.graphs[precision], threads);
          const minMs = cell.seq >= 512 ? 4000 : 2000;
          const pairs = (await rate(pass(sessions, cell.batch, cell.seq), minMs)) * cell.batch;
          if (precision === "fp32") fp32 = Math.max(fp32, pairs);
          else int8 = Math.max(int8, pairs);
          await Promise.all(sessions.map((s) => s.release()));
        }
      }
      rows.push(`| ${shape.name} | ${cell.seq} | ${cell.batch} | ${fp32.toFixed(2)} | ${(1000 / fp32).toFixed(0)} | ${int8.toFixed(2)} | ${(1000 / int8).toFixed(0)} | ${(int8 / fp32).toFixed(2)}× |`);
      console.error(`${shape.name} seq ${cell.seq} batch ${cell.batch}: fp32 ${fp32.toFixed(2)}, int8 ${int8.toFixed(2)} pairs/s`);
    }
  }
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, onnxruntime-node ${ort.env.versions.common}, intra-op threads ${threads}`);
  console.log(`detector shapes (random weights, real architectures; fp32 and int8 alternated ${ROUNDS} times per cell, best round of each):`);
  console.log("");
  for (const s of SHAPES) console.log(`- ${s.name}: ${s.reads}`);
  console.log("");
  console.log("| shape | seq | batch | fp32 pairs/s | fp32 ms/pair | int8 pairs/s | int8 ms/pair | int8 ÷ fp32 |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
}
