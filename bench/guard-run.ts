/**
 * bench:guard's measurements (bench/guard.ts prints them): guard() alone per tier, as a report
 * object, so that a test can run a small one in process.
 */
import { quantile } from "./closed-loop.ts";
import type { GuardCase } from "./guard-workload.ts";
import { caseWords, guardCase } from "./guard-workload.ts";
import type { GuardTier } from "./guard-tiers.ts";
import { offlineTier, onnxTier } from "./guard-tiers.ts";
import type { Monitor } from "../src/sdk/types.ts";

/** What to run. */
export interface GuardBenchOptions {
  /** Seed of the workload (bench/guard-workload.ts). */
  readonly seed: number;
  /** Answers guarded one after another by guard() alone, per tier (half grounded, half invented). */
  readonly answers: number;
  /** Answers guarded before timing, per tier and part (never timed, never reused). */
  readonly warmup: number;
  /** budgetMs of every check: high, so that nothing is given up and the figure is the decision's time. */
  readonly budgetMs: number;
  /** "offline", "onnx". */
  readonly tiers: readonly string[];
  /** The onnx graph's variants ("int8", "fp32"), one tier each. */
  readonly variants: readonly string[];
}

/** p50, p99 and max of a set of ms figures, and how many there are. */
export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly n: number;
}

export const spread = (xs: readonly number[]): Spread => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: xs.length > 0 ? Math.max(...xs) : Number.NaN, n: xs.length });

/** guard() alone on one tier. */
export interface GuardAloneRow {
  readonly tier: string;
  /** ms from the call to the decision, as the caller sees it. */
  readonly all: Spread;
  readonly grounded: Spread;
  readonly invented: Spread;
  /** Model calls (entailment pairs judged) an answer, mean. */
  readonly callsMean: number;
  /** Decisions by case kind: "grounded:pass", "invented:block", "invented:bypass:budget_exceeded", … */
  readonly decisions: Record<string, number>;
}

/** The whole report. */
export interface GuardBenchReport {
  /** What each tier is (the graph and its size on onnx). */
  readonly tiers: Record<string, string>;
  readonly guard: readonly GuardAloneRow[];
}

/** Case indexes of each part (each part's own, so no case is scored twice in a run). */
const GUARD_BASE = 0;
const WARMUP_BASE = 1_000_000;

const casesOf = (seed: number, base: number, n: number): GuardCase[] => Array.from({ length: n }, (_, k) => guardCase(seed, base + k));

/** A decision's key in GuardAloneRow.decisions. */
const decisionKey = (c: GuardCase, d: Awaited<ReturnType<Monitor["guard"]>>): string => `${c.kind}:${d.decision}${d.decision === "bypass" ? `:${d.reason}` : ""}`;

async function guardAlone(o: GuardBenchOptions, monitor: Monitor, tier: string): Promise<GuardAloneRow> {
  for (const c of casesOf(o.seed, WARMUP_BASE, o.warmup)) await monitor.guard({ route: "/bench/warmup", ...c }, { budgetMs: o.budgetMs });
  const ms: Record<GuardCase["kind"], number[]> = { grounded: [], invented: [] };
  const decisions: Record<string, number> = {};
  let calls = 0;
  for (const c of casesOf(o.seed, GUARD_BASE, o.answers)) {
    const t0 = performance.now();
    const d = await monitor.guard({ route: "/bench/guard", question: c.question, context: c.context, answer: c.answer }, { budgetMs: o.budgetMs });
    ms[c.kind].push(performance.now() - t0);
    const key = decisionKey(c, d);
    decisions[key] = (decisions[key] ?? 0) + 1;
    calls += ("evaluation" in d ? d.evaluation?.entailment?.calls : undefined) ?? 0;
  }
  return { tier, all: spread([...ms.grounded, ...ms.invented]), grounded: spread(ms.grounded), invented: spread(ms.invented), callsMean: calls / Math.max(1, o.answers), decisions };
}

function tiersOf(o: GuardBenchOptions): GuardTier[] {
  const out: GuardTier[] = [];
  const words = caseWords([...casesOf(o.seed, GUARD_BASE, o.answers), ...casesOf(o.seed, WARMUP_BASE, o.warmup)]);
  for (const t of o.tiers) {
    if (t === "offline") out.push(offlineTier());
    else if (t === "onnx") for (const v of o.variants) out.push(onnxTier(v, words));
    else throw new Error(`unknown tier ${t} (offline, onnx)`);
  }
  return out;
}

/** Runs every part on every tier, one tier at a time, each on a monitor of its own. */
export async function runGuardBench(o: GuardBenchOptions): Promise<GuardBenchReport> {
  const guard: GuardAloneRow[] = [];
  const tiers: Record<string, string> = {};
  for (const tier of tiersOf(o)) {
    tiers[tier.name] = tier.detail;
    const monitor = await tier.monitor();
    try {
      guard.push(await guardAlone(o, monitor, tier.name));
    } finally {
      await monitor.shutdown(1_000);
    }
  }
  return { tiers, guard };
}
