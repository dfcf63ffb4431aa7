/**
 * Semantic entropy cost: entailment calls made against the brute-force N(N − 1), and
 * time per sample set, at N = 5, 10 and 20, on a generated mix of confident sets
 * (paraphrases of one answer) and confabulating sets (different answers), with the
 * offline backend and the onnx backend.
 *
 * Claim-level consistency cost: for a three-claim answer and N = 5 and 10 resamples,
 * entailment calls sent against the naive claims × samples × 2 (every claim against every
 * sample, both directions), time per observation, and how often the one made-up claim is
 * flagged unstable while the two repeated claims are not.
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
import type { Claim } from "../src/core/claims/index.ts";
import { splitClaims } from "../src/core/claims/index.ts";
import { claimConsistency } from "../src/core/entropy/claim-consistency.ts";
import { semanticEntropy } from "../src/core/entropy/semantic-entropy.ts";
import { auroc } from "../src/core/stats.ts";
import type { TextAnalyzer } from "../src/core/text.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import type { EntailmentBackend, NliResult } from "../src/core/backend.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { createOnnxBackend } from "../src/nli/onnx/backend.ts";
import { rng } from "../src/core/rng.ts";

const ROOT = join(import.meta.dirname, "..");
const CACHE = join(process.env.GROUNDWATCH_CACHE ?? join(homedir(), ".cache", "groundwatch"), "bench-models");
const SETS_PER_KIND = 20;

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

/**
 * Observations for claim consistency: an answer of three claims, the second of which the model
 * makes up. Resamples restate each fact in one of three wordings: "close" ones keep the claim's
 * content words, "loose" ones say the same thing in other words.
 */
const FACTS = [
  {
    q: "Tell me about the Halvorsen Bridge.",
    facts: [
      {
        claim: "The Halvorsen Bridge crosses the {v} river.",
        right: "Tana",
        wrong: [] as string[],
        close: ["The Halvorsen Bridge crosses the {v} river.", "It crosses the {v} river.", "The bridge crosses the {v} river."],
        loose: ["It spans the {v}.", "The bridge goes over the {v}.", "It is a bridge over the {v}."],
      },
      {
        claim: "It opened in {v}.",
        right: "1962",
        wrong: ["1958", "1971", "1949", "1985", "1966", "1990"],
        close: ["It opened in {v}.", "The bridge opened in {v}.", "It was opened in {v}."],
        loose: ["Traffic first used it in {v}.", "Opening year: {v}.", "It dates from {v}."],
      },
      {
        claim: "It is {v} metres long.",
        right: "420",
        wrong: [],
        close: ["It is {v} metres long.", "The bridge is {v} metres long.", "It is about {v} metres long."],
        loose: ["Its length is {v} metres.", "The span measures {v} metres.", "End to end: {v} metres."],
      },
    ],
  },
  {
    q: "What do you know about the Orvik lighthouse?",
    facts: [
      {
        claim: "The Orvik lighthouse stands on {v} island.",
        right: "Skarv",
        wrong: [],
        close: ["The Orvik lighthouse stands on {v} island.", "It stands on {v} island.", "The lighthouse stands on {v} island."],
        loose: ["You find it on {v}.", "Its island is {v}.", "It is located on {v}."],
      },
      {
        claim: "It was built in {v}.",
        right: "1874",
        wrong: ["1881", "1869", "1902", "1855", "1890", "1910"],
        close: ["It was built in {v}.", "The lighthouse was built in {v}.", "It was first built in {v}."],
        loose: ["Construction finished in {v}.", "It dates from {v}.", "Workers completed it in {v}."],
      },
      {
        claim: "Its light reaches {v} nautical miles.",
        right: "18",
        wrong: [],
        close: ["Its light reaches {v} nautical miles.", "The light reaches {v} nautical miles.", "Its light reaches about {v} nautical miles."],
        loose: ["The beam carries {v} nautical miles.", "Range: {v} nautical miles.", "Ships see it from {v} nautical miles away."],
      },
    ],
  },
];

type Wording = "close" | "loose";

function makeObservations(n: number, wording: Wording): Array<{ question: string; answer: string; samples: string[]; invented: number }> {
  const r = rng(n * 104729 + (wording === "loose" ? 1 : 0));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const out: Array<{ question: string; answer: string; samples: string[]; invented: number }> = [];
  for (let k = 0; k < SETS_PER_KIND; k++) {
    const t = pick(FACTS);
    const answer = t.facts.map((f) => f.claim.replace("{v}", f.right)).join(" ");
    // The made-up fact: right in about 20% of the resamples, a different value otherwise.
    const samples = Array.from({ length: n }, () => t.facts.map((f) => pick(f[wording]).replace("{v}", f.wrong.length > 0 && r() >= 0.2 ? pick(f.wrong) : f.right)).join(" "));
    out.push({ question: t.q, answer, samples, invented: t.facts.findIndex((f) => f.wrong.length > 0) });
  }
  return out;
}

async function measureClaims(name: string, backend: EntailmentBackend, analyzer: TextAnalyzer): Promise<string[]> {
  const rows: string[] = [];
  // One untimed pass first, so the first row does not pay for warming up.
  for (const o of makeObservations(5, "close").slice(0, 5)) {
    const claims = splitClaims(o.answer, analyzer).filter((c): c is Claim => c.kind === "claim");
    await claimConsistency({ question: o.question, claims, samples: o.samples, backend, analyzer, options: { threshold: 0.5, unstableShare: 0.5, tokenBudget: 400 } });
  }
  for (const wording of ["close", "loose"] as const) {
    for (const n of [5, 10]) {
      const observations = makeObservations(n, wording);
      let calls = 0;
      let naive = 0;
      let ms = 0;
      let flagged = 0;
      let falseAlarms = 0;
      for (const o of observations) {
        const claims = splitClaims(o.answer, analyzer).filter((c): c is Claim => c.kind === "claim");
        if (claims.length !== 3) throw new Error(`expected 3 claims, got ${claims.length}: ${o.answer}`);
        const t0 = performance.now();
        const r = await claimConsistency({
          question: o.question,
          claims,
          samples: o.samples,
          backend,
          analyzer,
          options: { threshold: backend.recommendedThreshold ?? 0.5, unstableShare: 0.5, tokenBudget: 400, topK: 3, cache: new Map<string, NliResult>() },
        });
        ms += performance.now() - t0;
        calls += r.summary.entailmentCalls;
        naive += r.summary.naiveCalls;
        const unstable = new Set(r.unstableClaims.map((c) => c.index));
        if (unstable.has(o.invented)) flagged++;
        falseAlarms += [...unstable].filter((i) => i !== o.invented).length;
      }
      const m = observations.length;
      rows.push(`| ${name} | ${wording} | ${n} | ${(calls / m).toFixed(1)} | ${(naive / m).toFixed(0)} | ${((100 * calls) / naive).toFixed(0)}% | ${(ms / m).toFixed(1)} | ${flagged}/${m} | ${falseAlarms}/${2 * m} |`);
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const claimRows: string[] = [];
  const analyzer = createTextAnalyzer();
  const offline = createOfflineBackend({ analyzer });
  rows.push(...(await measure("offline", offline)));
  claimRows.push(...(await measureClaims("offline", offline, analyzer)));
  await offline.close();
  const dir = onnxModelDir();
  if (dir) {
    const onnx = await createOnnxBackend({ dir, workers: 1 });
    const onnxName = "onnx (MiniLM-L6 shape, random weights)";
    rows.push(...(await measure(onnxName, onnx)));
    claimRows.push(...(await measureClaims(onnxName, onnx, analyzer)));
    await onnx.close();
  } else {
    console.error("onnx rows skipped: run `npm run bench:nli` first to build the MiniLM-shaped graph");
  }
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; ${SETS_PER_KIND} confident + ${SETS_PER_KIND} confabulating sets per N`);
  console.log("");
  console.log("| backend | N | entailment calls per set (mean) | N(N−1) | share | ms per set | AUROC confabulating vs confident |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(rows.join("\n"));
  console.log("");
  console.log(`Claim-level consistency: ${SETS_PER_KIND} observations per N, a three-claim answer whose second claim is made up (right in ~20% of resamples)`);
  console.log("");
  console.log("| backend | resample wording | N | entailment calls per observation (mean) | naive 3 claims × N × 2 | share | ms per observation | made-up claim flagged unstable | repeated claims flagged unstable |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  console.log(claimRows.join("\n"));
}

await main();
