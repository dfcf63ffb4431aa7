import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startupBanner } from "../../src/cli/serve.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { readCalibrationFile, withCalibratedRelevance } from "../../src/config/calibration-file.ts";
import { resolveScoreSources } from "../../src/config/score-options.ts";
import { OFFLINE_RELEVANCE_THRESHOLDS } from "../../src/nli/offline/backend.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// Three topics, each with a question, its document, a grounded answer and an ungrounded one.
const TOPICS = [
  { q: "How long do I have to return an unopened item?", doc: "Returns: unopened items may be returned within 30 days of delivery for a full refund.", good: "Unopened items may be returned within 30 days of delivery.", bad: "Items may be returned within 90 days in any condition." },
  { q: "Is standard shipping free?", doc: "Shipping: standard shipping is free on orders over $50; express shipping costs $15.", good: "Standard shipping is free on orders over $50.", bad: "International shipping is free to every country in Europe." },
  { q: "What does the electronics warranty cover?", doc: "Warranty: electronics have a one-year warranty covering manufacturing defects.", good: "Electronics have a one-year warranty covering manufacturing defects.", bad: "The warranty covers accidental damage, theft and water damage for ten years." },
  { q: "Can I pick up my order in a store?", doc: "Pickup: orders can be collected from any of our 40 stores two hours after purchase.", good: "Orders can be collected from any store two hours after purchase.", bad: "Store pickup is only available in Berlin on weekends." },
];

function labelledSet(rows: number, opts: { questions: boolean; extra?: readonly object[] }): string {
  const out: unknown[] = [];
  for (let i = 0; i < rows; i++) {
    const t = TOPICS[i % TOPICS.length] ?? TOPICS[0];
    const grounded = Math.floor(i / TOPICS.length) % 2 === 0;
    out.push({ id: `r${i}`, ...(opts.questions ? { question: t?.q } : {}), context: [t?.doc], answer: grounded ? t?.good : t?.bad, label: grounded ? 1 : 0 });
  }
  const path = join(tempDir(), "labelled.jsonl");
  writeFileSync(path, [...out, ...(opts.extra ?? [])].map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

interface RelevanceSection {
  context: { threshold: number | null; reason?: string; swappedRows: number; labelledCauses: number; relevant: number; irrelevant: number };
  answer: { threshold: number | null; reason?: string; pairs: number };
}

describe("groundwatch calibrate: relevance thresholds", () => {
  it("fits both thresholds with their evidence, and the SDK's scorer built from the file uses them unless one is set", async () => {
    const set = labelledSet(32, { questions: true, extra: [{ id: "c1", question: TOPICS[0]?.q, context: [TOPICS[1]?.doc], answer: TOPICS[0]?.bad, label: 0, cause: "retrieval" }] });
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
    expect(run.stderr).not.toContain("WARNING: relevance");
    expect(run.stdout).toMatch(/context relevance threshold \d\.\d{4} from 32 own vs swapped contexts and 1 rows labelled with a cause: balanced accuracy [\d.]+%, AUROC/);
    expect(run.stdout).toMatch(/answer relevance threshold \d\.\d{4} from 33 own vs off-topic answers/);
    const relevance = (JSON.parse(readFileSync(out, "utf8")) as { relevance: RelevanceSection }).relevance;
    expect(relevance.context).toMatchObject({ swappedRows: 32, labelledCauses: 1, relevant: 32, irrelevant: 33 });
    expect(relevance.context.threshold).toEqual(expect.any(Number));
    expect(relevance.answer.threshold).toEqual(expect.any(Number));

    const resolved = resolveMonitorOptions({ env: {}, calibrationFile: out });
    const scorer = await createScorer({}, { resolved: resolved.score });
    try {
      expect(scorer.relevanceThresholds).toEqual({ context: relevance.context.threshold, answer: relevance.answer.threshold });
    } finally {
      await scorer.close();
    }
    // Explicit beats the calibration, one threshold at a time; serve's banner says which is in force.
    const env = { GROUNDWATCH_CONTEXT_RELEVANCE_THRESHOLD: "0.9" };
    const explicit = resolveMonitorOptions({ env, calibrationFile: out });
    expect(explicit.score).toMatchObject({ contextRelevanceThreshold: 0.9, answerRelevanceThreshold: relevance.answer.threshold });
    const banner = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor: explicit, env, logEvaluations: false });
    expect(banner).toContain(`context 0.9000 (set), answer ${(relevance.answer.threshold ?? 0).toFixed(4)} (calibration)`);
  });

  it("fits the context threshold from the answers themselves on a set without questions, and says the answer threshold was not fitted", async () => {
    const set = labelledSet(24, { questions: false });
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/context relevance threshold \d\.\d{4} from 24 own vs swapped contexts:/);
    expect(run.stdout).toContain(`answer relevance threshold: not fitted, too few examples to fit a threshold: 0 relevant and 0 not, at least 20 of each needed; the backend's ${OFFLINE_RELEVANCE_THRESHOLDS.answer} stays in force`);
    const cal = readCalibrationFile(out);
    expect(cal.relevanceThresholds?.context).toEqual(expect.any(Number));
    expect(cal.relevanceThresholds?.answer).toBeUndefined();
  });

  it("keeps the backend's defaults on a set too small to fit, and says so", async () => {
    const set = labelledSet(8, { questions: true });
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
    expect(run.stdout).toContain(`context relevance threshold: not fitted, too few examples to fit a threshold: 8 relevant and 8 not, at least 20 of each needed; the backend's ${OFFLINE_RELEVANCE_THRESHOLDS.context} stays in force`);
    const relevance = (JSON.parse(readFileSync(out, "utf8")) as { relevance: RelevanceSection }).relevance;
    expect(relevance.context.threshold).toBeNull();
    expect(relevance.answer.threshold).toBeNull();
    const resolved = resolveMonitorOptions({ env: {}, calibrationFile: out });
    expect(resolved.score.contextRelevanceThreshold).toBeUndefined();
    expect(startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env: {} }), monitor: resolved, env: {}, logEvaluations: false })).toContain(
      `context ${OFFLINE_RELEVANCE_THRESHOLDS.context.toFixed(4)} (backend default), answer ${OFFLINE_RELEVANCE_THRESHOLDS.answer.toFixed(4)} (backend default)`,
    );
    const scorer = await createScorer({}, { resolved: resolved.score });
    try {
      expect(scorer.relevanceThresholds).toEqual(OFFLINE_RELEVANCE_THRESHOLDS);
    } finally {
      await scorer.close();
    }
  });

  // Issue 36: calibrate refused "cause": "citation" rows that eval accepts.
  it("accepts every cause groundwatch names, fits relevance only from retrieval and generation, and refuses another word naming the line", async () => {
    const extra = ["citation", "mixed", "unknown"].map((cause, i) => ({ id: `x${i}`, context: ["Refunds are issued within 5 days."], answer: "Refunds are issued within 90 days [3].", label: 0, cause }));
    const set = labelledSet(4, { questions: false, extra });
    const out = join(tempDir(), "c.json");
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
    expect(run.stderr).not.toContain('"cause" must be');
    const cal = JSON.parse(readFileSync(out, "utf8")) as { comparison: { classes: Array<{ name: string; rows: number }> } };
    expect(cal.comparison.classes.map((c) => c.name)).toEqual(expect.arrayContaining(["citation", "mixed", "unknown"]));
    const bad = labelledSet(4, { questions: false, extra: [{ id: "x", context: ["a"], answer: "b", label: 0, cause: "hallucination" }] });
    const refused = await runCli(["calibrate", "--set", bad, "--out", join(tempDir(), "c.json"), "--backend", "offline"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('line 5: "cause" must be one of "retrieval", "generation", "citation", "mixed", "unknown" when present (got "hallucination")');
  });
});

describe("calibration.json's relevance thresholds", () => {
  const write = (relevance: unknown): string => {
    const path = join(tempDir(), "calibration.json");
    writeFileSync(path, JSON.stringify({ threshold: 0.5, referenceScores: [0.5], relevance }));
    return path;
  };

  it("are read where fitted, and a threshold out of range is a ConfigError naming the field", () => {
    expect(readCalibrationFile(write({ context: { threshold: 0.3 }, answer: { threshold: null, reason: "too few" } })).relevanceThresholds).toEqual({ context: 0.3 });
    expect(readCalibrationFile(write({ context: { threshold: null }, answer: { threshold: null } })).relevanceThresholds).toBeUndefined();
    expect(() => readCalibrationFile(write({ context: { threshold: 1.5 } }))).toThrow(/relevance\.context\.threshold/);
  });

  it("apply only where no threshold was set (eval and the SDK share withCalibratedRelevance)", () => {
    const set = resolveScoreSources({ answerRelevanceThreshold: 0.8 }, { env: {} }).values;
    expect(withCalibratedRelevance(set, { relevanceThresholds: { context: 0.3, answer: 0.2 } })).toMatchObject({ contextRelevanceThreshold: 0.3, answerRelevanceThreshold: 0.8 });
    expect(withCalibratedRelevance(set, undefined)).toBe(set);
  });
});
