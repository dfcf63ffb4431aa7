import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";

// The first sentence is the document's word for word; the second is not.
const ROW = { context: ["Returns are accepted within 30 days of delivery. Refunds go back to the original card."], answer: "Returns are accepted within 30 days of delivery. The refund goes to your card." };
const ROWS = `${JSON.stringify({ id: "first", ...ROW })}\n${JSON.stringify({ id: "again", ...ROW })}\n`;

describe("groundwatch score reports the model work", () => {
  it("in the JSON rows: entailmentCalls sent, and callsSaved by a verbatim sentence and by the judgement cache", async () => {
    const run = await runCli(["score", "--input", "-"], { stdin: ROWS });
    expect(run.code).toBe(0);
    const [first, again] = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { entailmentCalls: number; callsSaved?: { verbatim: number; cache: number } });
    expect(first?.entailmentCalls).toBeGreaterThan(0);
    expect(first?.callsSaved).toEqual({ verbatim: 1, cache: 0, triage: 0 });
    expect(again?.entailmentCalls).toBe(0);
    expect(again?.callsSaved).toEqual({ verbatim: 1, cache: first?.entailmentCalls, triage: 0 });
  });

  it("in the table: one closing line of model calls made and saved", async () => {
    const json = await runCli(["score", "--input", "-"], { stdin: ROWS });
    const sent = (JSON.parse(json.stdout.trim().split("\n")[0] ?? "{}") as { entailmentCalls: number }).entailmentCalls;
    const run = await runCli(["score", "--input", "-", "--format", "table"], { stdin: ROWS });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").at(-1)).toBe(`model calls ${sent}, saved 2 verbatim + ${sent} cached`);
  });
});
