/**
 * The push engine of a guarded stream (docs/guard.md, "Streaming"): fed the answer's text deltas as
 * they arrive, it checks the answer so far at sentence boundaries (guard-stream-trigger.ts) with the
 * guard's own check (Guard.assess: the same scoring path as guard(), nothing counted per check), and
 * emits events in original-answer offsets (guard-stream-types.ts). No I/O: the wrapper
 * (guard-stream-wrap.ts) and the SSE middleware read their sources and feed it.
 *
 * - buffer: one check of the whole answer at its end; the decision is guard()'s.
 * - sentence: one check at a time, of the text sent so far (corrections applied) + every unit
 *   completed since (context carried over); a unit is released when no flagged claim overlaps it.
 * - annotate: every delta released at once; the original answer so far checked at each boundary, one
 *   check at a time; flagged claims in the newly checked part are retracted.
 *
 * The stream's ONE decision goes to `record` (counted and recorded as guard()'s are) and ends the
 * events. Nothing throws into the caller; after a block, an abort or the end, deltas are ignored and
 * every pending check is given up (its queued inference withdrawn).
 */
import { diag } from "@opentelemetry/api";
import type { ClaimSummary, EvaluationSummary } from "../evaluation/types.ts";
import type { TextRange } from "./guard-correction.ts";
import { markRanges, mergeRanges, removeRanges } from "./guard-correction.ts";
import type { GuardOptions, ResolvedGuardOptions } from "./guard-options.ts";
import { resolveStreamGuardOptions } from "./guard-stream-options.ts";
import type { ResolvedStreamGuardOptions, StreamEnding, StreamFailReason, StreamGuard, StreamGuardEnd, StreamGuardEvent, StreamGuardListener, StreamGuardOptions } from "./guard-stream-types.ts";
import { createSentenceTrigger } from "./guard-stream-trigger.ts";
import type { GuardBypass, GuardBypassReason, GuardDecision } from "./guard-types.ts";
import type { ObserveInput, StreamGuardInput } from "./types.ts";

export interface StreamGuardDeps {
  /** The monitor's clock, ms. */
  readonly now: () => number;
  /** One check, not recorded (Guard.assess); an abort of `signal` gives it up. */
  readonly assess: (input: ObserveInput, options: GuardOptions, signal: AbortSignal) => Promise<GuardDecision>;
  /** Counts and records the stream's one decision (Monitor.recordGuardDecision). */
  readonly record: (decision: GuardDecision) => void;
  /** The monitor's resolved guard defaults. */
  readonly defaults: ResolvedGuardOptions;
  /** The route label a decision is counted under (Monitor.routeLabel). */
  readonly routeLabel: (route: string) => string;
  /** The scorer's maxAnswerChars: a stream past it is a bypass (over_limits) per onFail. */
  readonly maxAnswerChars: number;
}

/** Claims moved by `shift` (check-answer offsets to original ones), those ending after `from` only. */
function claimsAfter(claims: readonly ClaimSummary[], shift: number, from: number): ClaimSummary[] {
  return claims.map((c) => ({ ...c, start: c.start + shift, end: c.end + shift })).filter((c) => c.end > from);
}

/** Starts guarding one stream; events go to `listener` as they are decided. */
export function createStreamGuard(deps: StreamGuardDeps, input: StreamGuardInput, options: StreamGuardOptions | undefined, listener: StreamGuardListener): StreamGuard {
  const started = deps.now();
  let opts: ResolvedStreamGuardOptions = { ...deps.defaults, mode: "sentence", maxPendingChars: 600 };
  let invalid: string | undefined;
  try {
    opts = resolveStreamGuardOptions(options, deps.defaults);
  } catch (error) {
    invalid = `stream guard options: ${(error as Error).message}`;
  }
  let base: Omit<ObserveInput, "answer"> | undefined;
  let route = "unknown";
  try {
    base = { ...input };
    route = deps.routeLabel(typeof base.route === "string" ? base.route : "unknown");
  } catch (error) {
    invalid ??= `input: ${(error as Error).message}`;
  }
  /** Each check: the user's options, an ungrounded answer always "block" (the stream corrects per unit itself). */
  const checkOptions: GuardOptions = { budgetMs: opts.budgetMs, onFail: opts.onFail, action: "block", replacement: opts.replacement };
  const trigger = createSentenceTrigger(opts.maxPendingChars);
  /** Gives every pending check up (a block, an abort, the end). */
  const giveUp = new AbortController();

  let full = ""; // everything received (up to the delta that went past maxAnswerChars)
  let received = 0; // characters received, those passed through unchecked included
  let released = 0; // original offset the release/correct events cover up to
  let sent = ""; // what release/correct events sent (sentence mode's context)
  let userText = ""; // what every event sent, the replacement included
  let checkedTo = 0; // annotate: original offset checked up to
  let units: number[] = []; // unit ends not yet checked (sentence) or not yet covered by a check (annotate), ascending
  let waitPast = -1; // a check found no checkable claim up to here: wait for more
  let ended = false;
  let stopped = false;
  let passthrough = false; // a bypass under onFail pass stopped the checks: everything goes out at once
  let checking = false;
  let checks = 0;
  let longestCheckMs = 0;
  let firstReleaseMs: number | undefined;
  let minScore: number | undefined;
  let lastEvaluation: EvaluationSummary | undefined;
  let firstBypass: GuardBypass | undefined;
  let blockedBy: { reason: StreamFailReason; claims?: readonly ClaimSummary[]; evaluation?: EvaluationSummary; bypass?: GuardBypass } | undefined;
  let ending: StreamEnding = "complete";
  const flagged: ClaimSummary[] = [];
  const corrected: TextRange[] = [];
  let finishWith: ((end: StreamGuardEnd) => void) | undefined;
  const done = new Promise<StreamGuardEnd>((resolve) => (finishWith = resolve));
  let finished = false;

  const emit = (event: StreamGuardEvent): void => {
    // A listener that ended the stream from inside an event (abort on a client's close): nothing after the end.
    if (finished && event.type !== "end") return;
    if (event.type === "release" || event.type === "correct" || event.type === "block") {
      firstReleaseMs ??= Math.max(0, deps.now() - started);
      userText += event.text;
    }
    listenerOnly(event);
  };
  /** An event for the listener alone: the text is not kept (past maxAnswerChars under onFail pass). */
  const listenerOnly = (event: StreamGuardEvent): void => {
    try {
      listener(event);
    } catch (error) {
      diag.error(`groundwatch: a stream guard listener threw: ${(error as Error)?.message ?? String(error)}`);
    }
  };
  const release = (to: number): void => {
    if (to <= released) return;
    const text = full.slice(released, to);
    emit({ type: "release", start: released, end: to, text });
    sent += text;
    released = to;
  };
  const block = (reason: StreamFailReason, extra: { claims?: readonly ClaimSummary[]; evaluation?: EvaluationSummary; bypass?: GuardBypass } = {}): void => {
    blockedBy = { reason, ...extra };
    if (ending === "complete") ending = extra.bypass?.reason === "closed" ? "closed" : "blocked";
    emit({ type: "block", at: released, replacement: opts.replacement, text: opts.replacement, reason, ...(extra.claims ? { claims: extra.claims } : {}) });
    stopped = true;
    finish();
  };
  /** A check made no decision (a bypass): onFail block stops the stream (sentence, buffer) or retracts the part (annotate); pass lets it out unchecked. */
  const bypassed = (d: GuardBypass, from: number, to: number): void => {
    firstBypass ??= d;
    if (d.reason === "closed" && ending === "complete") ending = "closed";
    if (opts.onFail === "block") {
      if (opts.mode === "annotate") {
        emit({ type: "retract", start: from, end: to, text: "", reason: d.reason, detail: d.detail });
        return;
      }
      block(d.reason, { bypass: d });
      return;
    }
    if (opts.mode !== "annotate") release(to);
  };
  const scored = (d: GuardDecision): void => {
    if ("evaluation" in d && d.evaluation) lastEvaluation = d.evaluation;
    if ("score" in d) minScore = Math.min(minScore ?? 1, d.score);
  };

  /** One check of `answer`; undefined when it was given up (the stream is over). */
  const check = async (answer: string): Promise<GuardDecision | undefined> => {
    checks++;
    const t0 = deps.now();
    const d = await deps.assess({ ...(base as Omit<ObserveInput, "answer">), answer }, checkOptions, giveUp.signal);
    longestCheckMs = Math.max(longestCheckMs, deps.now() - t0);
    if (d.route) route = d.route;
    return giveUp.signal.aborted ? undefined : d;
  };

  /** Sentence mode: the result of checking `sent` + original [released, to). */
  const judgeSentence = (d: GuardDecision, to: number): void => {
    scored(d);
    if (d.decision === "pass" || d.decision === "correct") return release(to);
    if (d.decision === "bypass") return bypassed(d, released, to);
    const shift = released - sent.length;
    const claims = claimsAfter(d.claims, shift, released);
    flagged.push(...claims);
    // Unit by unit: released while no flagged claim overlaps it; the first that does is blocked or corrected.
    for (const end of [...units.filter((u) => u < to), to]) {
      const start = released;
      if (end <= start) continue;
      const hit = claims.filter((c) => c.start < end && c.end > start);
      if (hit.length === 0) {
        release(end);
        continue;
      }
      if (opts.action === "block") return block("ungrounded", { claims, evaluation: d.evaluation });
      const ranges = mergeRanges(hit.map((c) => ({ start: c.start - start, end: c.end - start })), end - start);
      const unit = full.slice(start, end);
      const text = opts.correction === "remove" ? removeRanges(unit, ranges) : markRanges(unit, ranges, opts.marker.open, opts.marker.close);
      corrected.push(...ranges.map((r) => ({ start: r.start + start, end: r.end + start })));
      emit({ type: "correct", start, end, text, ranges: ranges.map((r) => ({ start: r.start + start, end: r.end + start })), claims: hit });
      sent += text;
      released = end;
    }
  };

  /** Annotate mode: the result of checking original [0, to), new from checkedTo. */
  const judgeAnnotate = (d: GuardDecision, to: number): void => {
    scored(d);
    if (d.decision === "bypass") bypassed(d, checkedTo, to);
    else if (d.decision === "block" || d.decision === "correct") {
      const claims = claimsAfter(d.claims, 0, checkedTo);
      flagged.push(...claims);
      for (const r of mergeRanges(claims, to)) {
        emit({ type: "retract", start: r.start, end: r.end, text: "", reason: "ungrounded", claims: claims.filter((c) => c.start < r.end && c.end > r.start) });
      }
    }
    checkedTo = to;
  };

  /** Runs the next check when one is due and none is running; finishes once nothing is left. */
  const pump = async (): Promise<void> => {
    while (!checking && !stopped && !finished) {
      const annotate = opts.mode === "annotate";
      const from = annotate ? checkedTo : released;
      const boundary = units.at(-1) ?? from;
      const to = ended ? full.length : opts.mode === "buffer" ? from : boundary;
      // At its end, a stream checked nothing yet is checked whole (an empty answer is unscorable, as guard() says).
      const due = (to > from && (to > waitPast || ended)) || (ended && checks === 0);
      if (passthrough || !due) {
        if (ended) finish();
        return;
      }
      const part = full.slice(from, to);
      // Only blanks since the last check (and something checked already): nothing to check.
      if (lastEvaluation !== undefined && part.trim() === "") {
        if (annotate) checkedTo = to;
        else release(to);
        units = units.filter((u) => u > to);
        continue;
      }
      checking = true;
      const answer = annotate ? full.slice(0, to) : opts.mode === "buffer" ? full : sent + part;
      let d: GuardDecision | undefined;
      try {
        d = await check(answer);
      } finally {
        checking = false;
      }
      if (d === undefined || stopped || finished) {
        // Given up for a pass-through (over the limits, onFail pass): the end is decided here if it came meanwhile.
        if (passthrough && ended) finish();
        return;
      }
      // No checkable claim yet (a greeting, a heading): wait for the next unit, unless this was the whole answer.
      if (d.decision === "bypass" && d.reason === "unscorable" && d.unscorableReason === "no_checkable_claims" && !(ended && to === full.length) && opts.mode !== "buffer") {
        waitPast = to;
        continue;
      }
      if (opts.mode === "buffer") return judgeBuffer(d);
      if (annotate) judgeAnnotate(d, to);
      else judgeSentence(d, to);
      units = units.filter((u) => u > to);
    }
  };
  const run = (): void => {
    pump().catch((error: unknown) => fail("internal_error", (error as Error)?.message ?? String(error)));
  };

  /** Buffer mode: the one check of the whole answer decides as guard() does (correcting it whole, or blocking when nothing supported would be left). */
  const judgeBuffer = (d: GuardDecision): void => {
    scored(d);
    if (d.decision === "pass" || d.decision === "correct") release(full.length);
    else if (d.decision === "bypass") bypassed(d, 0, full.length);
    else {
      flagged.push(...d.claims);
      const ranges = mergeRanges(d.claims, full.length);
      const text = opts.correction === "remove" ? removeRanges(full, ranges) : markRanges(full, ranges, opts.marker.open, opts.marker.close);
      if (opts.action === "block" || ranges.length === 0 || d.evaluation.claims.supported === 0 || text.trim() === "") return block("ungrounded", { claims: d.claims, evaluation: d.evaluation });
      corrected.push(...ranges);
      emit({ type: "correct", start: 0, end: full.length, text, ranges, claims: d.claims });
      sent = text;
      released = full.length;
    }
    finish();
  };

  /** The stream could not be checked to its end (over the limits, a source error, an internal error): a bypass per onFail. */
  const fail = (reason: GuardBypassReason, detail: string): void => {
    if (stopped || finished) return;
    giveUp.abort();
    const d = bypassDecision(reason, detail);
    firstBypass ??= d;
    if (opts.onFail === "block") return block(reason, { bypass: d });
    passthrough = true;
    release(full.length);
  };
  const bypassDecision = (reason: GuardBypassReason, detail: string): GuardBypass => ({
    decision: "bypass",
    reason,
    detail,
    outcome: opts.onFail,
    text: userText,
    ...(opts.onFail === "block" ? { replacement: opts.replacement } : {}),
    route,
    durationMs: longestCheckMs,
  });

  /** The one decision for the stream: blocked, else the first bypass, else corrected, else passed. */
  const decision = (): GuardDecision => {
    const base = { route, durationMs: Math.max(0, longestCheckMs) };
    const claims = [...flagged];
    const score = minScore ?? 0;
    if (blockedBy?.bypass) return { ...blockedBy.bypass, text: userText, ...base };
    if (blockedBy) return { decision: "block", replacement: opts.replacement, text: userText, score, claims, evaluation: (blockedBy.evaluation ?? lastEvaluation) as EvaluationSummary, ...base };
    if (firstBypass) return { ...firstBypass, text: userText, ...base };
    if (lastEvaluation === undefined) return bypassDecision("internal_error", "the stream ended without a check");
    if (claims.length > 0 && opts.mode === "annotate" && opts.action === "block") return { decision: "block", replacement: opts.replacement, text: userText, score, claims, evaluation: lastEvaluation, ...base };
    if (claims.length > 0 && opts.mode === "annotate") {
      // The user saw the answer whole (text); `answer` is what applying the retractions as corrections gives.
      const ranges = mergeRanges(claims, full.length);
      const answer = opts.correction === "remove" ? removeRanges(full, ranges) : markRanges(full, ranges, opts.marker.open, opts.marker.close);
      return { decision: "correct", answer, text: userText, correction: opts.correction, ranges, score, claims, evaluation: lastEvaluation, ...base };
    }
    if (claims.length > 0) return { decision: "correct", answer: userText, text: userText, correction: opts.correction, ranges: mergeRanges(corrected, full.length), score, claims, evaluation: lastEvaluation, ...base };
    return { decision: "pass", text: userText, score, evaluation: lastEvaluation, ...base };
  };

  function finish(): void {
    if (finished) return;
    // Sentence mode: a correction that left nothing to read is a block, as guard()'s is.
    if (!stopped && corrected.length > 0 && opts.mode === "sentence" && ending === "complete" && released === full.length && sent.trim() === "") return block("ungrounded", { claims: [...flagged] });
    finished = true;
    stopped = true;
    giveUp.abort();
    let d: GuardDecision;
    try {
      d = decision();
    } catch (error) {
      d = bypassDecision("internal_error", (error as Error)?.message ?? String(error));
    }
    try {
      deps.record(d);
    } catch (error) {
      diag.error(`groundwatch: recording a stream guard decision failed: ${(error as Error)?.message ?? String(error)}`);
    }
    const end: StreamGuardEnd = { type: "end", text: "", decision: d, stream: { mode: opts.mode, checks, receivedChars: received, releasedChars: released, firstReleaseMs, ending } };
    emit(end);
    finishWith?.(end);
  }

  /** Options or input that could not be read: a bypass (invalid_input) per onFail, once, before anything else is done. */
  const settleInvalid = (): void => {
    if (invalid === undefined) return;
    const detail = invalid;
    invalid = undefined;
    fail("invalid_input", detail);
  };
  if (invalid !== undefined) queueMicrotask(settleInvalid);

  return {
    push(delta) {
      settleInvalid();
      if (stopped || finished || ended) return false;
      if (typeof delta !== "string" || delta === "") return !stopped;
      received += delta.length;
      if (passthrough) {
        // Unchecked from here on (a bypass under onFail pass): out at once, and not held (not in the decision's text either).
        listenerOnly({ type: "release", start: released, end: released + delta.length, text: delta });
        released += delta.length;
        return true;
      }
      full += delta;
      if (full.length > deps.maxAnswerChars) {
        fail("over_limits", `the streamed answer is longer than maxAnswerChars (over ${deps.maxAnswerChars})`);
        return !stopped;
      }
      if (opts.mode === "annotate") {
        // Out at once, as it came: the delta itself (slicing the growing answer would copy it whole at every delta).
        emit({ type: "release", start: released, end: full.length, text: delta });
        released = full.length;
      }
      if (passthrough) return true;
      if (opts.mode !== "buffer") units.push(...trigger.feed(delta));
      if (opts.mode !== "buffer" && units.length > 0) run();
      return true;
    },
    end() {
      settleInvalid();
      if (ended || finished) return;
      ended = true;
      if (!stopped) run();
    },
    abort(reason, detail) {
      if (finished) return;
      ended = true;
      if (reason === "cancelled") {
        ending = "cancelled";
        stopped = true;
        firstBypass ??= bypassDecision("cancelled", detail ?? "the stream's consumer stopped reading before its end");
        finish();
        return;
      }
      ending = "source_error";
      fail("source_error", detail ?? "the stream's source failed");
      finish();
    },
    done,
    get stopped() {
      return stopped;
    },
  };
}
