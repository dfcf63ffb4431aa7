import type { ReviewLabelValue, SpanLabel, SpoolRecord } from "../../review/record.ts";
import { agreeingLabel, labelFromAgreement } from "../../review/record.ts";

/**
 * The terminal review's key handling as a pure state machine: a key (or a scripted line) and the
 * current mode give the next mode and what to do (label, skip, undo, quit). The runner
 * (terminal.ts) performs the effects; this file does no I/O.
 */

/**
 * Looking at an answer, marking its claims one by one (the cursor and each claim's mark), or marking
 * its spans (the cursor on a span). `wrong`: the spans marked wrong so far (indexes into the record's
 * `spans`, sorted), carried from mode to mode and written with the answer's label.
 */
export type ReviewMode =
  | { readonly kind: "answer"; readonly wrong?: readonly number[] }
  | { readonly kind: "claims"; readonly cursor: number; readonly marks: readonly ReviewLabelValue[]; readonly wrong?: readonly number[] }
  | { readonly kind: "spans"; readonly cursor: number; readonly wrong: readonly number[] };

/** What a key asks for. A label names the answer's label and, claim by claim, the claims' labels. */
export type ReviewAction =
  | { readonly type: "label"; readonly label: ReviewLabelValue; readonly claims?: ReadonlyArray<{ readonly index: number; readonly label: ReviewLabelValue }>; readonly spans?: readonly SpanLabel[] }
  | { readonly type: "skip" }
  | { readonly type: "undo" }
  | { readonly type: "quit" }
  | { readonly type: "none"; readonly message?: string };

export interface Step {
  readonly mode: ReviewMode;
  readonly action: ReviewAction;
}

/** The keys the machine knows, decoded from raw terminal input by `decodeKeys`. */
export type Key = "a" | "d" | "c" | "w" | "s" | "u" | "q" | "j" | "k" | "y" | "n" | "up" | "down" | "space" | "1" | "0" | "enter" | "escape" | "interrupt";

export const ANSWER_MODE: ReviewMode = { kind: "answer" };

/** Claim-by-claim marking starts from groundwatch's own verdicts: supported (1), anything else (0). */
export function initialMarks(r: Pick<SpoolRecord, "claims">): ReviewLabelValue[] {
  return r.claims.map((c) => (c.verdict === "supported" ? 1 : 0));
}

/** The span marks a label carries: each span marked wrong, in index order. */
function spanLabels(wrong: readonly number[] | undefined): { spans?: SpanLabel[] } {
  return wrong && wrong.length > 0 ? { spans: wrong.map((span) => ({ span, verdict: "wrong" })) } : {};
}

/** The label of an answer marked claim by claim: grounded iff every claim is marked supported; with the spans marked wrong. */
export function claimsAction(r: Pick<SpoolRecord, "claims">, marks: readonly ReviewLabelValue[], wrong?: readonly number[]): ReviewAction {
  const claims = r.claims.map((c, i) => ({ index: c.index, label: marks[i] ?? 0 }));
  return { type: "label", label: claims.every((c) => c.label === 1) ? 1 : 0, claims, ...spanLabels(wrong) };
}

/** `wrong` with `span` marked (or unmarked when it was), sorted. */
function toggled(wrong: readonly number[], span: number): number[] {
  return wrong.includes(span) ? wrong.filter((w) => w !== span) : [...wrong, span].sort((a, b) => a - b);
}

const NONE: ReviewAction = { type: "none" };

/** The next mode and action for `key` on record `r` in `mode`. */
export function step(r: Pick<SpoolRecord, "kind" | "claims" | "spans">, mode: ReviewMode, key: Key): Step {
  if (key === "interrupt") return { mode: ANSWER_MODE, action: { type: "quit" } };
  if (mode.kind === "spans") return spanStep(r, mode, key);
  if (mode.kind === "answer") {
    switch (key) {
      case "a":
        return { mode, action: { type: "label", label: agreeingLabel(r.kind), ...spanLabels(mode.wrong) } };
      case "d":
        return { mode, action: { type: "label", label: labelFromAgreement(r.kind, "disagree"), ...spanLabels(mode.wrong) } };
      case "c":
        if (r.claims.length === 0) return { mode, action: { type: "none", message: "this answer has no claims to mark: use a or d" } };
        return { mode: { kind: "claims", cursor: 0, marks: initialMarks(r), ...(mode.wrong ? { wrong: mode.wrong } : {}) }, action: NONE };
      case "w":
        if ((r.spans ?? []).length === 0) return { mode, action: { type: "none", message: "this answer has no spans to mark" } };
        return { mode: { kind: "spans", cursor: 0, wrong: mode.wrong ?? [] }, action: NONE };
      case "s":
        return { mode, action: { type: "skip" } };
      case "u":
        return { mode, action: { type: "undo" } };
      case "q":
        return { mode, action: { type: "quit" } };
      default:
        return { mode, action: NONE };
    }
  }
  const last = mode.marks.length - 1;
  const set = (label: ReviewLabelValue | "toggle"): ReviewMode => ({
    ...mode,
    marks: mode.marks.map((m, i) => (i !== mode.cursor ? m : label === "toggle" ? (m === 1 ? 0 : 1) : label)),
  });
  switch (key) {
    case "j":
    case "down":
      return { mode: { ...mode, cursor: Math.min(last, mode.cursor + 1) }, action: NONE };
    case "k":
    case "up":
      return { mode: { ...mode, cursor: Math.max(0, mode.cursor - 1) }, action: NONE };
    case "space":
      return { mode: set("toggle"), action: NONE };
    case "1":
      return { mode: set(1), action: NONE };
    case "0":
      return { mode: set(0), action: NONE };
    case "enter":
      return { mode: ANSWER_MODE, action: claimsAction(r, mode.marks, mode.wrong) };
    case "escape":
      return { mode: mode.wrong ? { kind: "answer", wrong: mode.wrong } : ANSWER_MODE, action: NONE };
    case "q":
      return { mode: ANSWER_MODE, action: { type: "quit" } };
    default:
      return { mode, action: NONE };
  }
}

/** Marking spans: j/k move, space (or w) marks the span under the cursor wrong or takes the mark back, enter or esc go back to the answer with the marks kept. */
function spanStep(r: Pick<SpoolRecord, "spans">, mode: Extract<ReviewMode, { kind: "spans" }>, key: Key): Step {
  const last = Math.max(0, (r.spans ?? []).length - 1);
  switch (key) {
    case "j":
    case "down":
      return { mode: { ...mode, cursor: Math.min(last, mode.cursor + 1) }, action: NONE };
    case "k":
    case "up":
      return { mode: { ...mode, cursor: Math.max(0, mode.cursor - 1) }, action: NONE };
    case "space":
    case "w":
      return { mode: { ...mode, wrong: toggled(mode.wrong, mode.cursor) }, action: NONE };
    case "enter":
    case "escape":
      return { mode: { kind: "answer", wrong: mode.wrong }, action: NONE };
    case "q":
      return { mode: ANSWER_MODE, action: { type: "quit" } };
    default:
      return { mode, action: NONE };
  }
}

const SEQUENCES: ReadonlyArray<readonly [string, Key]> = [
  ["\u001b[A", "up"],
  ["\u001bOA", "up"],
  ["\u001b[B", "down"],
  ["\u001bOB", "down"],
  ["\r\n", "enter"],
  ["\r", "enter"],
  ["\n", "enter"],
  [" ", "space"],
  ["\u0003", "interrupt"],
  ["\u0004", "interrupt"],
];
const SINGLE = new Set(["a", "d", "c", "w", "s", "u", "q", "j", "k", "y", "n", "1", "0"]);

/** The keys in a chunk of raw terminal input, in order; anything unknown (other escapes, letters) is dropped. */
export function decodeKeys(chunk: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < chunk.length) {
    const seq = SEQUENCES.find(([s]) => chunk.startsWith(s, i));
    if (seq) {
      keys.push(seq[1]);
      i += seq[0].length;
      continue;
    }
    const ch = chunk[i] ?? "";
    if (ch === "\u001b") {
      // A lone ESC is the escape key; an unknown sequence (ESC [ params final) is skipped whole.
      // eslint-disable-next-line no-control-regex -- matching an escape sequence is the point
      const m = /^\u001b(?:\[[0-?]*[ -/]*[@-~]|O.)?/.exec(chunk.slice(i, i + 16));
      const len = m?.[0].length ?? 1;
      if (len === 1) keys.push("escape");
      i += len;
      continue;
    }
    const lower = ch.toLowerCase();
    if (SINGLE.has(lower)) keys.push(lower as Key);
    i++;
  }
  return keys;
}

/**
 * One scripted command (a line of standard input when it is not a terminal): `a`, `d`, `s`, `u`,
 * `q`, or `c` followed by a 1 or 0 per claim (`c 1 0 1`); a label (`a`, `d`, `c …`) may end with
 * `w` and the indexes of the spans to mark wrong (`d w 0 2`).
 */
export function lineAction(r: Pick<SpoolRecord, "kind" | "claims" | "spans">, line: string): ReviewAction {
  const all = line.trim().split(/\s+/).filter((w) => w !== "");
  const at = all.indexOf("w");
  const words = at < 0 ? all : all.slice(0, at);
  const [command, ...rest] = words;
  if (command === undefined) return NONE;
  let wrong: number[] | undefined;
  if (at >= 0) {
    const spanCount = (r.spans ?? []).length;
    const marks = all.slice(at + 1);
    if (!["a", "d", "c"].includes(command) || marks.length === 0 || marks.some((w) => !/^\d{1,6}$/.test(w) || Number(w) >= spanCount)) {
      return { type: "none", message: spanCount === 0 ? "this answer has no spans to mark" : `"w" follows a, d or c …, with the indexes of the spans to mark wrong, from 0 to ${spanCount - 1}, e.g. d w 0` };
    }
    wrong = [...new Set(marks.map(Number))].sort((x, y) => x - y);
  }
  if (command === "c") {
    if (rest.length !== r.claims.length || rest.some((w) => w !== "0" && w !== "1")) {
      return { type: "none", message: `"c" needs a 1 (supported) or 0 (not) for each of the ${r.claims.length} claims, e.g. c ${r.claims.map(() => "1").join(" ")}` };
    }
    return claimsAction(r, rest.map((w) => (w === "1" ? 1 : 0)), wrong);
  }
  if (rest.length === 0 && ["a", "d", "s", "u", "q"].includes(command)) return step(r, wrong ? { kind: "answer", wrong } : ANSWER_MODE, command as Key).action;
  return { type: "none", message: `unknown command ${JSON.stringify(command.slice(0, 20))}: a agree, d disagree, c 1 0 … claim by claim (each may end with w and span indexes to mark wrong), s skip, u undo, q quit` };
}
