import type { ReviewLabelValue, SpoolRecord } from "../../review/record.ts";
import { agreeingLabel, labelFromAgreement } from "../../review/record.ts";

/**
 * The terminal review's key handling as a pure state machine: a key (or a scripted line) and the
 * current mode give the next mode and what to do (label, skip, undo, quit). The runner
 * (terminal.ts) performs the effects; this file does no I/O.
 */

/** Looking at an answer, or marking its claims one by one (the cursor and each claim's mark). */
export type ReviewMode = { readonly kind: "answer" } | { readonly kind: "claims"; readonly cursor: number; readonly marks: readonly ReviewLabelValue[] };

/** What a key asks for. A label names the answer's label and, claim by claim, the claims' labels. */
export type ReviewAction =
  | { readonly type: "label"; readonly label: ReviewLabelValue; readonly claims?: ReadonlyArray<{ readonly index: number; readonly label: ReviewLabelValue }> }
  | { readonly type: "skip" }
  | { readonly type: "undo" }
  | { readonly type: "quit" }
  | { readonly type: "none"; readonly message?: string };

export interface Step {
  readonly mode: ReviewMode;
  readonly action: ReviewAction;
}

/** The keys the machine knows, decoded from raw terminal input by `decodeKeys`. */
export type Key = "a" | "d" | "c" | "s" | "u" | "q" | "j" | "k" | "up" | "down" | "space" | "1" | "0" | "enter" | "escape" | "interrupt";

export const ANSWER_MODE: ReviewMode = { kind: "answer" };

/** Claim-by-claim marking starts from groundwatch's own verdicts: supported (1), anything else (0). */
export function initialMarks(r: Pick<SpoolRecord, "claims">): ReviewLabelValue[] {
  return r.claims.map((c) => (c.verdict === "supported" ? 1 : 0));
}

/** The label of an answer marked claim by claim: grounded iff every claim is marked supported. */
export function claimsAction(r: Pick<SpoolRecord, "claims">, marks: readonly ReviewLabelValue[]): ReviewAction {
  const claims = r.claims.map((c, i) => ({ index: c.index, label: marks[i] ?? 0 }));
  return { type: "label", label: claims.every((c) => c.label === 1) ? 1 : 0, claims };
}

const NONE: ReviewAction = { type: "none" };

/** The next mode and action for `key` on record `r` in `mode`. */
export function step(r: Pick<SpoolRecord, "kind" | "claims">, mode: ReviewMode, key: Key): Step {
  if (key === "interrupt") return { mode: ANSWER_MODE, action: { type: "quit" } };
  if (mode.kind === "answer") {
    switch (key) {
      case "a":
        return { mode, action: { type: "label", label: agreeingLabel(r.kind) } };
      case "d":
        return { mode, action: { type: "label", label: labelFromAgreement(r.kind, "disagree") } };
      case "c":
        if (r.claims.length === 0) return { mode, action: { type: "none", message: "this answer has no claims to mark: use a or d" } };
        return { mode: { kind: "claims", cursor: 0, marks: initialMarks(r) }, action: NONE };
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
      return { mode: ANSWER_MODE, action: claimsAction(r, mode.marks) };
    case "escape":
      return { mode: ANSWER_MODE, action: NONE };
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
const SINGLE = new Set(["a", "d", "c", "s", "u", "q", "j", "k", "1", "0"]);

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
 * `q`, or `c` followed by a 1 or 0 per claim (`c 1 0 1`).
 */
export function lineAction(r: Pick<SpoolRecord, "kind" | "claims">, line: string): ReviewAction {
  const words = line.trim().split(/\s+/).filter((w) => w !== "");
  const [command, ...rest] = words;
  if (command === undefined) return NONE;
  if (command === "c") {
    if (rest.length !== r.claims.length || rest.some((w) => w !== "0" && w !== "1")) {
      return { type: "none", message: `"c" needs a 1 (supported) or 0 (not) for each of the ${r.claims.length} claims, e.g. c ${r.claims.map(() => "1").join(" ")}` };
    }
    return claimsAction(r, rest.map((w) => (w === "1" ? 1 : 0)));
  }
  if (rest.length === 0 && ["a", "d", "s", "u", "q"].includes(command)) return step(r, ANSWER_MODE, command as Key).action;
  return { type: "none", message: `unknown command ${JSON.stringify(command.slice(0, 20))}: a agree, d disagree, c 1 0 … claim by claim, s skip, u undo, q quit` };
}
