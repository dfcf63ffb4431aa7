import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answerWithSpans, renderRecord } from "../../src/cli/review/render.ts";
import type { ReviewMode } from "../../src/cli/review/state.ts";
import { ANSWER_MODE, decodeKeys, lineAction, step } from "../../src/cli/review/state.ts";
import type { LabelRecord } from "../../src/review/record.ts";
import { labelsPath } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { spoolRecord, writeSegment } from "../helpers/review-terminal.ts";

const ESC = "\u001b";
// The answer: "You can return items within 90 days. Refunds go to the original payment method."
const SPANS = [
  { start: 28, end: 35, probability: 0.93, claim: 0, text: "90 days" },
  { start: 64, end: 78, probability: 0.61, claim: 1, text: "payment method" },
];
const withSpans = (): ReturnType<typeof spoolRecord> => spoolRecord({ spans: SPANS });

describe("spans in the terminal review", () => {
  it("highlights the spans in the answer: plain [[…]] markers without colour, an ANSI underline with it", () => {
    const plain = renderRecord(withSpans(), { color: false }).join("\n");
    expect(plain).toContain("You can return items within [[90 days]]. Refunds go to the original [[payment method]].");
    expect(plain).toContain('0. p 0.930, claim 0, chars 28–35: "90 days"');
    const color = renderRecord(withSpans(), { color: true }).join("\n");
    expect(color).toContain(`within ${ESC}[4;31m90 days${ESC}[24;39m.`);
  });

  it("shows the answer as before when no span detector ran", () => {
    expect(renderRecord(spoolRecord(), { color: false }).join("\n")).not.toContain("unsupported spans");
  });

  it("sanitises a hostile answer and span words: no escape sequence but its own highlight", () => {
    const answer = `You ${ESC}[2Jcan ${ESC}]0;pwned${ESC}\\return 90 days.`;
    const r = spoolRecord({ answer, spans: [{ start: 4, end: 12, probability: 0.9, claim: 0, text: `${ESC}[2Jcan` }] });
    const out = renderRecord(r, { color: true }).join("\n");
    const lines = out.split("\n").filter((l) => !l.startsWith(`${ESC}[2m`));
    const escapes = lines.join("\n").match(new RegExp(`${ESC}\\[[0-9;]*m`, "g")) ?? [];
    expect(lines.join("\n").split(ESC).length - 1).toBe(escapes.length);
    expect(out).not.toContain(`${ESC}[2J`);
    expect(out).not.toContain(`${ESC}]0`);
  });

  it("marks spans in time linear in the answer and the spans (N vs 8N)", () => {
    const make = (n: number) => {
      const answer = "ab ".repeat(n);
      return { answer, spans: Array.from({ length: n }, (_, i) => ({ start: 3 * i, end: 3 * i + 2, probability: 0.7, claim: null, text: "ab" })) };
    };
    expectLinear("answerWithSpans", measureGrowth(make, (x) => answerWithSpans(x.answer, x.spans, { color: true }), { n: 20_000 }));
  });

  it("w marks spans: j/k move, space marks the span under the cursor wrong (again takes it back), enter keeps the marks for the label", () => {
    const r = withSpans();
    let mode: ReviewMode = ANSWER_MODE;
    const press = (key: Parameters<typeof step>[2]) => {
      const s = step(r, mode, key);
      mode = s.mode;
      return s.action;
    };
    press("w");
    expect(mode).toEqual({ kind: "spans", cursor: 0, wrong: [] });
    press("j");
    press("space");
    press("k");
    press("space");
    press("space");
    expect(mode).toEqual({ kind: "spans", cursor: 0, wrong: [1] });
    press("enter");
    expect(mode).toEqual({ kind: "answer", wrong: [1] });
    expect(renderRecord(r, { color: false }, undefined, { wrong: [1] }).join("\n")).toContain('[wrong] 1. p 0.610, claim 1, chars 64–78: "payment method"');
    expect(press("d")).toEqual({ type: "label", label: 1, spans: [{ span: 1, verdict: "wrong" }] });
    expect(step(spoolRecord(), ANSWER_MODE, "w").action).toEqual({ type: "none", message: "this answer has no spans to mark" });
    expect(decodeKeys("wW")).toEqual(["w", "w"]);
  });

  it("carries span marks through claim-by-claim marking to its label", () => {
    const r = withSpans();
    const claims = step(r, { kind: "answer", wrong: [0] }, "c").mode;
    expect(step(r, claims, "enter").action).toMatchObject({ type: "label", spans: [{ span: 0, verdict: "wrong" }] });
  });

  it("reads scripted span marks after a label: d w 0 1, c 1 1 w 1; refuses bad ones", () => {
    const r = withSpans();
    expect(lineAction(r, "d w 1 0 1")).toEqual({ type: "label", label: 1, spans: [{ span: 0, verdict: "wrong" }, { span: 1, verdict: "wrong" }] });
    expect(lineAction(r, "c 1 1 w 1")).toMatchObject({ type: "label", label: 1, spans: [{ span: 1, verdict: "wrong" }] });
    expect(lineAction(r, "d w 2")).toMatchObject({ type: "none" });
    expect(lineAction(r, "s w 0")).toMatchObject({ type: "none" });
    expect(lineAction(spoolRecord(), "a w 0")).toEqual({ type: "none", message: "this answer has no spans to mark" });
  });

  it("groundwatch review, scripted: a span marked wrong is written on the label in the labels file", async () => {
    const dir = tempDir();
    writeSegment(dir, [spoolRecord({ id: "f-1", spans: SPANS })], "r1");
    const run = await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "d w 0\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("within [[90 days]].");
    const [label] = readFileSync(labelsPath(dir), "utf8").trim().split("\n").map((l) => JSON.parse(l) as LabelRecord);
    expect(label).toMatchObject({ id: "f-1", label: 1, agreement: "disagree", spans: [{ span: 0, verdict: "wrong" }] });
  });

  it("groundwatch review export writes the span marked wrong as a spanLabel of the row, and says how many", async () => {
    const dir = tempDir();
    writeSegment(dir, [spoolRecord({ id: "f-1", spans: SPANS })], "r1");
    await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "d w 1\n" });
    const out = join(dir, "reviewed.jsonl");
    const run = await runCli(["review", "export", "--dir", dir, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`wrote 1 row to ${out} (1 span marked wrong)\n`);
    const row = JSON.parse(readFileSync(out, "utf8")) as { spanLabels?: unknown };
    expect(row.spanLabels).toEqual([{ span: 1, start: 64, end: 78, probability: 0.61, claim: 1, text: "payment method", verdict: "wrong", votes: 1 }]);
  });
});
