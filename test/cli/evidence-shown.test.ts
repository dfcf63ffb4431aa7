import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { evalRun, set } from "../helpers/eval.ts";

// One retrieved document whose window holds several sentences; the one about returns is the last.
const POLICY = [
  "Our bookshop was founded in 1990 by two brothers who loved old maps and travel writing.",
  "We ship to every country in Europe and to most of Asia, with tracking on every parcel.",
  "Returns are accepted within 30 days of delivery.",
].join(" ");
const ROW = { id: "returns", context: [POLICY], answer: "Returns are accepted within 90 days of delivery." };
const SENTENCE = "Returns are accepted within 30 days of delivery.";
const START = POLICY.indexOf(SENTENCE);

function writeInput(rows: unknown[]): string {
  const path = join(tempDir(), "rows.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

describe("groundwatch score: the evidence shown is the sentence that bears on the claim", () => {
  it("--format table shows the conflicting sentence of a multi-sentence window, not the window's opening text", async () => {
    const run = await runCli(["score", "--input", writeInput([ROW]), "--format", "table"]);
    expect(run.code).toBe(0);
    const start = POLICY.indexOf("Returns are");
    expect(run.stdout).toContain(`contradicting evidence [document [1], ${start}–${POLICY.length}]: "Returns are accepted within 30 days of delivery."`);
    expect(run.stdout).not.toContain("Our bookshop was founded");
  });

  it("--format json gives the sentence as evidence and the window it was judged in as its context", async () => {
    const run = await runCli(["score", "--input", writeInput([ROW]), "--format", "json"]);
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout) as unknown;
    const row = (Array.isArray(parsed) ? parsed[0] : parsed) as { claims: Array<{ evidence: { doc: number; start: number; end: number; text: string; window: { start: number; end: number } }; contradictingEvidence: { text: string; start: number; end: number } }> };
    const claim = row.claims[0];
    const start = POLICY.indexOf("Returns are");
    expect(claim?.contradictingEvidence).toMatchObject({ start, end: POLICY.length, text: "Returns are accepted within 30 days of delivery." });
    expect(claim?.evidence).toEqual({ doc: 0, start, end: POLICY.length, text: "Returns are accepted within 30 days of delivery.", window: { start: 0, end: POLICY.length } });
    expect(POLICY.slice(claim?.evidence.start, claim?.evidence.end)).toBe(claim?.evidence.text);
  });
});

describe("groundwatch score: a claim judged against two sentences read together shows both", () => {
  it("--format json gives the first sentence as evidence and the second as evidence.also", async () => {
    const seats = "The Team plan includes 5 seats.";
    const support = "The Team plan includes priority support.";
    const run = await runCli(["score", "--input", writeInput([{ id: "team", context: [seats, support], answer: "The Team plan includes 5 seats and priority support." }]), "--format", "json"]);
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout) as unknown;
    const row = (Array.isArray(parsed) ? parsed[0] : parsed) as { verdict: string; claims: Array<{ verdict: string; evidence: { doc: number; text: string; also?: { doc: number; start: number; end: number; text: string } } }> };
    expect(row.claims[0]?.verdict).toBe("supported");
    expect(row.claims[0]?.evidence).toMatchObject({ doc: 0, text: seats, also: { doc: 1, start: 0, end: support.length, text: support } });
  });
});

describe("groundwatch eval: every report shows the sentence that bears on the claim", () => {
  it("report.md, report.html, junit.xml and report.json give the conflicting sentence, not the window's opening text", async () => {
    const r = await evalRun(set([ROW]), []);
    expect(r.code).toBe(1);
    const where = `[document [1], ${START}–${POLICY.length}]`;
    expect(r.md).toContain(`| contradicting evidence ${where.replace(/[[\]]/g, "\\$&")}: ${SENTENCE} |`);
    expect(r.html).toContain(`<span class="ev">contradicting evidence ${where}: ${SENTENCE}</span>`);
    expect(r.junit).toContain(`type="ungrounded">contradicting evidence: ${SENTENCE}</failure>`);
    for (const report of [r.md, r.html, r.junit]) expect(report).not.toContain("Our bookshop was founded");
    const claim = r.json.rows[0]?.claims[0];
    expect(claim?.contradictingEvidence).toEqual({ doc: 0, start: START, end: POLICY.length, text: SENTENCE, window: { start: 0, end: POLICY.length } });
  });
});
