/**
 * Fits the offline backend's logistic model on the permissively licensed dev sets
 * and writes src/nli/offline/weights.json and docs/offline-fit.md.
 *
 * The model is fit the way it is used: each row's answer is split into claims, each
 * claim is checked against its top-k context windows, and the answer's score is
 * min over claims of max over windows. Which (claim, window) pair decides a row
 * depends on the weights, so fitting alternates: pick each row's deciding pair under
 * the current weights, refit on those pairs (multiple-instance learning).
 *
 *   npm run fit:offline            (dev sets from ../shared/data/dev or GROUNDWATCH_DEV_DIR)
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { planClaimChecks } from "../src/core/groundedness.ts";
import { fitLogistic } from "../src/core/logistic.ts";
import { auroc, balancedAccuracy, bestBalancedThreshold, reliability } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { FEATURE_NAMES, extractFeatures, profileText } from "../src/nli/offline/features.ts";
import { loadLexicon } from "../src/nli/offline/lexicon.ts";
import { DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import type { DevRow } from "./devsets.ts";
import { FIT_ALLOWED, devDir, isHeldOut, loadDevSets } from "./devsets.ts";

interface RowFeatures {
  row: DevRow;
  heldOut: boolean;
  /** claims[c][w]: standardisable feature vector of claim c against its w-th window. */
  claims: number[][][];
}

const ROOT = join(import.meta.dirname, "..");
const ITERATIONS = 8;
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
          return FEATURE_NAMES.map((n) => f.values[n]);
        });
      });
      data.push({ row, heldOut: isHeldOut(row), claims });
    }
  }
  console.log(`features for ${data.length} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s; skipped ${JSON.stringify(Object.fromEntries(skipped))}`);

  const train = data.filter((d) => !d.heldOut);
  const all = train.flatMap((d) => d.claims.flat());
  const mean = FEATURE_NAMES.map((_, k) => all.reduce((s, v) => s + (v[k] ?? 0), 0) / all.length);
  const scale = FEATURE_NAMES.map((_, k) => Math.sqrt(all.reduce((s, v) => s + ((v[k] ?? 0) - (mean[k] ?? 0)) ** 2, 0) / all.length) || 1);
  const std = (v: readonly number[]): number[] => v.map((x, k) => (x - (mean[k] ?? 0)) / (scale[k] ?? 1));

  // Each source (WiCE, BEGIN, HaluEval, SummEdits: its four files are one source)
  // carries equal total weight, so no single source sets the policy.
  const source = (d: RowFeatures): string => d.row.dataset.replace(/^summedits_.*/, "summedits");
  const perSource = new Map<string, number>();
  for (const d of train) perSource.set(source(d), (perSource.get(source(d)) ?? 0) + 1);
  const rowWeight = (d: RowFeatures): number => train.length / perSource.size / (perSource.get(source(d)) ?? 1);
  const perSet = new Map<string, number>();
  for (const d of train) perSet.set(d.row.dataset, (perSet.get(d.row.dataset) ?? 0) + 1);

  let fit = { weights: new Array<number>(FEATURE_NAMES.length).fill(0), bias: 0, iterations: 0 };
  const prob = (v: readonly number[]): number => {
    const s = std(v);
    let z = fit.bias;
    s.forEach((x, k) => (z += (fit.weights[k] ?? 0) * x));
    return 1 / (1 + Math.exp(-z));
  };
  /** The deciding pair of a row under the current weights: argmin over claims of argmax over windows. */
  const decide = (d: RowFeatures): { p: number; v: number[] } => {
    let worst: { p: number; v: number[] } | undefined;
    for (const windows of d.claims) {
      let best: { p: number; v: number[] } | undefined;
      for (const v of windows) {
        const p = prob(v);
        if (!best || p > best.p) best = { p, v };
      }
      if (best && (!worst || best.p < worst.p)) worst = best;
    }
    return worst ?? { p: 0, v: new Array<number>(FEATURE_NAMES.length).fill(0) };
  };
  // Start from the pair with the highest lexical coverage in each claim.
  for (let it = 0; it < ITERATIONS; it++) {
    const chosen = train.map((d) =>
      it === 0 ? d.claims.map((ws) => ws.reduce((a, b) => ((b[0] ?? 0) > (a[0] ?? 0) ? b : a))).reduce((a, b) => ((b[0] ?? 0) < (a[0] ?? 0) ? b : a)) : decide(d).v,
    );
    fit = fitLogistic(
      chosen.map(std),
      train.map((d) => d.row.label),
      { l2: L2, sampleWeights: train.map(rowWeight) },
    );
    const trainScores = train.map((d) => decide(d).p);
    console.log(`iteration ${it + 1}: train AUROC ${auroc(trainScores, train.map((d) => d.row.label)).toFixed(4)}`);
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
    bias: +fit.bias.toFixed(6),
    threshold: +threshold.toFixed(6),
    fit: { sets: [...perSet.keys()], rows: train.length, heldOut: held.length, l2: L2, iterations: ITERATIONS, settings: { topK: DEFAULT_SETTINGS.topK, tokenBudget: DEFAULT_SETTINGS.tokenBudget } },
  };
  writeFileSync(join(ROOT, "src/nli/offline/weights.json"), JSON.stringify(weights, null, 2) + "\n");

  const lines: string[] = [];
  lines.push("# Offline backend: fit report", "");
  lines.push(`Generated by \`npm run fit:offline\` on ${new Date().toISOString().slice(0, 10)} from the dev sets in \`${devDir().replace(ROOT, ".")}\`. Model version \`${version}\`.`, "");
  lines.push("Fit on the permissively licensed sets only (ANLI is CC BY-NC: measured in `npm run bench:quality`, never fit). Rows are split 80/20 by a hash of their id; the weights are fit on the 80% and every metric below marked *held out* is on the other 20%. Each source (WiCE, BEGIN, HaluEval, SummEdits) gets equal total weight. Scores are the pipeline's answer score: min over claims of max over the claim's top-k windows.", "");
  lines.push("## Features and weights", "", "Weights apply to standardised features (value − mean) / scale.", "", "| feature | mean | scale | weight |", "|---|---|---|---|");
  FEATURE_NAMES.forEach((n, k) => lines.push(`| ${n} | ${mean[k]?.toFixed(3)} | ${scale[k]?.toFixed(3)} | ${fit.weights[k]?.toFixed(3)} |`));
  lines.push(`| (bias) | | | ${fit.bias.toFixed(3)} |`, "");
  lines.push(`Shipped threshold: **${threshold.toFixed(3)}** (maximum balanced accuracy on the fit rows).`, "");
  lines.push("## Metrics per set", "", "| set | train rows | train AUROC | held-out rows | held-out AUROC | held-out balanced accuracy |", "|---|---|---|---|---|---|");
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
