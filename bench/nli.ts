/**
 * Inference throughput of BERT-shaped NLI cross-encoders through onnxruntime-node,
 * against the machine's own matmul peak measured in the same run.
 *
 *   npm run bench:nli
 *
 * Graphs with the shapes of MiniLM-L6-H384 and of deberta-v3-xsmall's encoder (random
 * weights; standard attention in place of DeBERTa's disentangled attention, so the
 * FLOPs are those of a BERT encoder of that size) are built once by
 * scripts/onnx_fixtures.py into GROUNDWATCH_CACHE (default ~/.cache/groundwatch/bench-models).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, homedir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";

interface Shape {
  readonly name: string;
  readonly layers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly intermediate: number;
  readonly vocab: number;
}

const SHAPES: Shape[] = [
  { name: "minilm-l6-h384", layers: 6, hidden: 384, heads: 12, intermediate: 1536, vocab: 30522 },
  { name: "deberta-v3-xsmall-encoder", layers: 12, hidden: 384, heads: 6, intermediate: 1536, vocab: 128100 },
];
const SEQS = [128, 256];
const BATCHES = [1, 8, 32];
const THREADS = Number(process.env.GROUNDWATCH_BENCH_THREADS ?? cpus().length);
/** GEMMs timed for the peak: large squares, and the encoder's own shapes at 32 × 128 rows. */
const MATMULS: Array<[number, number, number]> = [
  [1024, 1024, 1024],
  [2048, 2048, 2048],
  [4096, 384, 1536],
  [4096, 1536, 384],
];
const ROOT = join(import.meta.dirname, "..");
const CACHE = join(process.env.GROUNDWATCH_CACHE ?? join(homedir(), ".cache", "groundwatch"), "bench-models");

function build(args: string[], out: string): void {
  if (existsSync(out)) return;
  try {
    execFileSync("/usr/bin/python3", [join(ROOT, "scripts", "onnx_fixtures.py"), ...args], { stdio: "inherit" });
  } catch (error) {
    throw new Error(`building ${out} failed (needs Debian's python3-onnx and python3-numpy: apt-get install python3-onnx): ${(error as Error).message}`);
  }
}

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

async function main(): Promise<void> {
  for (const [m, k, n] of MATMULS) build(["matmul", join(CACHE, `matmul-${m}x${k}x${n}`), "--m", String(m), "--k", String(k), "--n", String(n)], join(CACHE, `matmul-${m}x${k}x${n}`));
  for (const s of SHAPES) {
    const dir = join(CACHE, s.name);
    build(["shape", dir, "--layers", String(s.layers), "--hidden", String(s.hidden), "--heads", String(s.heads), "--intermediate", String(s.intermediate), "--vocab", String(s.vocab)], dir);
  }
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
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, onnxruntime-node ${ort.env.versions.common}, intra-op threads ${THREADS}`);
  console.log(`float32 GEMM through onnxruntime, GFLOP/s: ${gemmRates.join("; ")}; peak taken as ${(peak / 1e9).toFixed(1)}`);
  console.log("");
  console.log("| model shape | seq | batch | pairs/s | GFLOP per pair | achieved GFLOP/s | share of matmul peak |");
  console.log("|---|---|---|---|---|---|---|");
  for (const shape of SHAPES) {
    const sess = await session(join(CACHE, shape.name, "onnx", "model.onnx"));
    for (const seq of SEQS) {
      for (const batch of BATCHES) {
        const n = batch * seq;
        const ids = new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(100 + ((i * 31) % 20000))), [batch, seq]);
        const mask = new ort.Tensor("int64", new BigInt64Array(n).fill(1n), [batch, seq]);
        const types = new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => (i % seq < seq / 2 ? 0n : 1n)), [batch, seq]);
        const runsPerSec = await rate(() => sess.run({ input_ids: ids, attention_mask: mask, token_type_ids: types }));
        const pairs = runsPerSec * batch;
        const flops = flopsPerPair(shape, seq);
        console.log(`| ${shape.name} | ${seq} | ${batch} | ${pairs.toFixed(1)} | ${(flops / 1e9).toFixed(2)} | ${((pairs * flops) / 1e9).toFixed(1)} | ${((100 * pairs * flops) / peak).toFixed(0)}% |`);
      }
    }
    await sess.release();
  }
}

await main();
