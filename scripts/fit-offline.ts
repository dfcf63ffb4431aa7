/**
 * Fits the offline backend's logistic model on the permissively licensed dev sets
 * and writes src/nli/offline/weights.json and docs/offline-fit.md.
 *
 * The model is fit the way it is used: each row's answer is split into claims, each
 * claim is checked against its top-k context windows, and the answer's score is
 * min over claims of max over windows. Which (claim, window) pair decides a row
 * depends on the weights, so fitting alternates: pick each row's deciding pair under
 * the current weights, refit on those pairs (multiple-instance learning). Then the
 * log-loss of the pipeline's exact score (the backend's contradiction adjustment
 * included) is minimised directly, so the shipped probabilities are calibrated as used.
 *
 *   npm run fit:offline            (dev sets from ../shared/data/dev or GROUNDWATCH_DEV_DIR)
 */
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { planClaimChecks } from "../src/core/plan.ts";
import { answerContribution } from "../src/core/verdict.ts";
import { fitLogistic } from "../src/core/logistic.ts";
import { auroc, balancedAccuracy, bestBalancedThreshold, reliability } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { FEATURE_NAMES, extractFeatures } from "../src/nli/offline/features.ts";
import { profileText } from "../src/nli/offline/profile-text.ts";
import { loadLexicon } from "../src/nli/offline/lexicon.ts";
import { combine } from "../src/nli/offline/model.ts";
import type { FeatureVector } from "../src/nli/offline/features.ts";
import { DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import type { DevRow } from "./devsets.ts";
import { FIT_ALLOWED, devDir, isHeldOut, loadDevSets } from "./devsets.ts";

interface PairFeatures {
  /** Feature values in FEATURE_NAMES order. */
  v: number[];
  /** What `combine` needs besides the match probability. */
  f: Pick<FeatureVector, "contradiction" | "missingNumbers" | "aboutness" | "subjectSwap">;
}

interface RowFeatures {
  row: DevRow;
  heldOut: boolean;
  /** claims[c][w]: claim c against its w-th preselected window. */
  claims: PairFeatures[][];
}

const ROOT = join(import.meta.dirname, "..");
const ITERATIONS = 6;
const REFINE_STEPS = 200;
const ADAM_RATE = 0.02;
const L2 = 1.0;

function main(): void {
  const analyzer = createTextAnalyzer();
  const lexicon = loadLexicon();
  const sets = loadDevSets();
  const data: RowFeatures[] = [];
  const skipped = new Map<string, number>();
  const t0 = performance.now();
  for (const [name, rows] of sets) {
    if (!FIT_ALLOWED.has(name)) continue;
    for (const row of rows) {
      const plan = planClaimChecks(row.claim, row.context, analyzer, DEFAULT_SETTINGS);
      if (plan.claims.length === 0 || plan.windows.length === 0) {
        skipped.set(name, (skipped.get(name) ?? 0) + 1);
        continue;
      }
      const claims = plan.claims.map((claim, ci) => {
        const hypDoc = analyzer.analyze(claim.text);
        const hyp = profileText(hypDoc);
        return (plan.checks[ci] ?? []).map((w) => {
          const f = extractFeatures(profileText(analyzer.analyze(w.text)), hyp, hypDoc, lexicon);
          return { v: FEATURE_NAMES.map((n) => f.values[n]), f: { contradiction: f.contradiction, missingNumbers: f.missingNumbers, aboutness: f.aboutness, subjectSwap: f.subjectSwap } };
        });
      });
      data.push({ row, heldOut: isHeldOut(row), claims });
    }
  }
  console.log(`features for ${data.length} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s; skipped ${JSON.stringify(Object.fromEntries(skipped))}`);

  const train = data.filter((d) => !d.heldOut);
  const all = train.flatMap((d) => d.claims.flat().map((p) => p.v));
  const mean = FEATURE_NAMES.map((_, k) => all.reduce((s, v) => s + (v[k] ?? 0), 0) / all.length);
  const scale = FEATURE_NAMES.map((_, k) => Math.sqrt(all.reduce((s, v) => s + ((v[k] ?? 0) - (mean[k] ?? 0)) ** 2, 0) / all.length) || 1);
  // The fit data's range of each feature: the shipped model clips to it (see OfflineModel.lower).
  const lower = FEATURE_NAMES.map((_, k) => all.reduce((m, v) => Math.min(m, v[k] ?? 0), Infinity));
  const upper = FEATURE_NAMES.map((_, k) => all.reduce((m, v) => Math.max(m, v[k] ?? 0), -Infinity));
  const std = (v: readonly number[]): number[] => v.map((x, k) => (Math.min(upper[k] ?? Infinity, Math.max(lower[k] ?? -Infinity, x)) - (mean[k] ?? 0)) / (scale[k] ?? 1));

  // Each source (WiCE, BEGIN, HaluEval, SummEdits: its four files are one source)
  // carries equal total weight, so no single source sets the policy.
  const source = (d: RowFeatures): string => d.row.dataset.replace(/^summedits_.*/, "summedits");
  const perSource = new Map<string, number>();
  for (const d of train) perSource.set(source(d), (perSource.get(source(d)) ?? 0) + 1);
  const rowWeight = (d: RowFeatures): number => train.length / perSource.size / (perSource.get(source(d)) ?? 1);
  const perSet = new Map<string, number>();
  for (const d of train) perSet.set(d.row.dataset, (perSet.get(d.row.dataset) ?? 0) + 1);

  let fit = { weights: new Array<number>(FEATURE_NAMES.length).fill(0), bias: 0, iterations: 0 };
  const matchProb = (v: readonly number[]): number => {
    let z = fit.bias;
    std(v).forEach((x, k) => (z += (fit.weights[k] ?? 0) * x));
    return 1 / (1 + Math.exp(-z));
  };
  /**
   * The row's score exactly as the pipeline computes it (backend `combine`, then the
   * scorer's per-claim max/contradiction rule and min over claims), with the pair
   * that decided it and whether the score moves with the weights there.
   */
  const decide = (d: RowFeatures): { p: number; pair: PairFeatures; live: boolean } => {
    let worst: { p: number; pair: PairFeatures; live: boolean } | undefined;
    for (const windows of d.claims) {
      let best: { e: number; pair: PairFeatures } | undefined;
      let contradiction = 0;
      for (const pair of windows) {
        const r = combine(matchProb(pair.v), pair.f);
        if (!best || r.entailment > best.e) best = { e: r.entailment, pair };
        contradiction = Math.max(contradiction, r.contradiction);
      }
      if (!best) continue;
      const p = answerContribution(best.e, contradiction);
      if (!worst || p < worst.p) worst = { p, pair: best.pair, live: p === best.e };
    }
    return worst ?? { p: 0, pair: { v: new Array<number>(FEATURE_NAMES.length).fill(0), f: { contradiction: { number: 0, negation: 0, antonym: 0 }, missingNumbers: 0, aboutness: 0, subjectSwap: 0 } }, live: false };
  };
  const labels = train.map((d) => d.row.label);
  const weightsOfRows = train.map(rowWeight);
  // 1. Multiple-instance warm start: pick each row's deciding pair, refit a plain logistic on those.
  for (let it = 0; it < ITERATIONS; it++) {
    const chosen = train.map((d) => decide(d).pair.v);
    fit = fitLogistic(chosen.map(std), labels, { l2: L2, sampleWeights: weightsOfRows });
    console.log(`warm start ${it + 1}: train AUROC ${auroc(train.map((d) => decide(d).p), labels).toFixed(4)}`);
  }
  // 2. Refine the log-loss of the pipeline's own score p = σ(z)·(1 − strength) by Adam,
  //    re-deciding the pair each step, so the shipped probabilities are calibrated as used.
  const dims = FEATURE_NAMES.length + 1;
  const m = new Array<number>(dims).fill(0);
  const v2 = new Array<number>(dims).fill(0);
  const totalWeight = weightsOfRows.reduce((a, b) => a + b, 0);
  for (let step = 1; step <= REFINE_STEPS; step++) {
    const grad = new Array<number>(dims).fill(0);
    train.forEach((d, i) => {
      const { p, pair, live } = decide(d);
      if (!live) return;
      const y = labels[i] ?? 0;
      const q = Math.min(1 - 1e-9, Math.max(1e-9, p));
      const sigma = matchProb(pair.v);
      const keep = sigma > 0 ? p / sigma : 0; // = (1 − strength)(1 − missing-number penalty)(1 − subject-swap penalty)
      const dz = ((weightsOfRows[i] ?? 1) * -(y / q - (1 - y) / (1 - q)) * sigma * (1 - sigma) * keep) / totalWeight;
      const x = [1, ...std(pair.v)];
      for (let k = 0; k < dims; k++) grad[k] = (grad[k] ?? 0) + dz * (x[k] ?? 0);
    });
    const params = [fit.bias, ...fit.weights];
    for (let k = 1; k < dims; k++) grad[k] = (grad[k] ?? 0) + (L2 / totalWeight) * (params[k] ?? 0);
    for (let k = 0; k < dims; k++) {
      const g = grad[k] ?? 0;
      m[k] = 0.9 * (m[k] ?? 0) + 0.1 * g;
      v2[k] = 0.999 * (v2[k] ?? 0) + 0.001 * g * g;
      const mh = (m[k] ?? 0) / (1 - 0.9 ** step);
      const vh = (v2[k] ?? 0) / (1 - 0.999 ** step);
      params[k] = (params[k] ?? 0) - (ADAM_RATE * mh) / (Math.sqrt(vh) + 1e-8);
    }
    fit = { bias: params[0] ?? 0, weights: params.slice(1), iterations: fit.iterations };
    if (step % 50 === 0) console.log(`refine ${step}: train AUROC ${auroc(train.map((d) => decide(d).p), labels).toFixed(4)}`);
  }

  const trainScores = train.map((d) => decide(d).p);
  const trainLabels = train.map((d) => d.row.label);
  // The shipped threshold maximises balanced accuracy on the fit rows, weighting each set equally.
  const { threshold } = bestBalancedThreshold(trainScores, trainLabels);

  const held = data.filter((d) => d.heldOut);
  const heldScores = held.map((d) => decide(d).p);
  const heldLabels = held.map((d) => d.row.label);
  const rel = reliability(heldScores, heldLabels);

  const version = `offline-1.0.0+${new Date().toISOString().slice(0, 10)}`;
  const weights = {
    version,
    features: FEATURE_NAMES,
    mean: mean.map((x) => +x.toFixed(6)),
    scale: scale.map((x) => +x.toFixed(6)),
    weights: fit.weights.map((x) => +x.toFixed(6)),
    lower: lower.map((x) => +x.toFixed(6)),
    upper: upper.map((x) => +x.toFixed(6)),
    bias: +fit.bias.toFixed(6),
    threshold: +threshold.toFixed(6),
    fit: { sets: [...perSet.keys()], rows: train.length, heldOut: held.length, l2: L2, warmStart: ITERATIONS, refineSteps: REFINE_STEPS, settings: { topK: DEFAULT_SETTINGS.topK, tokenBudget: DEFAULT_SETTINGS.tokenBudget } },
  };
  writeFileSync(join(ROOT, "src/nli/offline/weights.json"), JSON.stringify(weights, null, 2) + "\n");

  const lines: string[] = [];
  lines.push("# Offline backend: fit report", "");
  lines.push(`Generated by \`npm run fit:offline\` on ${new Date().toISOString().slice(0, 10)} from the dev sets in \`${relative(ROOT, devDir())}\`. Model version \`${version}\`.`, "");
  lines.push("Fit on the permissively licensed sets only (ANLI is CC BY-NC: measured in `npm run bench:quality`, never fit). Rows are split 80/20 by a hash of their id; the weights are fit on the 80% and every metric below marked *held out* is on the other 20%. Each source (WiCE, BEGIN, HaluEval, SummEdits) gets equal total weight. Scores are the pipeline's answer score: min over claims of max over the claim's top-k windows.", "");
  lines.push(
    "## Features and weights",
    "",
    "Weights apply to standardised features (value − mean) / scale. The logistic model gives the probability that the claim matches the evidence; the backend then moves part of it to contradiction by fixed strengths when a number, negation or antonym signal fires (the backend's `combine` step). The fit sees that step, so the signals' weights here are not their whole effect: a positive weight with a large fixed penalty is how the fit says \"this pair is about the same thing, with one fact flipped\".",
    "",
    "A claim word counts as stated by the evidence (coverage, unmatched_words, soft_min) when the evidence has its lemma or surface form, the number it is, its derivational stem (Porter2 beside the lemma: \"certification\" for \"certified\", \"store\" for \"storage\"), or the same compound written joined or split (\"anytime\" for \"at any time\"), or a word or phrase of its paraphrase group (\"annual\" for \"yearly\", \"Monday to Friday\" for \"weekdays\", \"24 hours a day\" for \"around the clock\"); a support verb counts before a noun stated that way or as a verb (\"holds … certification\", \"gives a refund\" for \"refunded\"). surface_coverage counts exact forms, numbers, paraphrase groups and support verbs stated so only; a group's opposite in an evidence sentence about the claim (\"weekends\" for \"Monday to Friday\") is an antonym. A claim's number is compared only with numbers of the same kind (a count of a noun is never a percentage, an amount or a duration) in the evidence sentences the claim is about (those sharing at least half as many of its other content words as the best one): another value there is a contradiction (number_contradicted); the same value only in an unrelated sentence is missing.",
    "", "Values outside a feature's range in the fit data are clipped to it before scoring, so inputs unlike any the model saw (a claim of thousands of words) are not extrapolated.", "", "| feature | mean | scale | range in fit data | weight |", "|---|---|---|---|---|");
  FEATURE_NAMES.forEach((n, k) => lines.push(`| ${n} | ${mean[k]?.toFixed(3)} | ${scale[k]?.toFixed(3)} | ${lower[k]?.toFixed(3)} – ${upper[k]?.toFixed(3)} | ${fit.weights[k]?.toFixed(3)} |`));
  lines.push(`| (bias) | | | | ${fit.bias.toFixed(3)} |`, "");
  lines.push(`Shipped threshold: **${threshold.toFixed(3)}** (maximum balanced accuracy on the fit rows).`, "");
  lines.push("## Metrics per set", "", "Rows with a checkable claim only (the benchmark also counts unscorable rows, as score 0).", "", "| set | train rows | train AUROC | held-out rows | held-out AUROC | held-out balanced accuracy |", "|---|---|---|---|---|---|");
  for (const name of perSet.keys()) {
    const tr = train.filter((d) => d.row.dataset === name);
    const ho = held.filter((d) => d.row.dataset === name);
    const trS = tr.map((d) => decide(d).p);
    const hoS = ho.map((d) => decide(d).p);
    lines.push(
      `| ${name} | ${tr.length} | ${auroc(trS, tr.map((d) => d.row.label)).toFixed(3)} | ${ho.length} | ${auroc(hoS, ho.map((d) => d.row.label)).toFixed(3)} | ${balancedAccuracy(hoS, ho.map((d) => d.row.label), threshold).toFixed(3)} |`,
    );
  }
  lines.push("", "## Reliability (held out, all sets pooled)", "", `Expected calibration error: **${rel.ece.toFixed(3)}**. A calibrated model's observed rate tracks its mean predicted probability in every bin.`, "");
  lines.push("| predicted | rows | mean predicted | observed supported rate |", "|---|---|---|---|");
  for (const b of rel.bins) {
    lines.push(`| ${b.lower.toFixed(1)}–${b.upper.toFixed(1)} | ${b.count} | ${Number.isNaN(b.meanPredicted) ? "–" : b.meanPredicted.toFixed(3)} | ${Number.isNaN(b.observedRate) ? "–" : b.observedRate.toFixed(3)} |`);
  }
  if (skipped.size > 0) lines.push("", `Rows with no checkable claim (not fit, counted): ${[...skipped].map(([k, v]) => `${k} ${v}`).join(", ")}.`);
  writeFileSync(join(ROOT, "docs/offline-fit.md"), lines.join("\n") + "\n");
  console.log(`held-out AUROC ${auroc(heldScores, heldLabels).toFixed(4)}, ECE ${rel.ece.toFixed(4)}, threshold ${threshold.toFixed(4)}`);
}

main();
