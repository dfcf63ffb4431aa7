import { describe, expect, it } from "vitest";
import { CAUSE_ROWS } from "../helpers/cause-rows.ts";
import { evalRun, set } from "../helpers/eval.ts";

describe("groundwatch eval: the cause of each failing answer and answer relevance", () => {
  it("passes each row's question to the scorer and reports every failing answer's cause, the count by cause and answer relevance, in every format", async () => {
    const r = await evalRun(set([...CAUSE_ROWS]), ["--no-gate"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.rows.map((x) => [x.id, x.verdict, x.cause])).toEqual([
      ["retrieval", "ungrounded", "retrieval"],
      ["generation", "ungrounded", "generation"],
      ["citation", "ungrounded", "citation"],
      ["grounded", "grounded", undefined],
    ]);
    // Relevance is measured against each row's question: it reached the scorer.
    expect(r.json.rows.every((x) => x.relevance?.answer !== undefined && x.relevance.context !== undefined)).toBe(true);
    expect(r.json.rows[0]?.relevance?.context?.addressed).toBe(false);
    expect(r.json.summary.attribution).toEqual({ causes: { retrieval: 1, generation: 1, citation: 1, mixed: 0, unknown: 0 }, answerRelevance: { measured: 4, mean: expect.any(Number), offTopic: 0 } });
    expect(r.md).toContain("| failing answers by cause | 1 retrieval, 1 generation, 1 citation | – | – | – |");
    expect(r.md).toMatch(/\| answer relevance \| 0\.\d{3} mean over 4 answers with a question, 0 off-topic \|/);
    expect(r.md).toMatch(/\| retrieval \| ungrounded \| 0\.\d{3} \| retrieval \|/);
    expect(r.md).toMatch(/\| generation \| ungrounded \| 0\.\d{3} \| generation \|/);
    expect(r.html).toContain('<td>ungrounded<br><span class="why">cause: retrieval</span></td>');
    expect(r.html).toMatch(/relevance: context 0\.\d\d \(off-topic documents\), answer 0\.\d\d/);
    expect(r.html).toContain("<tr><td>failing answers by cause</td><td>1 retrieval, 1 generation, 1 citation</td>");
    expect(r.junit).toMatch(/<system-out>ungrounded \(score 0\.\d{3}, cause retrieval\): unsupported claim/);
  });

  it("leaves causes and relevance out of the reports when relevance is off", async () => {
    const r = await evalRun(set([...CAUSE_ROWS]), ["--no-gate"], { env: { GROUNDWATCH_RELEVANCE: "false" } });
    expect(r.json.summary.attribution).toBeUndefined();
    expect(r.json.rows.some((x) => x.cause !== undefined || x.relevance !== undefined)).toBe(false);
    expect(r.md).not.toContain("failing answers by cause");
  });
});
