/**
 * bench:guard's measurements (bench/guard.ts prints them): guard() alone, and streamed answers read
 * unguarded and in each mode, per tier, as a report object, so that a test can run a small one in process.
 */
import { quantile } from "./closed-loop.ts";
import type { StreamConfig, StreamRun } from "./guard-stream.ts";
import { STREAM_CONFIGS, runStream } from "./guard-stream.ts";
import type { GuardCase } from "./guard-workload.ts";
import { caseWords, guardCase } from "./guard-workload.ts";
import type { GuardTier } from "./guard-tiers.ts";
import { offlineTier, onnxTier } from "./guard-tiers.ts";
import type { GuardDecision } from "../src/sdk/guard-types.ts";
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
  /** Streamed answers per way of reading them (unguarded and each mode), per tier; 0 skips streaming. */
  readonly streamAnswers: number;
  /** ms between the source's deltas (one token each). */
  readonly tokenMs: number;
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

/** Streamed answers of one kind, read one way, on one tier (ms from each stream's start). */
export interface StreamRow {
  readonly tier: string;
  readonly config: StreamConfig;
  /** The answers' kind; "any" on a tier whose verdicts are forced to pass (both kinds take the grounded path). */
  readonly kind: GuardCase["kind"] | "any";
  readonly streams: number;
  readonly deltasMean: number;
  /** Time to first text, and what the guard added to it (first text − the source's first delta). */
  readonly ttft: Spread;
  readonly ttftAdded: Spread;
  /** Time to last text, and what the guard added at the end (last text − the source's last delta). */
  readonly last: Spread;
  readonly lastAdded: Spread;
  /** Each release or correct event's wait after the source emitted its last character. */
  readonly hold: Spread;
  /** Each retraction's wait after the source emitted the retracted text's last character. */
  readonly retract: Spread;
  readonly checksMean: number;
  /** Decisions and endings ("pass complete", "block blocked", …). */
  readonly outcomes: Record<string, number>;
  /** Streams whose user got the answer byte for byte; streams whose user got a figure the context does not hold. */
  readonly unchanged: number;
  readonly leaked: number;
}

/** The whole report. */
export interface GuardBenchReport {
  /** What each tier is (the graph and its size on onnx), and whether its verdicts are its own. */
  readonly tiers: Record<string, { readonly detail: string; readonly verdicts: GuardTier["verdicts"] }>;
  readonly guard: readonly GuardAloneRow[];
  readonly streams: readonly StreamRow[];
}

/** Case indexes of each part (each part's own, so no case is scored twice in a run). */
const GUARD_BASE = 0;
const STREAM_BASE = 100_000;
const WARMUP_BASE = 1_000_000;

/**
 * The case of stream `j` read per config `m`: kinds alternate with j, and every config gets answers
 * of its own (no cache warmed by another) of the same lengths (3, 4, 5, 6, 3, … sentences, two by
 * two), so that the configs' times compare.
 */
const streamCase = (seed: number, j: number, m: number): GuardCase => guardCase(seed, STREAM_BASE + 2 * (j * STREAM_CONFIGS.length + m) + (j % 2), 3 + (Math.floor(j / 2) % 4));

const casesOf = (seed: number, base: number, n: number): GuardCase[] => Array.from({ length: n }, (_, k) => guardCase(seed, base + k));

/** A decision's key in GuardAloneRow.decisions. */
const decisionKey = (c: GuardCase, d: GuardDecision): string => `${c.kind}:${d.decision}${d.decision === "bypass" ? `:${d.reason}` : ""}`;

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

/** Streams answer j read every way, the ways rotated with j (so drift over the run falls on each alike). */
async function streams(o: GuardBenchOptions, monitor: Monitor, tier: GuardTier): Promise<StreamRow[]> {
  const runs: StreamRun[] = [];
  const n = STREAM_CONFIGS.length;
  for (let j = 0; j < o.streamAnswers; j++) {
    for (let r = 0; r < n; r++) {
      const m = (j + r) % n;
      runs.push(await runStream(monitor, streamCase(o.seed, j, m), STREAM_CONFIGS[m] as StreamConfig, o.tokenMs, o.budgetMs));
    }
  }
  const rows: StreamRow[] = [];
  for (const config of STREAM_CONFIGS) {
    for (const kind of tier.verdicts === "real" ? (["grounded", "invented"] as const) : (["any"] as const)) {
      const rs = runs.filter((x) => x.config === config && (kind === "any" || x.kind === kind));
      if (rs.length === 0) continue;
      const outcomes: Record<string, number> = {};
      for (const x of rs) outcomes[`${x.decision} ${x.ending}`] = (outcomes[`${x.decision} ${x.ending}`] ?? 0) + 1;
      rows.push({
        tier: tier.name,
        config,
        kind,
        streams: rs.length,
        deltasMean: rs.reduce((a, x) => a + x.deltas, 0) / rs.length,
        ttft: spread(rs.map((x) => x.firstTextMs)),
        ttftAdded: spread(rs.map((x) => x.firstTextMs - x.sourceFirstMs)),
        last: spread(rs.map((x) => x.lastTextMs)),
        lastAdded: spread(rs.map((x) => x.lastTextMs - x.sourceLastMs)),
        hold: spread(rs.flatMap((x) => x.holdMs)),
        retract: spread(rs.flatMap((x) => x.retractMs)),
        checksMean: rs.reduce((a, x) => a + x.checks, 0) / rs.length,
        outcomes,
        unchanged: rs.filter((x) => x.unchanged).length,
        leaked: rs.filter((x) => x.leaked).length,
      });
    }
  }
  return rows;
}

function tiersOf(o: GuardBenchOptions): GuardTier[] {
  const out: GuardTier[] = [];
  const streamed = Array.from({ length: o.streamAnswers }, (_, j) => STREAM_CONFIGS.map((_c, m) => streamCase(o.seed, j, m))).flat();
  const words = caseWords([...casesOf(o.seed, GUARD_BASE, o.answers), ...casesOf(o.seed, WARMUP_BASE, o.warmup), ...streamed]);
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
  const streamRows: StreamRow[] = [];
  const tiers: GuardBenchReport["tiers"] = {};
  for (const tier of tiersOf(o)) {
    tiers[tier.name] = { detail: tier.detail, verdicts: tier.verdicts };
    const monitor = await tier.monitor();
    try {
      guard.push(await guardAlone(o, monitor, tier.name));
      streamRows.push(...(o.streamAnswers > 0 ? await streams(o, monitor, tier) : []));
    } finally {
      await monitor.shutdown(1_000);
    }
  }
  return { tiers, guard, streams: streamRows };
}
