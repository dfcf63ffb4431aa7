import type { LabelRecord, SpoolKind } from "./record.ts";
import { SPOOL_KINDS, agreementOf } from "./record.ts";

/** Labelled answers by kind and agreement: `${kind} ${agreement}` → count (only counts above 0). */
export type LabelCounts = ReadonlyMap<`${SpoolKind} ${"agree" | "disagree"}`, number>;
type CountKey = `${SpoolKind} ${"agree" | "disagree"}`;

/**
 * The labels gauge's counts kept one label record at a time, in O(log n) per record: the same
 * counts as `majorityLabels(currentLabels(records))` over every record added so far (per id and
 * reviewer the last label, an undo taking back the one before; per answer the majority of the
 * labels in force, a tie left out; the answer's kind that of the reviewer who labelled it first
 * among those in force). Reading a file as it grows adds only what was appended.
 */
export interface LabelTally {
  add(label: LabelRecord): void;
  /** The counts now (a copy). */
  counts(): LabelCounts;
}

/** One reviewer's labels of one answer: a stack (an undo pops), each entry `label + 2 × kind index`. */
interface KeyState {
  readonly answer: AnswerState;
  /** Its place among the answer's reviewers, in the order they first appeared. */
  readonly order: number;
  readonly stack: number[];
}

/** One answer: its reviewers, the labels in force by value, and which reviewers have one in force (a min-heap of their places, stale entries dropped on look-up). */
interface AnswerState {
  readonly keys: KeyState[];
  grounded: number;
  notGrounded: number;
  readonly inForce: number[];
  counted: CountKey | undefined;
}

const encode = (label: 0 | 1, kind: SpoolKind): number => label + 2 * SPOOL_KINDS.indexOf(kind);
const labelOf = (code: number): 0 | 1 => (code % 2) as 0 | 1;
const kindOf = (code: number): SpoolKind => SPOOL_KINDS[code >> 1] ?? "flagged";

function heapPush(heap: number[], value: number): void {
  heap.push(value);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if ((heap[parent] as number) <= value) break;
    heap[i] = heap[parent] as number;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): void {
  const last = heap.pop() as number;
  if (heap.length === 0) return;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const child = r < heap.length && (heap[r] as number) < (heap[l] as number) ? r : l;
    if ((heap[child] as number) >= last) break;
    heap[i] = heap[child] as number;
    i = child;
  }
  heap[i] = last;
}

/** The kind of an answer: its first reviewer's (in order of appearance) with a label in force; undefined when none has one. */
function firstKind(answer: AnswerState): SpoolKind | undefined {
  for (;;) {
    const top = answer.inForce[0];
    if (top === undefined) return undefined;
    const stack = (answer.keys[top] as KeyState).stack;
    const code = stack[stack.length - 1];
    if (code !== undefined) return kindOf(code);
    heapPop(answer.inForce);
  }
}

/** A new, empty tally. */
export function createLabelTally(): LabelTally {
  const keys = new Map<string, KeyState>();
  const answers = new Map<string, AnswerState>();
  const counts = new Map<CountKey, number>();
  const bump = (key: CountKey | undefined, by: number): void => {
    if (key === undefined) return;
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  };
  return {
    add(r) {
      const name = `${r.id}\u0000${r.reviewer}`;
      let key = keys.get(name);
      if (!key) {
        let answer = answers.get(r.id);
        if (!answer) {
          answer = { keys: [], grounded: 0, notGrounded: 0, inForce: [], counted: undefined };
          answers.set(r.id, answer);
        }
        key = { answer, order: answer.keys.length, stack: [] };
        answer.keys.push(key);
        keys.set(name, key);
      }
      const { answer, stack } = key;
      const before = stack[stack.length - 1];
      if (r.undo) stack.pop();
      else if (r.label !== undefined) stack.push(encode(r.label, r.kind));
      const after = stack[stack.length - 1];
      if (before === after) return;
      if (before !== undefined) {
        if (labelOf(before) === 1) answer.grounded--;
        else answer.notGrounded--;
      }
      if (after !== undefined) {
        if (labelOf(after) === 1) answer.grounded++;
        else answer.notGrounded++;
        if (before === undefined) heapPush(answer.inForce, key.order);
      }
      const kind = firstKind(answer);
      const label = answer.grounded === answer.notGrounded ? undefined : answer.grounded > answer.notGrounded ? 1 : 0;
      const next: CountKey | undefined = kind === undefined || label === undefined ? undefined : `${kind} ${agreementOf(kind, label)}`;
      if (next === answer.counted) return;
      bump(answer.counted, -1);
      bump(next, 1);
      answer.counted = next;
    },
    counts: () => new Map(counts),
  };
}
