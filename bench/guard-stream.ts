/**
 * bench:guard's streamed answers: a synthetic LLM stream (the answer as token-sized deltas, one every
 * `tokenMs`), read unguarded and through Monitor.guardStream in each mode, timed as the user sees it.
 *
 * Per stream: when the source emitted each delta, and when the consumer got each event with text.
 * From these: time to first text (TTFT) and to last text, from the stream's start; what the guard
 * added to each (first text − the source's first delta, last text − the source's last delta; for an
 * unguarded stream both are the consumer's own overhead); how long each released part was held
 * (its event − the source's emitting its last character); checks; and what the user was sent.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { GuardCase } from "./guard-workload.ts";
import { tokenDeltas } from "./guard-workload.ts";
import type { StreamGuardMode } from "../src/sdk/guard-stream-types.ts";
import type { Monitor } from "../src/sdk/types.ts";

/** A way to read the stream: straight through, or guarded in one mode. */
export type StreamConfig = "unguarded" | StreamGuardMode;

export const STREAM_CONFIGS: readonly StreamConfig[] = ["unguarded", "buffer", "sentence", "annotate"];

/** One stream, timed (ms from its start). */
export interface StreamRun {
  readonly config: StreamConfig;
  readonly kind: GuardCase["kind"];
  readonly deltas: number;
  /** When the source emitted its first and its last delta. */
  readonly sourceFirstMs: number;
  readonly sourceLastMs: number;
  /** When the consumer got its first and its last event with text (NaN when none). */
  readonly firstTextMs: number;
  readonly lastTextMs: number;
  /** Per release or correct event: ms from the source emitting the event's last character to the event. */
  readonly holdMs: readonly number[];
  /** Per retract event: ms from the source emitting the retracted text's last character to the retraction. */
  readonly retractMs: readonly number[];
  /** Checks made (the end event's); 0 unguarded. */
  readonly checks: number;
  /** The end event's decision ("pass", "block", …; "none" unguarded) and its ending ("complete", "blocked", …). */
  readonly decision: string;
  readonly ending: string;
  /** What the user was sent is the answer, byte for byte. */
  readonly unchanged: boolean;
  /** What the user was sent holds a figure the context does not (the invented one reached the user, retracted or not). */
  readonly leaked: boolean;
  /** Event types in order, run-length counted ("release×4, end"). */
  readonly events: string;
}

/** The clock of one stream: when each delta was emitted, and the answer's length at each. */
interface SourceClock {
  readonly at: number[];
  readonly endOffset: number[];
}

/** The answer's deltas, one every `tokenMs` (the first too, as a server's first token), stamped on `clock`. */
async function* timedSource(deltas: readonly string[], tokenMs: number, t0: number, clock: SourceClock): AsyncGenerator<string> {
  let offset = 0;
  for (const d of deltas) {
    await sleep(tokenMs);
    offset += d.length;
    clock.at.push(performance.now() - t0);
    clock.endOffset.push(offset);
    yield d;
  }
}

/** When the source emitted the character before `end` (the delta that completed [.., end)); NaN before any. */
function emittedAt(clock: SourceClock, end: number): number {
  let lo = 0;
  let hi = clock.endOffset.length - 1;
  if (hi < 0 || end <= 0) return Number.NaN;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((clock.endOffset[mid] as number) >= end) hi = mid;
    else lo = mid + 1;
  }
  return clock.at[lo] as number;
}

const figuresOf = (text: string): string[] => text.match(/[0-9]+/g) ?? [];

const runLength = (types: readonly string[]): string => {
  const out: string[] = [];
  let k = 0;
  while (k < types.length) {
    let n = 1;
    while (types[k + n] === types[k]) n++;
    out.push(n > 1 ? `${types[k]}×${n}` : (types[k] as string));
    k += n;
  }
  return out.join(", ");
};

/** Streams `c`'s answer at `tokenMs` a delta, read per `config`, and times it. */
export async function runStream(monitor: Monitor, c: GuardCase, config: StreamConfig, tokenMs: number, budgetMs: number): Promise<StreamRun> {
  const deltas = tokenDeltas(c.answer);
  const stated = new Set(figuresOf(c.context.join(" ")));
  const clock: SourceClock = { at: [], endOffset: [] };
  const t0 = performance.now();
  const source = timedSource(deltas, tokenMs, t0, clock);
  const textAt: number[] = [];
  const holdMs: number[] = [];
  const retractMs: number[] = [];
  const types: string[] = [];
  let sent = "";
  let checks = 0;
  let decision = "none";
  let ending = "complete";
  if (config === "unguarded") {
    for await (const d of source) {
      textAt.push(performance.now() - t0);
      sent += d;
      types.push("delta");
    }
  } else {
    const input = { route: `/bench/stream/${config}`, question: c.question, context: c.context };
    for await (const e of monitor.guardStream(source, input, { mode: config, budgetMs, action: "block" })) {
      const now = performance.now() - t0;
      types.push(e.type);
      if (e.text.length > 0) {
        textAt.push(now);
        sent += e.text;
      }
      if (e.type === "release" || e.type === "correct") holdMs.push(now - emittedAt(clock, e.end));
      else if (e.type === "retract") retractMs.push(now - emittedAt(clock, e.end));
      else if (e.type === "end") {
        checks = e.stream.checks;
        decision = e.decision.decision === "bypass" ? `bypass:${e.decision.reason}` : e.decision.decision;
        ending = e.stream.ending;
      }
    }
  }
  return {
    config,
    kind: c.kind,
    deltas: deltas.length,
    sourceFirstMs: clock.at[0] ?? Number.NaN,
    sourceLastMs: clock.at[clock.at.length - 1] ?? Number.NaN,
    firstTextMs: textAt[0] ?? Number.NaN,
    lastTextMs: textAt[textAt.length - 1] ?? Number.NaN,
    holdMs,
    retractMs,
    checks,
    decision,
    ending,
    unchanged: sent === c.answer,
    leaked: figuresOf(sent).some((n) => !stated.has(n)),
    events: runLength(types),
  };
}
