/**
 * What a span detector costs beside claim checking (issue 40), in one run:
 *
 *   npm run bench:spans
 *
 * 1. Model work per answer. Each set is scored three times, by the scorer as `groundwatch score`
 *    builds it: claim checking with an onnx claim detector (`--backend onnx --model`), the span
 *    detector alone (`--backend spans --span-model`) and refine (both). Per answer: the claim pairs
 *    sent to the claim detector (`entailmentCalls`, = `callsByEngine.claims`) and the inputs the span
 *    detector ran (`callsByEngine.spans`), mean and p95, and the pairs saved without a call
 *    (`callsSaved`: verbatim windows, the judgement cache). The counts do not depend on the weights,
 *    so the committed random-weight fixtures are used (test/fixtures/models/bert-wordpiece and
 *    spans/lettucedetect-modernbert). Sets: the bundled examples/answers.jsonl, labelled.jsonl,
 *    eval-set.jsonl and traffic.jsonl (one or two documents a row; traffic's resamples are left out,
 *    so the pairs are claim checking's alone), bench/rag-workload.ts (seed 29: a question, 3–5
 *    documents of 3–6 sentences, 2–4 claims; the model-tier bench's workload), and the HaluEval QA
 *    dev set when GROUNDWATCH_DEV_DIR (default ../shared/data/dev) has it (its first
 *    GROUNDWATCH_BENCH_HALUEVAL rows, default 300; the context one string).
 *
 * 2. Time per answer on same-shaped graphs (random weights: the time of the shape, not of a trained
 *    model; span quality is not measured). A BERT-base encoder (12 layers, hidden 768, 12 heads,
 *    intermediate 3,072, vocabulary 30,522; GROUNDWATCH_BENCH_SHAPE=small for 6 × 384, MiniLM-L6's)
 *    built twice by scripts/onnx_fixtures.py into GROUNDWATCH_CACHE/bench-models: with three NLI
 *    labels (`shape`, 512 positions) as the claim detector, and with a token head and two labels
 *    (`shape-spans`, 8,192 positions, config.json BertForTokenClassification) as the span detector.
 *    Both directories get the same WordPiece tokenizer over the workload's words (about one token a
 *    word: shorter than a real tokenizer's 1.2–1.4). The claim detector reads at most 512 tokens a
 *    pair, the span detector the reference's 4,096 a run. Workload: bench/rag-workload.ts, seed 29,
 *    observations that no other cell scores (no claim pair repeats, so every pair is a model call).
 *    Per variant (GROUNDWATCH_BENCH_VARIANTS, default int8; fp32 too with int8,fp32): one scorer per
 *    mode (claims alone, spans alone, refine), each warmed by 2 answers, then
 *    GROUNDWATCH_BENCH_ROUNDS rounds (default 3) in which each mode scores the same
 *    GROUNDWATCH_BENCH_ANSWERS answers (default 5) one after another (one answer in flight: the
 *    latency of an answer, not a collector's throughput). Each mode's best round is reported (a burst
 *    of load from another process lowers a round, never raises one); answers/s = answers ÷ seconds.
 *    Beside them, the tokens each engine reads for those answers (tokensPerAnswer). The ratio
 *    "time ÷ claims alone" is the added cost of a span detector measured in the same run.
 *    onnxruntime's threads are the scorer's (GROUNDWATCH_ONNX_THREADS, else the runtime's default:
 *    every core); in refine the claim detector and the span detector run at the same time, each in
 *    its own worker, on the same cores.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import * as ort from "onnxruntime-node";
import type { NliPair } from "../src/core/backend.ts";
import { createOnnxBackend } from "../src/nli/onnx/backend.ts";
import { spanPrompt, spanPromptLanguage } from "../src/nli/onnx/span-prompt.ts";
import type { ScoreOptions } from "../src/config/score-options.ts";
import type { Evaluation, Observation } from "../src/scoring/scorer.ts";
import { createScorer } from "../src/sdk/create-scorer.ts";
import { devDir } from "../scripts/devsets.ts";
import { build, CACHE, ROOT, linkedModelDir } from "./models.ts";
import { ragObservation, workloadWords } from "./rag-workload.ts";

const SEED = 29;
const ROUNDS = Number(process.env.GROUNDWATCH_BENCH_ROUNDS ?? 3);
const ANSWERS = Number(process.env.GROUNDWATCH_BENCH_ANSWERS ?? 5);
const WARMUP = 2;
const VARIANTS = (process.env.GROUNDWATCH_BENCH_VARIANTS ?? "int8").split(",").map((s) => s.trim()).filter(Boolean);
const HALUEVAL_ROWS = Number(process.env.GROUNDWATCH_BENCH_HALUEVAL ?? 300);
const RAG_ROWS = 200;
const FIXTURES = join(ROOT, "test", "fixtures", "models");
const COUNT_CLAIMS = join(FIXTURES, "bert-wordpiece");
const COUNT_SPANS = join(FIXTURES, "spans", "lettucedetect-modernbert");

interface EncoderShape {
  readonly name: string;
  readonly layers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly intermediate: number;
  readonly vocab: number;
}
const BASE: EncoderShape = { name: "bert-base", layers: 12, hidden: 768, heads: 12, intermediate: 3072, vocab: 30522 };
const SMALL: EncoderShape = { name: "minilm-l6-h384", layers: 6, hidden: 384, heads: 12, intermediate: 1536, vocab: 30522 };
const SHAPE = process.env.GROUNDWATCH_BENCH_SHAPE === "small" ? SMALL : BASE;

type Mode = "claims" | "spans" | "refine";
const MODES: readonly Mode[] = ["claims", "spans", "refine"];
const MODE_LABEL: Record<Mode, string> = { claims: "claims alone (--backend onnx --model)", spans: "spans alone (--backend spans --span-model)", refine: "refine (--backend onnx --model --span-model)" };

function options(mode: Mode, claimsDir: string, spansDir: string, variant?: string): ScoreOptions {
  const v = variant === undefined ? {} : { variant };
  if (mode === "claims") return { backend: "onnx", model: claimsDir, ...v };
  if (mode === "spans") return { backend: "spans", spanModel: spansDir, ...v };
  return { backend: "onnx", model: claimsDir, spanModel: spansDir, ...v };
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
/** The nearest-rank quantile. */
function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
const relative = (p: string): string => p.replace(`${ROOT}/`, "");
const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : "–");

// ---------------------------------------------------------------- 1. model work per answer

interface CountSet {
  readonly name: string;
  readonly docs: string;
  readonly rows: readonly Observation[];
}

function jsonl(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function exampleRows(file: string): Observation[] {
  return jsonl(join(ROOT, "examples", file)).map((r) => ({
    ...(typeof r.question === "string" ? { question: r.question } : {}),
    context: Array.isArray(r.context) ? (r.context as string[]) : [String(r.context)],
    answer: String(r.answer),
  }));
}

function docsPerRow(rows: readonly Observation[]): string {
  const n = rows.map((r) => (Array.isArray(r.context) ? r.context.length : 1));
  const lo = Math.min(...n);
  const hi = Math.max(...n);
  return lo === hi ? String(lo) : `${lo}–${hi} (mean ${fmt(mean(n), 1)})`;
}

function countSets(): CountSet[] {
  const sets: CountSet[] = [];
  for (const file of ["answers.jsonl", "labelled.jsonl", "eval-set.jsonl", "traffic.jsonl"]) {
    const rows = exampleRows(file);
    sets.push({ name: `examples/${file}`, docs: docsPerRow(rows), rows });
  }
  const rag = Array.from({ length: RAG_ROWS }, (_, i) => ragObservation(SEED, i));
  sets.push({ name: `rag-workload (seed ${SEED}, ${RAG_ROWS} answers)`, docs: docsPerRow(rag), rows: rag });
  const halueval = join(devDir(), "halueval_qa.jsonl");
  if (existsSync(halueval)) {
    const rows = jsonl(halueval)
      .slice(0, HALUEVAL_ROWS)
      .map((r) => {
        const question = (r.meta as { question?: unknown } | undefined)?.question;
        return { ...(typeof question === "string" ? { question } : {}), context: [String(r.context)], answer: String(r.claim) };
      });
    sets.push({ name: `HaluEval QA dev (first ${rows.length})`, docs: docsPerRow(rows), rows });
  }
  return sets;
}

interface PerAnswer {
  readonly claims: number[];
  readonly spans: number[];
  readonly verbatim: number;
  readonly cached: number;
  readonly unscorable: number;
}

/** Scores `rows` in order with one scorer (its judgement cache included, as a monitor's), collecting the model work of every answer. */
async function work(opts: ScoreOptions, rows: readonly Observation[]): Promise<PerAnswer> {
  const scorer = await createScorer(opts, { env: process.env });
  const claims: number[] = [];
  const spans: number[] = [];
  let verbatim = 0;
  let cached = 0;
  let unscorable = 0;
  try {
    for (const row of rows) {
      const r = await scorer.score(row);
      claims.push(r.callsByEngine?.claims ?? r.entailmentCalls);
      spans.push(r.callsByEngine?.spans ?? 0);
      verbatim += r.callsSaved?.verbatim ?? 0;
      cached += r.callsSaved?.cache ?? 0;
      if (r.verdict === "unscorable") unscorable++;
    }
  } finally {
    await scorer.close();
  }
  return { claims, spans, verbatim, cached, unscorable };
}

async function modelWork(): Promise<void> {
  console.log(`## 1. Model work per answer (claim detector ${relative(COUNT_CLAIMS)}, span detector ${relative(COUNT_SPANS)}; counts, not time)`);
  console.log("");
  console.log("| set | answers | documents a row | claim pairs an answer, claims alone: mean | p95 | max | pairs saved without a call, all answers: verbatim window / judgement cache | span runs an answer, spans alone: mean | p95 | max | refine: claims, spans (mean) | unscorable (claims / spans) |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const set of countSets()) {
    const claims = await work(options("claims", COUNT_CLAIMS, COUNT_SPANS), set.rows);
    const spans = await work(options("spans", COUNT_CLAIMS, COUNT_SPANS), set.rows);
    const refine = await work(options("refine", COUNT_CLAIMS, COUNT_SPANS), set.rows);
    const same = refine.claims.every((c, i) => c === claims.claims[i]) && refine.spans.every((s, i) => s === spans.spans[i]);
    console.log(`| ${set.name} | ${set.rows.length} | ${set.docs} | ${fmt(mean(claims.claims))} | ${quantile(claims.claims, 0.95)} | ${Math.max(...claims.claims)} | ${claims.verbatim} / ${claims.cached} | ${fmt(mean(spans.spans))} | ${quantile(spans.spans, 0.95)} | ${Math.max(...spans.spans)} | ${fmt(mean(refine.claims))}, ${fmt(mean(refine.spans))}${same ? "" : " (NOT the same answer by answer as the two alone)"} | ${claims.unscorable} / ${spans.unscorable} |`);
  }
  console.log("");
}

// ---------------------------------------------------------------- 2. time per answer

/** Builds the shape as a claim detector (`shape`) and as a span detector (`shape-spans`), fp32 and int8, into CACHE unless there. */
function buildGraphs(shape: EncoderShape): { claims: string; spans: string } {
  const dims = ["--layers", String(shape.layers), "--hidden", String(shape.hidden), "--heads", String(shape.heads), "--intermediate", String(shape.intermediate), "--vocab", String(shape.vocab)];
  const claims = join(CACHE, `${shape.name}-claims`);
  const spans = join(CACHE, `${shape.name}-spans`);
  build(["shape", claims, ...dims, "--max-position", "512", "--int8"], claims);
  build(["shape-spans", spans, ...dims, "--max-position", "8192", "--int8"], spans);
  return { claims, spans };
}

/**
 * The tokens each engine reads for `answers`, with the bench's tokenizer: the claim pairs the onnx
 * backend is sent (recorded from a scorer over it; [CLS] premise [SEP] claim [SEP], at most
 * 512), and the span detector's one input ([CLS] prompt [SEP] answer [SEP], the English QA prompt
 * over every document, at most 4,096). Per answer: claim pairs' tokens summed, and the span input's.
 */
async function tokensPerAnswer(answers: readonly Observation[], claimsDir: string, variant: string): Promise<{ pairTokens: number[]; pairs: number[]; spanTokens: number[] }> {
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(claimsDir, "tokenizer.json"), "utf8")) as object, {});
  const count = (text: string): number => tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  const inner = await createOnnxBackend({ dir: claimsDir, variant });
  let sent: NliPair[] = [];
  const recording = { ...inner, classify: (batch: readonly NliPair[], o?: Parameters<typeof inner.classify>[1]) => ((sent = [...sent, ...batch]), inner.classify(batch, o)) };
  const scorer = await createScorer({ backend: "onnx", model: claimsDir, variant }, { env: process.env, backend: recording });
  const pairTokens: number[] = [];
  const pairs: number[] = [];
  const spanTokens: number[] = [];
  const en = spanPromptLanguage("en");
  try {
    for (const a of answers) {
      sent = [];
      await scorer.score(a);
      pairs.push(sent.length);
      pairTokens.push(sent.reduce((n, p) => n + Math.min(512, count(p.premise) + count(p.hypothesis) + 3), 0));
      spanTokens.push(Math.min(4096, count(spanPrompt(en, Array.isArray(a.context) ? a.context : [String(a.context)], a.question)) + count(a.answer) + 3));
    }
  } finally {
    await scorer.close();
  }
  return { pairTokens, pairs, spanTokens };
}

interface Timed {
  bestAnswersPerS: number;
  rounds: number[];
  claims: number[];
  spans: number[];
}

async function timing(): Promise<void> {
  const { claims: claimsGraphs, spans: spansGraphs } = buildGraphs(SHAPE);
  // Observations no other cell reads: warm-up from 100,000, rounds from 200,000.
  const words = workloadWords([...Array.from({ length: WARMUP }, (_, i) => ragObservation(SEED, 100_000 + i)), ...Array.from({ length: ROUNDS * ANSWERS }, (_, i) => ragObservation(SEED, 200_000 + i))]);
  const claimsDir = linkedModelDir(claimsGraphs, `${SHAPE.name}-claims-tier`, words, 512, SHAPE.vocab);
  const spansDir = linkedModelDir(spansGraphs, `${SHAPE.name}-spans-tier`, words, 8192, SHAPE.vocab);
  console.log(`## 2. Time per answer (${SHAPE.name}: ${SHAPE.layers} layers, hidden ${SHAPE.hidden}, ${SHAPE.heads} heads, intermediate ${SHAPE.intermediate}; random weights)`);
  console.log("");
  console.log(`workload: bench/rag-workload.ts seed ${SEED}; ${ROUNDS} rounds of the same ${ANSWERS} answers per mode and round (new answers each round), one answer in flight, after ${WARMUP} warm-up answers; best round per mode`);
  console.log("");
  console.log("| variant | mode | answers/s (best round) | ms an answer | rounds, answers/s | claim pairs an answer | span runs an answer | time ÷ claims alone |");
  console.log("|---|---|---|---|---|---|---|---|");
  const summaries: string[] = [];
  const tokenLines: string[] = [];
  for (const variant of VARIANTS) {
    const scorers = new Map<Mode, Awaited<ReturnType<typeof createScorer>>>();
    const timed = new Map<Mode, Timed>();
    try {
      for (const mode of MODES) {
        const scorer = await createScorer(options(mode, claimsDir, spansDir, variant), { env: process.env });
        scorers.set(mode, scorer);
        for (let i = 0; i < WARMUP; i++) await scorer.score(ragObservation(SEED, 100_000 + i));
        timed.set(mode, { bestAnswersPerS: 0, rounds: [], claims: [], spans: [] });
      }
      for (let round = 0; round < ROUNDS; round++) {
        const answers = Array.from({ length: ANSWERS }, (_, i) => ragObservation(SEED, 200_000 + round * ANSWERS + i));
        for (const mode of MODES) {
          const scorer = scorers.get(mode);
          const t = timed.get(mode);
          if (!scorer || !t) continue;
          const results: Evaluation[] = [];
          const start = performance.now();
          for (const a of answers) results.push(await scorer.score(a));
          const rate = (answers.length * 1000) / (performance.now() - start);
          t.rounds.push(rate);
          t.bestAnswersPerS = Math.max(t.bestAnswersPerS, rate);
          for (const r of results) {
            if (r.verdict === "unscorable") throw new Error(`${variant} ${mode}: an answer was unscorable (${r.reason})`);
            t.claims.push(r.callsByEngine?.claims ?? r.entailmentCalls);
            t.spans.push(r.callsByEngine?.spans ?? 0);
          }
        }
      }
    } finally {
      for (const s of scorers.values()) await s.close();
    }
    const all = Array.from({ length: ROUNDS * ANSWERS }, (_, i) => ragObservation(SEED, 200_000 + i));
    const tokens = await tokensPerAnswer(all, claimsDir, variant);
    tokenLines.push(`tokens an answer (${variant}; the timed answers, this tokenizer): claim pairs ${fmt(mean(tokens.pairs), 1)} of ${fmt(mean(tokens.pairTokens) / Math.max(1, mean(tokens.pairs)), 0)} tokens, ${fmt(mean(tokens.pairTokens), 0)} tokens in all (p95 ${quantile(tokens.pairTokens, 0.95)}); span detector one input of ${fmt(mean(tokens.spanTokens), 0)} tokens (p95 ${quantile(tokens.spanTokens, 0.95)})`);
    const base = timed.get("claims")?.bestAnswersPerS ?? Number.NaN;
    for (const mode of MODES) {
      const t = timed.get(mode);
      if (!t) continue;
      console.log(`| ${variant} | ${MODE_LABEL[mode]} | ${fmt(t.bestAnswersPerS)} | ${fmt(1000 / t.bestAnswersPerS, 0)} | ${t.rounds.map((r) => fmt(r)).join(", ")} | ${fmt(mean(t.claims), 1)} | ${fmt(mean(t.spans), 1)} | ${fmt(base / t.bestAnswersPerS)}× |`);
    }
    const refine = timed.get("refine")?.bestAnswersPerS ?? Number.NaN;
    const spans = timed.get("spans")?.bestAnswersPerS ?? Number.NaN;
    summaries.push(`${variant}: refine takes ${fmt(base / refine)}× the time of claims alone (+${fmt((100 * (base / refine - 1)), 0)}%); spans alone ${fmt(base / spans)}×`);
  }
  console.log("");
  for (const s of [...summaries, ...tokenLines]) console.log(s);
  console.log("");
  console.log(`claim detector ${claimsDir}, span detector ${spansDir}: random weights — the time of the shape, not of a trained model; span quality is not measured`);
}

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (not a git checkout)";
  }
}

async function main(): Promise<void> {
  const parts = (process.env.GROUNDWATCH_BENCH_PARTS ?? "work,time").split(",");
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, onnxruntime-node ${ort.env.versions.common}, commit ${gitCommit()}, ${new Date().toISOString()}; onnx threads ${process.env.GROUNDWATCH_ONNX_THREADS ?? "the runtime's default"}`);
  console.log("");
  if (parts.includes("work")) await modelWork();
  if (parts.includes("time")) await timing();
}

await main();
