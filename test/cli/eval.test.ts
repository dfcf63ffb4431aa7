import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
const GOOD = "Unopened items may be returned within 30 days of delivery.";
const BAD = "Items may be returned within 90 days in any condition.";

function set(rows: unknown[]): string {
  const path = join(tempDir(), "eval.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

const rows = (bad: number, total = 10): unknown[] => Array.from({ length: total }, (_, i) => ({ id: `q${i}`, question: "How long can I return items?", context: [DOC], answer: i < bad ? BAD : GOOD }));

describe("groundwatch eval", () => {
  it("passes a clean set and writes report.json, report.md, junit.xml, report.html and the step summary", async () => {
    const out = tempDir();
    const summary = join(out, "summary.md");
    writeFileSync(summary, "");
    const run = await runCli(["eval", "--set", set(rows(0)), "--floor", "0.3", "--max-hallucination-rate", "0.05", "--out", out, "--backend", "offline"], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("## groundwatch eval — PASSED");
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { summary: { rows: number; hallucinationRate: number }; gate: { passed: boolean } };
    expect(report).toMatchObject({ summary: { rows: 10, hallucinationRate: 0 }, gate: { passed: true } });
    expect(readFileSync(join(out, "junit.xml"), "utf8").match(/<testcase /g)).toHaveLength(10);
    expect(readFileSync(summary, "utf8")).toContain("PASSED");
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("<svg");
  });

  it("fails the gate on the hallucination rate, with the interval and the failing rows, exit 1", async () => {
    const out = tempDir();
    const run = await runCli(["eval", "--set", set(rows(3)), "--max-hallucination-rate", "0.1", "--out", out, "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("## groundwatch eval — FAILED");
    expect(run.stdout).toMatch(/hallucination rate 30\.0% is above the maximum 10\.0%/);
    expect(run.stdout).toMatch(/\| hallucination rate \| 30\.0% \(95% CI \d+\.\d%–\d+\.\d%\)/);
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain('failures="3"');
    expect(junit).toContain('<failure message="ungrounded');
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain('<mark class="contradicted"');
  });

  it("escapes untrusted text in the HTML and JUnit reports", async () => {
    const out = tempDir();
    await runCli(["eval", "--set", set([{ id: "<x>", context: [DOC], answer: `<script>alert(1)</script> The fee is $5 & free.` }]), "--out", out, "--backend", "offline"]);
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain('name="&lt;x&gt;"');
  });

  it("flags rows that regressed against a baseline report", async () => {
    const base = tempDir();
    await runCli(["eval", "--set", set(rows(0, 4)), "--out", base, "--backend", "offline"]);
    const run = await runCli(["eval", "--set", set(rows(1, 4)), "--baseline", join(base, "report.json"), "--out", tempDir(), "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("1 row(s) regressed against the baseline");
    expect(run.stdout).toMatch(/\| q0 \| grounded \(\d\.\d{3}\) \| ungrounded \(\d\.\d{3}\) \|/);
  });

  it("asks a RAG endpoint for the answers with --target, and fails closed on a broken reply", async () => {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        const q = (JSON.parse(body) as { query: string }).query;
        if (q.includes("broken")) {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ nope: true }));
          return;
        }
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { text: q.includes("bad") ? BAD : GOOD } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`;
    const out = tempDir();
    const run = await runCli([
      "eval", "--set", set([{ id: 1, question: "good one", context: [DOC] }, { id: 2, question: "a bad one", context: [DOC] }, { id: 3, question: "broken \"quoted\"", context: [DOC] }]),
      "--target", url, "--request", '{"query":"{{question}}"}', "--answer-path", "data.text", "--out", out, "--backend", "offline",
    ]);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { rows: Array<{ id: number; verdict: string; reason?: string; error?: string }> };
    expect(report.rows.map((r) => r.verdict)).toEqual(["grounded", "ungrounded", "unscorable"]);
    expect(report.rows[2]).toMatchObject({ reason: "target_error" });
    expect(report.rows[2]?.error).toContain('no string at "data.text"');
    expect(run.code).toBe(0);
  });

  it("names a row without an answer when there is no --target", async () => {
    const run = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: "c" }])]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 1: no "answer", and no --target to ask for one');
  });

  // Regression: a repeated id was accepted, and the baseline comparison (a map by id) silently
  // compared one of the two rows against the other's earlier result.
  it("refuses a set that repeats a row id, naming both lines", async () => {
    const run = await runCli(["eval", "--set", set([{ id: "a", context: DOC, answer: GOOD }, { id: "b", context: DOC, answer: GOOD }, { id: "a", context: DOC, answer: BAD }]), "--out", tempDir(), "--backend", "offline"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 3: id "a" is already used on line 1');
  });
});
