/**
 * Inference throughput of BERT-shaped NLI cross-encoders through onnxruntime-node,
 * against the machine's own matmul peak measured in the same run, and of their dynamically
 * quantised int8 twins beside them, with the agreement of int8 and fp32 predicted labels.
 *
 *   npm run bench:nli
 *
 * Graphs with the shapes of MiniLM-L6-H384 and of deberta-v3-xsmall's encoder (random
 * weights; standard attention in place of DeBERTa's disentangled attention, so the
 * FLOPs are those of a BERT encoder of that size) are built once by
 * scripts/onnx_fixtures.py into GROUNDWATCH_CACHE (default ~/.cache/groundwatch/bench-models),
 * with onnx/model_int8.onnx: every weight MatMul as DynamicQuantizeLinear → MatMulInteger
 * (int8 weights, one scale per tensor) → Cast → Mul, as onnxruntime's quantize_dynamic writes it.
 * fp32 and int8 are timed cell by cell, alternately, GROUNDWATCH_BENCH_ROUNDS times (default 3) for
 * GROUNDWATCH_BENCH_ROUND_MS each (default 1000), and each one's best round is reported.
 * Then the detectors' shapes (bench/detector-shapes.ts: DeBERTa-v3-large, T5-base encoder, Flan-T5-large
 * encoder + one decoder step), fp32 and int8 at 128 and 512 tokens.
 * GROUNDWATCH_BENCH_PARTS: "encoders", "detectors" or both (default).
 */
import { cpus } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { cpuIsaOrder, readCpuFeatures } from "../src/nli/onnx/variants.ts";
import type { Shape } from "./models.ts";
import { benchDetectorShapes } from "./detector-shapes.ts";
import { build, buildShape, CACHE, SHAPES } from "./models.ts";

const SEQS = [128, 256];
const BATCHES = [1, 8, 32];
const THREADS = Number(process.env.GROUNDWATCH_BENCH_THREADS ?? cpus().length);
/** Rounds per encoder cell (fp32 then int8 each round; the best round of each is reported), and each round's length. */
const ROUNDS = Number(process.env.GROUNDWATCH_BENCH_ROUNDS ?? 3);
const ROUND_MS = Number(process.env.GROUNDWATCH_BENCH_ROUND_MS ?? 1000);
/** GEMMs timed for the peak: large squares, and the encoder's own shapes at 32 × 128 rows. */
const MATMULS: Array<[number, number, number]> = [
  [1024, 1024, 1024],
  [2048, 2048, 2048],
  [4096, 384, 1536],
  [4096, 1536, 384],
];
/** Multiply-adds ×2 of one encoder pass over a sequence of length s. */
function flopsPerPair(shape: Shape, s: number): number {
  const h = shape.hidden;
  const perLayer = 2 * s * h * 3 * h + 2 * s * h * h + 2 * 2 * s * s * h + 2 * 2 * s * h * shape.intermediate;
  return shape.layers * perLayer + 2 * h * h + 2 * h * 3;
}

/** Runs fn until at least minMs has passed (and at least minRuns times); returns runs per second. */
async function rate(fn: () => Promise<unknown>, minMs = 2000, minRuns = 3): Promise<number> {
  await fn();
  await fn();
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < minMs || runs < minRuns) {
    await fn();
    runs++;
  }
  return (runs * 1000) / (performance.now() - start);
}

async function session(path: string): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(path, { executionProviders: ["cpu"], graphOptimizationLevel: "all", intraOpNumThreads: THREADS, interOpNumThreads: 1 });
}

const PARTS = (process.env.GROUNDWATCH_BENCH_PARTS ?? "encoders,detectors").split(",");

async function main(): Promise<void> {
  if (PARTS.includes("encoders")) await encoders();
  if (PARTS.includes("detectors")) {
    console.log("");
    await benchDetectorShapes(THREADS);
  }
}

async function encoders(): Promise<void> {
  for (const [m, k, n] of MATMULS) build(["matmul", join(CACHE, `matmul-${m}x${k}x${n}`), "--m", String(m), "--k", String(k), "--n", String(n)], join(CACHE, `matmul-${m}x${k}x${n}`));
  for (const s of SHAPES) buildShape(s);
  // The peak is the best rate any of these GEMMs reaches: the ceiling the encoder's FLOPs run into.
  const gemmRates: string[] = [];
  let peak = 0;
  for (const [m, k, n] of MATMULS) {
    const mm = await session(join(CACHE, `matmul-${m}x${k}x${n}`, "matmul.onnx"));
    const a = new ort.Tensor("float32", Float32Array.from({ length: m * k }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5), [m, k]);
    const r = (await rate(() => mm.run({ a }))) * 2 * m * k * n;
    gemmRates.push(`${m}×${k}×${n}: ${(r / 1e9).toFixed(1)}`);
    peak = Math.max(peak, r);
    await mm.release();
  }
  const cpu = readCpuFeatures();
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, onnxruntime-node ${ort.env.versions.common}, intra-op threads ${THREADS}`);
  console.log(`int8 instruction sets (from /proc/cpuinfo, best first): ${cpuIsaOrder(cpu).join(", ") || "none"}`);
  console.log(`float32 GEMM through onnxruntime, GFLOP/s: ${gemmRates.join("; ")}; peak taken as ${(peak / 1e9).toFixed(1)}`);
  console.log("");
  const fp32Rows: string[] = [];
  const int8Rows: string[] = [];
  const agreementRows: string[] = [];
  for (const shape of SHAPES) {
    const fp32 = await session(join(CACHE, shape.name, "onnx", "model.onnx"));
    const int8 = await session(join(CACHE, shape.name, "onnx", "model_int8.onnx"));
    for (const seq of SEQS) {
      for (const batch of BATCHES) {
        const feeds = syntheticBatch(batch, seq);
        // fp32 then int8, back to back, ROUNDS times, keeping each one's best round: a burst of
        // load from another process on a shared machine lowers a round, never raises one.
        let fp32Pairs = 0;
        let int8Pairs = 0;
        for (let round = 0; round < ROUNDS; round++) {
          fp32Pairs = Math.max(fp32Pairs, (await rate(() => fp32.run(feeds), ROUND_MS)) * batch);
          int8Pairs = Math.max(int8Pairs, (await rate(() => int8.run(feeds), ROUND_MS)) * batch);
        }
        const flops = flopsPerPair(shape, seq);
        fp32Rows.push(`| ${shape.name} | ${seq} | ${batch} | ${fp32Pairs.toFixed(1)} | ${(flops / 1e9).toFixed(2)} | ${((fp32Pairs * flops) / 1e9).toFixed(1)} | ${((100 * fp32Pairs * flops) / peak).toFixed(0)}% |`);
        int8Rows.push(`| ${shape.name} | ${seq} | ${batch} | ${fp32Pairs.toFixed(1)} | ${int8Pairs.toFixed(1)} | ${(int8Pairs / fp32Pairs).toFixed(2)}× |`);
      }
    }
    const a = await agreement(fp32, int8, shape);
    agreementRows.push(`| ${shape.name} | ${a.pairs} | ${a.agree} (${((100 * a.agree) / a.pairs).toFixed(1)}%) | ${a.meanProbDiff.toFixed(4)} | ${a.maxProbDiff.toFixed(4)} | ${a.meanGap.toFixed(3)} |`);
    await fp32.release();
    await int8.release();
  }
  console.log(`fp32 (best of ${ROUNDS} rounds of ${ROUND_MS} ms per cell):`);
  console.log("");
  console.log("| model shape | seq | batch | pairs/s | GFLOP per pair | achieved GFLOP/s | share of matmul peak |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of fp32Rows) console.log(r);
  console.log("");
  console.log(`int8 (dynamic quantisation, same inputs; fp32 and int8 alternated ${ROUNDS} times per cell, best round of each):`);
  console.log("");
  console.log("| model shape | seq | batch | fp32 pairs/s | int8 pairs/s | int8 ÷ fp32 |");
  console.log("|---|---|---|---|---|---|");
  for (const r of int8Rows) console.log(r);
  console.log("");
  console.log(`label agreement, int8 against fp32, on ${AGREEMENT_PAIRS} synthetic pairs per shape (lengths ${AGREEMENT_MIN_LEN}–${AGREEMENT_MAX_LEN} tokens, padded batches of 32):`);
  console.log("");
  console.log("| model shape | pairs | same predicted label | mean abs. Δ probability | max abs. Δ probability | mean fp32 top-two logit gap |");
  console.log("|---|---|---|---|---|---|");
  for (const r of agreementRows) console.log(r);
}

type Feeds = Record<string, ort.Tensor>;

/** A full batch of `batch` rows of `seq` tokens, every position attended (the throughput case). */
function syntheticBatch(batch: number, seq: number): Feeds {
  const n = batch * seq;
  const ids = new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(100 + ((i * 31) % 20000))), [batch, seq]);
  const mask = new ort.Tensor("int64", new BigInt64Array(n).fill(1n), [batch, seq]);
  const types = new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => (i % seq < seq / 2 ? 0n : 1n)), [batch, seq]);
  return { input_ids: ids, attention_mask: mask, token_type_ids: types };
}

const AGREEMENT_PAIRS = 512;
const AGREEMENT_MIN_LEN = 16;
const AGREEMENT_MAX_LEN = 128;

/** A deterministic pseudo-random stream (a 32-bit LCG): the same pairs every run. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function softmax(row: Float32Array): number[] {
  const max = Math.max(...row);
  const e = Array.from(row, (x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/**
 * Runs the same padded batches through both graphs and compares their predicted labels and
 * probabilities: synthetic premise/hypothesis pairs of random tokens, random lengths.
 */
async function agreement(fp32: ort.InferenceSession, int8: ort.InferenceSession, shape: Shape): Promise<{ pairs: number; agree: number; meanProbDiff: number; maxProbDiff: number; meanGap: number }> {
  const random = lcg(0x5eed + shape.layers);
  let agree = 0;
  let sumDiff = 0;
  let maxDiff = 0;
  let sumGap = 0;
  let count = 0;
  for (let start = 0; start < AGREEMENT_PAIRS; start += 32) {
    const batch = Math.min(32, AGREEMENT_PAIRS - start);
    const lengths = Array.from({ length: batch }, () => AGREEMENT_MIN_LEN + Math.floor(random() * (AGREEMENT_MAX_LEN - AGREEMENT_MIN_LEN + 1)));
    const width = Math.max(...lengths);
    const ids = new BigInt64Array(batch * width);
    const mask = new BigInt64Array(batch * width);
    const types = new BigInt64Array(batch * width);
    lengths.forEach((len, r) => {
      const split = Math.max(2, Math.floor(len * (0.4 + 0.4 * random())));
      for (let c = 0; c < len; c++) {
        ids[r * width + c] = BigInt(c === 0 ? 101 : 1000 + Math.floor(random() * (shape.vocab - 1000)));
        mask[r * width + c] = 1n;
        types[r * width + c] = c < split ? 0n : 1n;
      }
    });
    const feeds: Feeds = { input_ids: new ort.Tensor("int64", ids, [batch, width]), attention_mask: new ort.Tensor("int64", mask, [batch, width]), token_type_ids: new ort.Tensor("int64", types, [batch, width]) };
    const a = (await fp32.run(feeds)).logits?.data as Float32Array;
    const b = (await int8.run(feeds)).logits?.data as Float32Array;
    for (let r = 0; r < batch; r++) {
      const la = a.subarray(r * 3, r * 3 + 3);
      const lb = b.subarray(r * 3, r * 3 + 3);
      const pa = softmax(la);
      const pb = softmax(lb);
      const argmax = (p: number[]): number => p.indexOf(Math.max(...p));
      if (argmax(pa) === argmax(pb)) agree++;
      for (let k = 0; k < 3; k++) {
        const d = Math.abs((pa[k] ?? 0) - (pb[k] ?? 0));
        sumDiff += d;
        maxDiff = Math.max(maxDiff, d);
      }
      const sorted = Array.from(la).sort((x, y) => y - x);
      sumGap += (sorted[0] ?? 0) - (sorted[1] ?? 0);
      count++;
    }
  }
  return { pairs: count, agree, meanProbDiff: sumDiff / (3 * count), maxProbDiff: maxDiff, meanGap: sumGap / count };
}

await main();
