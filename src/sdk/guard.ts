/**
 * What `Monitor.guard()` does with one call (docs/guard.md): copy the host's input (inside the
 * guard, once, as observe() does), score it at once on the monitor's scoring workers — not sampled,
 * not queued behind monitoring work, its inference ranked before every observation's — within the
 * budget, and decide: pass, block, correct, or bypass with its reason. At the budget the scoring is
 * given up (the worker withdraws its queued inference) and the decision is a bypass; so is a
 * shutdown. Nothing throws into the host, and every decision goes to `onDecision` (the tally of
 * MonitorStats.guard, and the guard telemetry: telemetry/record.ts recordGuardDecision).
 */
import { diag } from "@opentelemetry/api";
import { contextChars } from "../core/context.ts";
import type { EvaluationSummary } from "../evaluation/types.ts";
import { markRanges, mergeRanges, removeRanges } from "./guard-correction.ts";
import type { GuardOptions, ResolvedGuardOptions } from "./guard-options.ts";
import { resolveGuardOptions } from "./guard-options.ts";
import type { GuardBypass, GuardBypassReason, GuardCounts, GuardDecision, GuardStats } from "./guard-types.ts";
import { GUARD_BYPASS_REASONS } from "./guard-types.ts";
import { copyInput, readRouting } from "./input.ts";
import type { ScoringPool } from "./scoring-pool.ts";
import type { ObserveInput } from "./types.ts";

export interface GuardDeps {
  /** The monitor's clock, ms. */
  readonly now: () => number;
  /** The monitor's resolved guard defaults (MonitorOptions.guard over the built-in ones). */
  readonly defaults: ResolvedGuardOptions;
  /** The route label a decision is counted under (capped: Monitor.routeLabel). */
  readonly routeLabel: (route: string) => string;
  /** False once shutdown has begun: every check is then a bypass, reason closed. */
  readonly accepting: () => boolean;
  readonly pool: Pick<ScoringPool, "run" | "state" | "ready" | "failureReason">;
  /** The scorer's input limits: an input over them is a bypass (over_limits) without scoring. */
  readonly limits: { readonly maxAnswerChars: number; readonly maxContextChars: number; readonly maxDocuments: number };
  /** Called with every decision (counted, and recorded as a gen_ai.guardrail.result event and the guard metrics). An exception it throws is caught. */
  readonly onDecision: (decision: GuardDecision) => void;
}

export interface Guard {
  check(input: ObserveInput, options?: GuardOptions): Promise<GuardDecision>;
  /**
   * The decision check() would make, NOT given to onDecision (not counted, not recorded): for a
   * caller that records one decision of its own over several checks (a guarded stream). An abort of
   * `signal` gives the check up at once: a bypass, reason cancelled.
   */
  assess(input: ObserveInput, options: GuardOptions | undefined, signal: AbortSignal): Promise<GuardDecision>;
  /** Ends every check in flight now, as a bypass with reason closed (their scoring given up). */
  close(): void;
}

/** How the race between the scoring, the budget and a shutdown ended. */
type Outcome = { readonly kind: "result"; readonly summary: EvaluationSummary } | { readonly kind: "error"; readonly error: unknown } | { readonly kind: "budget" } | { readonly kind: "closed" } | { readonly kind: "cancelled" };

/** A pool failure reason (ScoringPool.failureReason) as a bypass reason. */
const BYPASS_BY_FAILURE: Readonly<Record<string, GuardBypassReason>> = { shutdown: "closed", scorer_unavailable: "scorer_unavailable", timeout: "budget_exceeded", aborted: "budget_exceeded" };

export function createGuard(deps: GuardDeps): Guard {
  const { now, pool, limits } = deps;
  /** Checks in flight: a shutdown ends them. */
  const inFlight = new Set<() => void>();

  const recorded = (decision: GuardDecision): GuardDecision => {
    try {
      deps.onDecision(decision);
    } catch (error) {
      diag.error(`groundwatch: counting a guard decision failed: ${(error as Error).message}`);
    }
    return decision;
  };

  /** Scores the copy within what is left of the budget; a shutdown or the budget ends the wait and gives the scoring up. */
  const score = (observation: Parameters<ScoringPool["run"]>[0], remainingMs: number, cancel: AbortSignal | undefined): Promise<Outcome> => {
    const controller = new AbortController();
    return new Promise<Outcome>((resolve) => {
      const cancelOne = (): void => end({ kind: "cancelled" });
      const end = (outcome: Outcome): void => {
        clearTimeout(timer);
        inFlight.delete(closeOne);
        cancel?.removeEventListener("abort", cancelOne);
        // Whatever ended the wait, the scoring stops: queued inference withdrawn, the worker told.
        controller.abort();
        resolve(outcome);
      };
      const closeOne = (): void => end({ kind: "closed" });
      const timer = setTimeout(() => end({ kind: "budget" }), Math.max(0, remainingMs));
      inFlight.add(closeOne);
      if (cancel?.aborted) return end({ kind: "cancelled" });
      cancel?.addEventListener("abort", cancelOne, { once: true });
      const run = async (): Promise<EvaluationSummary> => {
        // Workers still starting: wait for them inside the budget.
        if (pool.state() === "starting") await pool.ready();
        return pool.run(observation, controller.signal);
      };
      run().then(
        (summary) => end({ kind: "result", summary }),
        (error: unknown) => end({ kind: "error", error }),
      );
    });
  };

  const check = async (input: ObserveInput, options: GuardOptions | undefined, decided: (d: GuardDecision) => GuardDecision, cancel?: AbortSignal): Promise<GuardDecision> => {
    const started = now();
    let opts = deps.defaults;
    let route = "unknown";
    let answer = "";
    const base = (): { route: string; durationMs: number } => ({ route, durationMs: Math.max(0, now() - started) });
    const bypass = (reason: GuardBypassReason, detail: string, extra: Partial<Pick<GuardBypass, "evaluation" | "unscorableReason">> = {}): GuardDecision =>
      decided({ decision: "bypass", reason, detail, outcome: opts.onFail, text: opts.onFail === "block" ? opts.replacement : answer, ...(opts.onFail === "block" ? { replacement: opts.replacement } : {}), ...extra, ...base() });
    try {
      const routing = readRouting(input);
      route = deps.routeLabel(routing.route ?? "unknown");
      // The input first: a bypass for bad options still has the answer to send when onFail is pass.
      const copied = routing.ok ? copyInput(input as object, routing) : routing;
      if (copied.ok) answer = copied.observation.answer;
      try {
        opts = resolveGuardOptions(options, deps.defaults);
      } catch (error) {
        return bypass("invalid_input", `guard options: ${(error as Error).message}`);
      }
      if (!copied.ok) return bypass("invalid_input", `"${copied.field}": ${copied.why}`);
      const { observation } = copied;
      if (!deps.accepting()) return bypass("closed", "the monitor was shut down");
      const over = overLimits(observation.answer.length, observation.context, limits);
      if (over) return bypass("over_limits", over);
      if (pool.state() === "down") return bypass("scorer_unavailable", "no scoring worker is running (one is being replaced)");
      const outcome = await score({ ...observation, guard: true }, opts.budgetMs - (now() - started), cancel);
      if (outcome.kind === "budget") return bypass("budget_exceeded", `no result within ${opts.budgetMs} ms; the check was given up`);
      if (outcome.kind === "closed") return bypass("closed", "the monitor was shut down during the check");
      if (outcome.kind === "cancelled") return bypass("cancelled", "the check was given up by its caller");
      if (outcome.kind === "error") {
        const failure = pool.failureReason(outcome.error);
        return bypass(BYPASS_BY_FAILURE[failure] ?? "scorer_error", `${failure}: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
      }
      return decide(outcome.summary, answer, opts, base, bypass, decided);
    } catch (error) {
      // guard() must never throw into the host.
      return bypass("internal_error", (error as Error)?.message ?? String(error));
    }
  };

  // The last resort: should even the bypass fail (a host's clock that throws), the host still gets a decision.
  const lastResort = (error: unknown): GuardDecision => {
    const block = deps.defaults.onFail === "block";
    return { decision: "bypass", reason: "internal_error", detail: String(error), outcome: deps.defaults.onFail, text: block ? deps.defaults.replacement : "", ...(block ? { replacement: deps.defaults.replacement } : {}), route: "unknown", durationMs: 0 };
  };
  return {
    check: (input, options) => check(input, options, recorded).catch(lastResort),
    assess: (input, options, signal) => check(input, options, (d) => d, signal).catch(lastResort),
    close() {
      for (const closeOne of [...inFlight]) closeOne();
    },
  };
}

/** Why the input is over the scorer's limits (a part of it would go unchecked), or undefined. */
function overLimits(answerChars: number, context: Parameters<typeof contextChars>[0], limits: GuardDeps["limits"]): string | undefined {
  if (answerChars > limits.maxAnswerChars) return `the answer is longer than maxAnswerChars (${answerChars} > ${limits.maxAnswerChars})`;
  if (Array.isArray(context) && context.length > limits.maxDocuments) return `more documents than maxDocuments (${context.length} > ${limits.maxDocuments})`;
  const chars = contextChars(context);
  if (chars > limits.maxContextChars) return `the context is longer than maxContextChars (${chars} > ${limits.maxContextChars})`;
  return undefined;
}

/** The decision on a scored answer. */
function decide(
  summary: EvaluationSummary,
  answer: string,
  opts: ResolvedGuardOptions,
  base: () => { route: string; durationMs: number },
  bypass: (reason: GuardBypassReason, detail: string, extra?: Partial<Pick<GuardBypass, "evaluation" | "unscorableReason">>) => GuardDecision,
  decided: (d: GuardDecision) => GuardDecision,
): GuardDecision {
  if (summary.verdict === "unscorable") {
    const reason = summary.reason ?? "unknown";
    if (reason === "backend_error") return bypass("scorer_error", "the scorer's backend failed", { evaluation: summary });
    return bypass("unscorable", `the answer is unscorable (${reason})`, { evaluation: summary, unscorableReason: reason as NonNullable<GuardBypass["unscorableReason"]> });
  }
  // A limit cut the input: what it cut was not checked, so the guard cannot vouch for it.
  if (summary.limits.length > 0) return bypass("over_limits", `the scorer cut the input (${summary.limits.join(", ")})`, { evaluation: summary });
  const score = summary.score ?? 0;
  if (summary.verdict === "grounded") return decided({ decision: "pass", text: answer, score, evaluation: summary, ...base() });
  const claims = summary.flaggedClaims ?? [];
  const block = (): GuardDecision => decided({ decision: "block", text: opts.replacement, replacement: opts.replacement, score, claims, evaluation: summary, ...base() });
  // Nothing supported would be left: a correction would be empty, or only the sentences that claim nothing.
  if (opts.action === "block" || claims.length === 0 || summary.claims.supported === 0) return block();
  const ranges = mergeRanges(claims, answer.length);
  const corrected = opts.correction === "remove" ? removeRanges(answer, ranges) : markRanges(answer, ranges, opts.marker.open, opts.marker.close);
  if (corrected.trim() === "") return block();
  return decided({ decision: "correct", text: corrected, answer: corrected, correction: opts.correction, ranges, score, claims, evaluation: summary, ...base() });
}

/** Counts of no decision yet. */
function emptyCounts(): { pass: number; block: number; correct: number; bypass: Record<GuardBypassReason, number> } {
  return { pass: 0, block: 0, correct: 0, bypass: Object.fromEntries(GUARD_BYPASS_REASONS.map((r) => [r, 0])) as Record<GuardBypassReason, number> };
}

/** The monitor's tally of guard decisions, all routes together and per route label (labels are capped, so this is bounded). */
export function createGuardTally(): { add(decision: GuardDecision): void; read(): GuardStats } {
  const total = emptyCounts();
  const routes = new Map<string, ReturnType<typeof emptyCounts>>();
  const copy = (c: GuardCounts): GuardCounts => ({ pass: c.pass, block: c.block, correct: c.correct, bypass: { ...c.bypass } });
  return {
    add(decision) {
      let perRoute = routes.get(decision.route);
      if (!perRoute) routes.set(decision.route, (perRoute = emptyCounts()));
      for (const counts of [total, perRoute]) {
        if (decision.decision === "bypass") counts.bypass[decision.reason]++;
        else counts[decision.decision]++;
      }
    },
    read() {
      return { ...copy(total), routes: Object.fromEntries([...routes].map(([route, c]) => [route, copy(c)])) };
    },
  };
}
