import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { EvalReport } from "../../src/cli/eval/types.ts";
import { parseEvalSetRow } from "../../src/cli/shared/score-rows.ts";
import { parseReplyPath } from "../../src/cli/eval/target.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// Issue 14 (release gate): eval read only its own rows, and with --target every row still needed
// a fixed context, so it could not check answers against what the service actually retrieved.

const RETURNS = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
const SHIPPING = "Shipping: standard shipping is free on orders over $50. Express shipping costs $15.";
const GOOD = "Unopened items may be returned within 30 days of delivery.";
const BAD = "Items may be returned within 90 days in any condition.";

function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}
const jsonl = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

async function evalReport(args: string[]): Promise<{ code: number; stdout: string; stderr: string; report: EvalReport }> {
  const out = tempDir();
  const run = await runCli(["eval", ...args, "--out", out, "--backend", "offline", "--no-gate"]);
  expect(run.code, run.stderr).toBe(0);
  return { ...run, report: JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as EvalReport };
}

const verdicts = (r: EvalReport): Array<[string | number, string]> => r.rows.map((x) => [x.id, x.verdict]);

describe("groundwatch eval: RAGAS and DeepEval rows as they are", () => {
  it("scores RAGAS rows, ids defaulting to the line number", async () => {
    const path = file("ragas.jsonl", jsonl([
      { user_input: "How long can I return items?", retrieved_contexts: [RETURNS, SHIPPING], response: GOOD, reference: "30 days" },
      { user_input: "How long can I return items?", retrieved_contexts: [RETURNS], response: BAD, reference: "30 days" },
    ]));
    const { report } = await evalReport(["--set", path]);
    expect(verdicts(report)).toEqual([[1, "grounded"], [2, "ungrounded"]]);
    expect(report.rows[0]?.question).toBe("How long can I return items?");
  });

  it("scores DeepEval rows, taking retrieval_context over context", async () => {
    const path = file("deepeval.jsonl", `${JSON.stringify({ id: "a", input: "Returns?", actual_output: GOOD, expected_output: "30 days", retrieval_context: [RETURNS], context: [SHIPPING] })}\n\n${JSON.stringify({ input: "Shipping?", actual_output: "Express shipping costs $15.", context: [SHIPPING], retrieval_context: null })}\n`);
    const { report } = await evalReport(["--set", path]);
    // The blank line counts: the second row is on line 3.
    expect(verdicts(report)).toEqual([["a", "grounded"], [3, "grounded"]]);
  });

  it("reads a set written as one JSON array (the bundled RAGAS example), ids by position", async () => {
    const { report } = await evalReport(["--set", "examples/eval/ragas.json"]);
    expect(verdicts(report)).toEqual([[1, "grounded"], [2, "grounded"], [3, "ungrounded"]]);
  });

  it("reads the bundled DeepEval example", async () => {
    const { report } = await evalReport(["--set", "examples/eval/deepeval.jsonl"]);
    expect(verdicts(report)).toEqual([[1, "ungrounded"], [2, "grounded"], [3, "grounded"]]);
  });

  it("names the line and field of a bad row in any convention, before scoring", async () => {
    const cases: Array<[unknown, string]> = [
      [{ user_input: "q", retrieved_contexts: "c", response: "a", actual_output: "b" }, 'line 1: mixes the fields of RAGAS (user_input, retrieved_contexts, response) and DeepEval (actual_output): use one convention per row'],
      [{ question: "q", context: "c", response: "a" }, "line 1: mixes the fields of RAGAS (response) and groundwatch (question): use one convention per row"],
      [{ user_input: [{ content: "hi", type: "human" }], retrieved_contexts: ["c"], response: "a" }, 'line 1: "user_input" is a conversation (a multi-turn sample): give the question as a string'],
      [{ input: "q", retrieval_context: [1], actual_output: "a" }, 'line 1: "retrieval_context[0]" must be a string or a { text, id?, title?, url? } object (got number)'],
      [{ user_input: "q", response: "a" }, 'line 1: no "retrieved_contexts" to check the answer against'],
      [{ input: "q", retrieval_context: ["c"] }, 'line 1: no "actual_output", and no --target to ask for one'],
    ];
    for (const [row, message] of cases) {
      const run = await runCli(["eval", "--set", file("bad.jsonl", jsonl([row])), "--out", tempDir(), "--backend", "offline"]);
      expect(run.code, message).toBe(2);
      expect(run.stderr).toBe(`groundwatch eval: ${message}\n`);
    }
  });

  it("refuses a default id that another row uses, and names rows of a JSON array by position", async () => {
    const repeated = await runCli(["eval", "--set", file("set.jsonl", jsonl([{ id: 2, context: RETURNS, answer: GOOD }, { context: RETURNS, answer: GOOD }])), "--out", tempDir()]);
    expect(repeated.code).toBe(2);
    expect(repeated.stderr).toContain('line 2: has no "id", and its default id 2 is already used on line 1');
    const array = await runCli(["eval", "--set", file("set.json", JSON.stringify([{ context: RETURNS, answer: GOOD }, { context: RETURNS, answer: 5 }])), "--out", tempDir()]);
    expect(array.code).toBe(2);
    expect(array.stderr).toContain('row 2: "answer" must be a string (got number)');
    const broken = await runCli(["eval", "--set", file("set.json", "[{}"), "--out", tempDir()]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('the set starts with "[" but is not a valid JSON array');
  });

  it("maps each convention's fields (unit)", () => {
    expect(parseEvalSetRow({ user_input: "q", retrieved_contexts: ["d"], response: "a", reference: "r" }, "line 4", 4)).toEqual({ format: "ragas", id: 4, question: "q", context: ["d"], answer: "a" });
    expect(parseEvalSetRow({ id: "x", input: "q", context: ["ideal"], actual_output: "a" }, "line 1", 1)).toEqual({ format: "deepeval", id: "x", question: "q", context: ["ideal"], answer: "a" });
    expect(parseEvalSetRow({ id: 7, question: "q", context: "d", answer: "a", label: 1 }, "line 1", 1)).toEqual({ format: "groundwatch", id: 7, question: "q", context: "d", answer: "a", label: 1 });
    expect(parseEvalSetRow([], "row 1", 1)).toBe("row 1: expected a JSON object, got array");
  });
});

/** A RAG service that answers from a fixed reply per question; closed when the test ends. */
async function ragService(reply: (question: string) => unknown): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const q = (JSON.parse(body) as { question: string }).question;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply(q)));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`;
}

describe("groundwatch eval --target --context-path: score against what the service retrieved", () => {
  it("takes the documents from a field of each object ([*].text), and fails only the rows whose reply lacks them", async () => {
    const url = await ragService((q) => {
      if (q.includes("nothing")) return { answer: GOOD };
      // The service retrieved the shipping page only: the same good answer is not grounded in it.
      const docs = q.includes("shipping") ? [SHIPPING] : [RETURNS, SHIPPING];
      return { answer: GOOD, sources: docs.map((text, i) => ({ id: i, text })) };
    });
    const set = file("set.jsonl", jsonl([
      { id: "returns", question: "returns?" },
      { id: "shipping", question: "shipping?" },
      { id: "missing", question: "nothing?" },
      // A row's own context is replaced by what the service retrieved.
      { id: "own", question: "returns again?", context: "Nothing relevant." },
    ]));
    const { report } = await evalReport(["--set", set, "--target", url, "--context-path", "sources[*].text"]);
    expect(verdicts(report)).toEqual([["returns", "grounded"], ["shipping", "ungrounded"], ["missing", "unscorable"], ["own", "grounded"]]);
    expect(report.rows[0]).toMatchObject({ contextFrom: "reply" });
    expect(report.rows[2]).toMatchObject({ reason: "target_error", error: `target ${url}: the reply has no string or array of strings at "sources[*].text" (found nothing)` });
  });

  it("sends every row, answered or not, and says how many rows' own answers were not scored (regression: answered rows were silently not sent)", async () => {
    let asked = 0;
    const url = await ragService(() => {
      asked++;
      return { answer: GOOD, sources: [RETURNS] };
    });
    const set = file("set.jsonl", jsonl([
      { id: "a", question: "returns?", answer: "Made up by the set itself." },
      { id: "b", question: "returns?" },
    ]));
    const run = await runCli(["eval", "--set", set, "--target", url, "--context-path", "sources", "--out", tempDir(), "--backend", "offline"]);
    expect(run.stderr).toContain(`--target: 1 of 2 rows carry their own answer; every row is sent to ${url} and its reply is scored instead`);
    expect(asked).toBe(2);
  });

  it("takes an array of strings or one string, and RAGAS rows without retrieved_contexts", async () => {
    const url = await ragService((q) => ({ result: { text: q.includes("bad") ? BAD : GOOD, docs: [RETURNS], top: RETURNS } }));
    const set = file("set.jsonl", jsonl([{ user_input: "good?" }, { user_input: "bad?" }]));
    const arrays = await evalReport(["--set", set, "--target", url, "--answer-path", "result.text", "--context-path", "result.docs"]);
    expect(verdicts(arrays.report)).toEqual([[1, "grounded"], [2, "ungrounded"]]);
    const single = await evalReport(["--set", set, "--target", url, "--answer-path", "result.text", "--context-path", "$.result.top"]);
    expect(verdicts(single.report)).toEqual([[1, "grounded"], [2, "ungrounded"]]);
  });

  it("points at [*].FIELD when the path names an array of objects", async () => {
    const url = await ragService(() => ({ answer: GOOD, sources: [{ text: RETURNS }] }));
    const { report } = await evalReport(["--set", file("set.jsonl", jsonl([{ question: "q" }])), "--target", url, "--context-path", "sources"]);
    expect(report.rows[0]?.error).toContain('found an array of objects); to take a field of each object, end the path with [*].FIELD, e.g. "sources[*].text"');
  });

  it("refuses, before asking anything: --context-path without --target, a row with no context and no --context-path, bad paths", async () => {
    const set = file("set.jsonl", jsonl([{ id: 1, question: "q" }]));
    const cases: Array<[string[], string]> = [
      [["--context-path", "docs"], "--context-path takes the documents from the service's reply: it needs --target"],
      [["--target", "http://127.0.0.1:9/"], 'line 1: no "context", and no --context-path to take the retrieved documents from the reply'],
      [["--target", "http://127.0.0.1:9/", "--context-path", "docs[x]"], '--context-path "docs[x]" is not a path: "docs[x]" is not a key, [N] or [*]'],
      [["--target", "http://127.0.0.1:9/", "--answer-path", "choices[*].text"], "--answer-path must name one string; [*] is for --context-path and --samples-path"],
    ];
    for (const [flags, message] of cases) {
      const run = await runCli(["eval", "--set", set, ...flags, "--out", tempDir(), "--backend", "offline"]);
      expect(run.code, message).toBe(2);
      expect(run.stderr).toBe(`groundwatch eval: ${message}\n`);
    }
  });

  it("parses reply paths (unit)", () => {
    expect(parseReplyPath("choices[0].message.content")).toEqual([{ key: "choices" }, { index: 0 }, { key: "message" }, { key: "content" }]);
    expect(parseReplyPath("choices.0.message.content")).toEqual([{ key: "choices" }, { index: 0 }, { key: "message" }, { key: "content" }]);
    expect(parseReplyPath("$.data[*].chunks[*]")).toEqual([{ key: "data" }, { each: true }, { key: "chunks" }, { each: true }]);
    expect(parseReplyPath("docs.*.text")).toEqual([{ key: "docs" }, { each: true }, { key: "text" }]);
    expect(parseReplyPath("a..b")).toBe('"" is not a key, [N] or [*]');
    expect(parseReplyPath("")).toBe("it is empty");
  });
});
