import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rng } from "../../src/core/rng.ts";
import type { SpoolRecord } from "../../src/review/record.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { createCalibrationState } from "../../src/sdk/calibration-state.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { createRouteTallies } from "../../src/sdk/route-tally.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { captureWarnings } from "../helpers/diag.ts";
import { alarmBound } from "../helpers/drift-traffic.ts";
import { reviewLabel, writeSpool } from "../helpers/review-spool.ts";

/**
 * Issue 36: `groundwatch review export` then `calibrate --set` made the review set (every flagged
 * answer, a sample of grounded ones, every route pooled) the drift reference of each route, and
 * GroundwatchScoreDrift fired on unchanged traffic. Here two routes' answers, scored by the offline
 * backend, are spooled as the monitor spools them (flagged: all; grounded: 5%), reviewed (every
 * flagged answer, the older 60% of the grounded sample, as the review queue leaves it when a
 * reviewer stops early), exported, calibrated, and the calibration.json read by the SDK, whose
 * drift (calibration state → per-route trackers) then compares windows of each route's traffic.
 */

const FACTS = [
  "Unopened items may be returned within 30 days of delivery for a full refund.",
  "Standard shipping is free on orders over $50.",
  "Express shipping costs $15 and arrives in two business days.",
  "Electronics have a one-year warranty covering manufacturing defects.",
  "Gift cards cannot be exchanged for cash.",
  "Orders placed before noon ship the same day.",
  "The store is open from nine to six on weekdays.",
  "Customers can track their parcel with the number in the confirmation email.",
];
const WRONG = [
  "Items may be returned within 90 days in any condition.",
  "International shipping is free to every country in Europe.",
  "The warranty covers accidental damage and theft for ten years.",
  "Gift cards can be exchanged for cash at any branch.",
  "The store is open on Sundays until midnight.",
];
const FILLER = ["quickly", "usually", "often", "premium", "members", "online", "partner", "local", "seasonal", "certain"];
const CONTEXT = FACTS.join(" ");

/** How a route's answers are written: how often a sentence is reworded, and how often a wrong sentence is added. */
interface Style {
  readonly reworded: number;
  readonly wrong: number;
}
const ROUTE_STYLES: Readonly<Record<string, Style>> = { "/faq": { reworded: 0.4, wrong: 0.1 }, "/claims": { reworded: 0.8, wrong: 0.45 } };

function answerOf(style: Style, random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const sentences = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
    const words = pick(FACTS).split(" ");
    if (random() < style.reworded) words.splice(1 + Math.floor(random() * (words.length - 1)), 0, pick(FILLER));
    return words.join(" ");
  });
  if (random() < style.wrong) sentences.push(pick(WRONG));
  return sentences.join(" ");
}

/** A route's traffic: distinct answers with the offline backend's score and verdict; the route's answers are drawn uniformly from it. */
interface Scored {
  readonly answer: string;
  readonly score: number;
  readonly verdict: "grounded" | "ungrounded";
}

async function bankOf(style: Style, size: number, random: () => number): Promise<Scored[]> {
  const scorer = await createScorer({ backend: "offline" });
  try {
    const bank: Scored[] = [];
    while (bank.length < size) {
      const answer = answerOf(style, random);
      const r = await scorer.score({ answer, context: [CONTEXT] });
      if (r.verdict !== "unscorable" && r.score !== null) bank.push({ answer, score: r.score, verdict: r.verdict });
    }
    return bank;
  } finally {
    await scorer.close();
  }
}

const RATE = 0.05;
const REVIEWED_GROUNDED = 0.6;

/** A spool of `answers` answers per route as the monitor keeps them, labelled as reviewers leave it: every flagged answer, the older 60% of the grounded sample. */
function reviewedSpool(dir: string, banks: ReadonlyMap<string, readonly Scored[]>, answers: number, random: () => number): string {
  const records: SpoolRecord[] = [];
  const start = Date.parse("2026-11-01T00:00:00.000Z");
  for (const [route, bank] of banks) {
    for (let i = 0; i < answers; i++) {
      const a = bank[Math.floor(random() * bank.length)] as Scored;
      const kind = a.verdict === "ungrounded" ? "flagged" : random() < RATE ? "grounded_sample" : undefined;
      if (!kind) continue;
      const id = `${route.slice(1)}-${i}`;
      records.push({
        v: 1,
        id,
        kind,
        time: new Date(start + i * 60_000).toISOString(),
        route,
        traceId: String(records.length + 1).padStart(32, "0"),
        spanId: "00000000000000aa",
        replica: "r1",
        question: "What does the store's policy say?",
        answer: a.answer,
        documents: [{ id: "policy", text: CONTEXT }],
        verdict: a.verdict,
        score: a.score,
        threshold: 0.5,
        claims: [],
        backend: { name: "offline", version: "1", tier: "triage" },
        sampleRate: kind === "flagged" ? 1 : RATE,
      });
    }
  }
  const labels = [...banks.keys()].flatMap((route) => {
    const flagged = records.filter((r) => r.route === route && r.kind === "flagged");
    const grounded = records.filter((r) => r.route === route && r.kind === "grounded_sample");
    return [...flagged.map((r) => reviewLabel(r, "ann", 0)), ...grounded.slice(0, Math.ceil(REVIEWED_GROUNDED * grounded.length)).map((r) => reviewLabel(r, "ann", 1))];
  });
  return writeSpool(dir, records, labels);
}

/** Alarms (p < 0.01) over `windows` independent windows of `windowSize` scores drawn from `live`, on `route`, as the monitor's drift runs them. */
function alarmsOf(options: MonitorOptions, route: string, live: readonly Scored[], windows: number, windowSize: number, random: () => number): number {
  const resolved = resolveMonitorOptions({ env: {}, scoring: { backend: "offline" }, ...options, drift: { windowSize, minScores: 20, ...options.drift } });
  const state = createCalibrationState(resolved, "offline");
  let alarms = 0;
  for (let w = 0; w < windows; w++) {
    // A fresh tracker per window, so that windows are independent.
    const tallies = createRouteTallies({ maxRoutes: 10, preset: [], driftWindowSize: windowSize, driftMinScores: 20, driftReference: (r) => state.driftReference(r) });
    for (let i = 0; i < windowSize; i++) tallies.addScore(route, (live[Math.floor(random() * live.length)] as Scored).score);
    const p = tallies.drift.get(route)?.result()?.pValue;
    if (p === undefined) throw new Error(`no drift verdict on ${route}`);
    if (p < 0.01) alarms++;
  }
  return alarms;
}

describe("a drift reference from a review export: review export → calibrate → calibration.json → the SDK's drift", () => {
  it("keeps a reference per route, weighted by the rate each answer was sampled at; unchanged traffic raises drift at no more than the nominal rate, shifted traffic does, and the old pooled reference did", { timeout: 300_000 }, async () => {
    captureWarnings();
    const random = rng(36);
    const banks = new Map<string, Scored[]>();
    for (const [route, style] of Object.entries(ROUTE_STYLES)) banks.set(route, await bankOf(style, 300, random));
    const REFERENCES = 10;
    const WINDOWS_EACH = 20;
    const WINDOW = 100;
    const unchanged = new Map<string, number>();
    const pooled = new Map<string, number>();
    let shifted = 0;
    for (let k = 0; k < REFERENCES; k++) {
      const dir = tempDir();
      const spool = reviewedSpool(join(dir, "spool"), banks, 1500, random);
      const set = join(dir, "reviewed.jsonl");
      const exported = await runCli(["review", "export", "--dir", spool, "--out", set]);
      expect(exported.code, exported.stderr).toBe(0);
      const calibrationFile = join(dir, "calibration.json");
      const cal = await runCli(["calibrate", "--set", set, "--backend", "offline", "--out", calibrationFile]);
      expect(cal.code, cal.stderr).toBeLessThan(2);
      expect(cal.stdout).toMatch(/drift reference: per route, each reviewed answer weighted by the rate it was sampled at \(\/claims: \d+ rows, worth \d+ answers; \/faq: \d+ rows, worth \d+ answers\)/);
      const file = JSON.parse(readFileSync(calibrationFile, "utf8")) as { referenceScores: number[]; driftReference: { routes: Array<{ route: string; scores: number[]; weights: number[] }> } };
      // An older groundwatch reads no pooled reference (too few scores: it runs on each route's first window).
      expect(file.referenceScores).toEqual([]);
      const status = resolveMonitorOptions({ env: {}, calibrationFile, scoring: { backend: "offline" } }).drift.referenceStatus;
      expect(status).toMatchObject({ source: "calibration", perRoute: { routes: [{ route: "/claims" }, { route: "/faq" }], refused: [] } });
      // What calibrate wrote before: every scored row of the set, pooled, unweighted.
      const old = join(dir, "old-calibration.json");
      writeFileSync(old, JSON.stringify({ ...file, driftReference: undefined, referenceScores: file.driftReference.routes.flatMap((r) => r.scores) }));
      for (const [route, bank] of banks) {
        unchanged.set(route, (unchanged.get(route) ?? 0) + alarmsOf({ calibrationFile }, route, bank, WINDOWS_EACH, WINDOW, random));
        pooled.set(route, (pooled.get(route) ?? 0) + alarmsOf({ calibrationFile: old }, route, bank, WINDOWS_EACH, WINDOW, random));
      }
      // /faq's answers become as poorly grounded as /claims' are.
      shifted += alarmsOf({ calibrationFile }, "/faq", banks.get("/claims") ?? [], WINDOWS_EACH, WINDOW, random);
    }
    const windows = REFERENCES * WINDOWS_EACH;
    for (const route of banks.keys()) {
      expect(unchanged.get(route), route).toBeLessThanOrEqual(alarmBound(windows, 0.01));
      expect(pooled.get(route), route).toBeGreaterThanOrEqual(0.9 * windows);
    }
    expect(shifted).toBeGreaterThanOrEqual(0.9 * windows);
  });
});
