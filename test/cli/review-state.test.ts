import { describe, expect, it } from "vitest";
import type { ReviewMode } from "../../src/cli/review/state.ts";
import { ANSWER_MODE, decodeKeys, lineAction, step } from "../../src/cli/review/state.ts";
import { spoolRecord } from "../helpers/review-terminal.ts";

const flagged = spoolRecord();
const sample = spoolRecord({ kind: "grounded_sample", verdict: "grounded" });

/** Runs keys from the answer view; returns the last mode and every action other than none. */
function press(r: typeof flagged, keys: string): { mode: ReviewMode; actions: unknown[] } {
  let mode: ReviewMode = ANSWER_MODE;
  const actions: unknown[] = [];
  for (const key of decodeKeys(keys)) {
    const next = step(r, mode, key);
    mode = next.mode;
    if (next.action.type !== "none") actions.push(next.action);
  }
  return { mode, actions };
}

describe("the terminal review's keys", () => {
  it("agree and disagree label by groundwatch's verdict: a flagged answer agreed is not grounded, a grounded sample agreed is", () => {
    expect(press(flagged, "a").actions).toEqual([{ type: "label", label: 0 }]);
    expect(press(flagged, "d").actions).toEqual([{ type: "label", label: 1 }]);
    expect(press(sample, "a").actions).toEqual([{ type: "label", label: 1 }]);
    expect(press(sample, "d").actions).toEqual([{ type: "label", label: 0 }]);
    expect(press(flagged, "s").actions).toEqual([{ type: "skip" }]);
    expect(press(flagged, "u").actions).toEqual([{ type: "undo" }]);
    expect(press(flagged, "q").actions).toEqual([{ type: "quit" }]);
    expect(press(flagged, "\u0003").actions).toEqual([{ type: "quit" }]);
  });

  it("marks claim by claim from groundwatch's verdicts, moving with j/k and arrows; the answer is grounded iff every claim is supported", () => {
    // Claim 0 contradicted (0), claim 1 supported (1): marking claim 0 supported makes the answer grounded.
    expect(press(flagged, "c1\r").actions).toEqual([{ type: "label", label: 1, claims: [{ index: 0, label: 1 }, { index: 1, label: 1 }] }]);
    expect(press(flagged, "cj0\r").actions).toEqual([{ type: "label", label: 0, claims: [{ index: 0, label: 0 }, { index: 1, label: 0 }] }]);
    expect(press(flagged, "c\u001b[B \u001b[A \r").actions).toEqual([{ type: "label", label: 0, claims: [{ index: 0, label: 1 }, { index: 1, label: 0 }] }]);
    // The cursor stays on the claims; escape goes back without a label.
    const { mode, actions } = press(flagged, "cjjjk");
    expect(mode).toEqual({ kind: "claims", cursor: 0, marks: [0, 1] });
    expect(actions).toEqual([]);
    expect(press(flagged, "c\u001b").mode).toEqual(ANSWER_MODE);
    // In claim mode, a and d are not labels.
    expect(press(flagged, "cad").actions).toEqual([]);
  });

  it("says an answer without claims cannot be marked claim by claim", () => {
    const step0 = step(spoolRecord({ claims: [] }), ANSWER_MODE, "c");
    expect(step0.mode).toEqual(ANSWER_MODE);
    expect(step0.action).toMatchObject({ type: "none", message: expect.stringContaining("no claims") as string });
  });

  it("decodes raw input: arrows, enter, space, Ctrl-C, upper case; drops unknown escapes and letters", () => {
    expect(decodeKeys("A\u001b[B\u001bOA\r \u0003x\u001b[15~z1")).toEqual(["a", "down", "up", "enter", "space", "interrupt", "1"]);
    expect(decodeKeys("\u001b")).toEqual(["escape"]);
  });

  it("reads scripted lines: a, d, s, u, q and c with a mark per claim", () => {
    expect(lineAction(flagged, " a ")).toEqual({ type: "label", label: 0 });
    expect(lineAction(flagged, "c 1 0")).toEqual({ type: "label", label: 0, claims: [{ index: 0, label: 1 }, { index: 1, label: 0 }] });
    expect(lineAction(flagged, "c 1 1")).toMatchObject({ type: "label", label: 1 });
    expect(lineAction(flagged, "c 1")).toMatchObject({ type: "none", message: expect.stringContaining("each of the 2 claims") as string });
    expect(lineAction(flagged, "x")).toMatchObject({ type: "none", message: expect.stringContaining("unknown command") as string });
    expect(lineAction(flagged, "")).toEqual({ type: "none" });
  });
});
