import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

const ROW_GOOD = { id: "a", context: ["The museum opens at nine in the morning.", "Entry costs ten euros."], answer: "The museum opens at nine in the morning." };
const ROW_BAD_DAYS = { id: 2, context: "Returns are accepted within 30 days of delivery.", answer: "Returns are accepted within 90 days of delivery." };
const ROW_EMPTY_CTX = { id: "c", context: [], answer: "The warranty lasts two years." };

function jsonl(rows: unknown[]): string {
  return rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n";
}

function writeInput(rows: unknown[]): string {
  const dir = tempDir();
  const path = join(dir, "rows.jsonl");
  writeFileSync(path, jsonl(rows));
  return path;
}

describe("groundwatch score", () => {
  it("writes one result per row with id, score, verdict and claims with evidence", async () => {
    const input = writeInput([ROW_GOOD, ROW_BAD_DAYS, ROW_EMPTY_CTX]);
    const run = await runCli(["score", "--input", input]);
    expect(run.code).toBe(0);
    const rows = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => r.id)).toEqual(["a", 2, "c"]);
    expect(rows.map((r) => r.verdict)).toEqual(["grounded", "ungrounded", "unscorable"]);
    expect(rows[2]).toMatchObject({ score: null, reason: "empty_context" });
    const claims = rows[1]?.claims as Array<Record<string, unknown>>;
    expect(claims[0]).toMatchObject({ verdict: "contradicted", start: 0, evidence: { doc: 0, start: 0 } });
    expect(rows[0]?.backend).toMatchObject({ name: "offline", tier: "triage" });
    expect(run.stderr).toContain("3 scored (1 grounded, 1 ungrounded, 1 unscorable), 0 invalid");
    expect(run.stderr).toContain("WARNING: no NLI model configured or cached: scoring with the offline backend, whose results are TRIAGE-GRADE");
  });

  it("reads RAGAS and DeepEval rows as they are, their id defaulting to the line number", async () => {
    const ragas = { user_input: "When does the museum open?", retrieved_contexts: ROW_GOOD.context, response: ROW_GOOD.answer, reference: "At nine." };
    const deepeval = { input: "How long is the return window?", retrieval_context: [ROW_BAD_DAYS.context], actual_output: ROW_BAD_DAYS.answer, expected_output: "30 days." };
    const run = await runCli(["score", "--input", "-"], { stdin: jsonl([ragas, deepeval]) });
    expect(run.code).toBe(0);
    const rows = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: unknown; verdict: string });
    expect(rows.map((r) => [r.id, r.verdict])).toEqual([
      [1, "grounded"],
      [2, "ungrounded"],
    ]);
    const missing = await runCli(["score", "--input", "-"], { stdin: jsonl([{ user_input: "q", response: "a" }]) });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('line 1: "retrieved_contexts" is missing: score needs the retrieved documents');
  });

  it("reads an input file saved with a UTF-8 byte order mark", async () => {
    const dir = tempDir();
    const path = join(dir, "bom.jsonl");
    writeFileSync(path, `\uFEFF${jsonl([ROW_GOOD])}`);
    const run = await runCli(["score", "--input", path]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim()) as Record<string, unknown>).toMatchObject({ id: "a", verdict: "grounded" });
  });

  it("writes to --output and reads standard input with -", async () => {
    const dir = tempDir();
    const output = join(dir, "out.jsonl");
    const run = await runCli(["score", "--input", "-", "--output", output], { stdin: jsonl([ROW_GOOD]) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(JSON.parse(readFileSync(output, "utf8").trim())).toMatchObject({ id: "a", verdict: "grounded" });
  });

  it("stops at a malformed row with its line number and exit code 3", async () => {
    const input = writeInput([ROW_GOOD, "{not json", ROW_GOOD]);
    const run = await runCli(["score", "--input", input]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("line 2: not valid JSON");
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("1 invalid");
  });

  it("reports and skips malformed rows with --skip-invalid, counting them", async () => {
    const input = writeInput([{ id: 1, context: 5, answer: "x" }, ROW_GOOD, { id: 3, context: ["ok", 7], answer: "x" }, { context: "c", answer: "a" }, ["array"]]);
    const run = await runCli(["score", "--input", input, "--skip-invalid"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('line 1: "context" must be a string or an array of documents (got number)');
    expect(run.stderr).toContain('line 3: "context[1]" must be a string or a { text, id?, title?, url? } object (got number)');
    expect(run.stderr).toContain('line 4: "id" must be a string or a number (got undefined)');
    expect(run.stderr).toContain("line 5: expected a JSON object, got array");
    expect(run.stderr).toContain("1 scored (1 grounded, 0 ungrounded, 0 unscorable), 4 invalid (skipped)");
  });

  it("shows progress only when standard error is a terminal", async () => {
    const input = writeInput([ROW_GOOD, ROW_GOOD]);
    const tty = await runCli(["score", "--input", input], { stderrIsTTY: true });
    expect(tty.stderr).toMatch(/\r {2}scored 1 rows \d+\.\d% \(\d+ rows\/s\)/);
    const pipe = await runCli(["score", "--input", input]);
    expect(pipe.stderr).not.toContain("\r");
  });

  it("applies --threshold to verdicts", async () => {
    // Not a sentence of the context word for word (that would be entailment 1, whatever the threshold).
    const input = writeInput([{ ...ROW_GOOD, answer: "The museum opens at nine." }]);
    const strict = await runCli(["score", "--input", input, "--threshold", "0.999"]);
    const row = JSON.parse(strict.stdout) as { verdict: string; threshold: number };
    expect(row).toMatchObject({ verdict: "ungrounded", threshold: 0.999 });
  });

  it("prints a readable table with unsupported claims and their nearest evidence", async () => {
    const input = writeInput([ROW_BAD_DAYS]);
    const run = await runCli(["score", "--input", input, "--format", "table"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ungrounded");
    expect(run.stdout).toContain("✗ contradicted");
    expect(run.stdout).toContain('contradicting evidence [document [1], 0–');
    expect(run.stdout).toContain('"90 days" where the evidence says "30 days"');
  });

  it("strips terminal escapes from answers in the table", async () => {
    const input = writeInput([{ id: "x", context: "The museum opens at nine.", answer: "The museum \u001b[31mopens\u001b[0m at nine.\u202e" }]);
    const run = await runCli(["score", "--input", input, "--format", "table"]);
    expect(run.stdout).not.toContain("\u001b");
    expect(run.stdout).not.toContain("\u202e");
  });

  it("escapes 8-bit CSI and bidi controls in JSONL and JSON output, which still parse to the same text", async () => {
    const id = "row\u009b31m\u202e";
    const input = writeInput([{ id, context: "The museum opens at nine.", answer: "The museum \u009b31mopens\u009b0m at nine.\u2067" }]);
    for (const format of ["jsonl", "json"]) {
      const run = await runCli(["score", "--input", input, "--format", format]);
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      const parsed = JSON.parse(format === "json" ? run.stdout : run.stdout.trim()) as { id: string } | Array<{ id: string }>;
      expect(Array.isArray(parsed) ? parsed[0]?.id : parsed.id).toBe(id);
    }
  });

  describe("with resamples: claim-level consistency", () => {
    const ROW_RESAMPLED = {
      id: "zorbex",
      question: "Where was the Zorbex Protocol signed, and when was it ratified?",
      context: "The Zorbex Protocol was signed in Geneva in March. The parliament ratified it in 1998.",
      answer: "The Zorbex Protocol was signed in Geneva. It was ratified in 1998.",
      // Every resample says Geneva; the year changes from one to the next.
      samples: ["The Zorbex Protocol was signed in Geneva and ratified in 2004.", "It was signed in Geneva; it was ratified in 1976.", "Signed in Geneva, ratified in 2011.", "The protocol was signed in Geneva and ratified in 1987.", "It was signed in Geneva and ratified in 1998."],
    };

    it("gives each claim resampleSupport and the row its unstable claims", async () => {
      const run = await runCli(["score", "--input", writeInput([ROW_RESAMPLED, ROW_GOOD])]);
      expect(run.code).toBe(0);
      const [row, plain] = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const claims = row?.claims as Array<{ text: string; resampleSupport?: { supported: number; contradicted: number; of: number } }>;
      expect(claims.map((c) => [c.text, c.resampleSupport])).toEqual([
        ["The Zorbex Protocol was signed in Geneva.", { supported: 5, contradicted: 0, of: 5 }],
        ["It was ratified in 1998.", { supported: 1, contradicted: 4, of: 5 }],
      ]);
      expect(row?.unstableClaims).toEqual([{ index: 1, text: "It was ratified in 1998.", start: 42, end: 66, resampleSupport: { supported: 1, contradicted: 4, of: 5 } }]);
      expect(row?.claimConsistency).toMatchObject({ claims: 2, measured: 2, unstable: 1, samples: 5, reliable: true, unstableShare: 0.5 });
      expect(plain).not.toHaveProperty("unstableClaims");
      expect(plain).not.toHaveProperty("claimConsistency");
    });

    it("fails the combined verdict on the unstable claim when GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS is set", async () => {
      const env = { GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS: "1", GROUNDWATCH_COMBINED_POLICY: "groundedness-only" };
      const run = await runCli(["score", "--input", writeInput([ROW_RESAMPLED])], { env });
      const row = JSON.parse(run.stdout) as { combined: { verdict: string; reasons: string[] } };
      expect(row.combined).toEqual({ verdict: "fail", reasons: ["unstable: 1 of 2 claims entailed by fewer than 50% of 5 resamples: claim 1 (1 of 5)"] });
    });

    it("shows in the table which sentence the model would not say again", async () => {
      const run = await runCli(["score", "--input", writeInput([ROW_RESAMPLED]), "--format", "table"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("claim stability: 1 of 2 claims entailed by fewer than 50% of 5 resamples\n");
      expect(run.stdout).toContain('~ supported (0.869) but unstable: "It was ratified in 1998."');
      expect(run.stdout).toContain("unstable: entailed by 1 of 5 resamples, contradicted by 4 — the model would not say it again");
      expect(run.stdout).not.toContain("Geneva.\"\n");
    });

    it("says in the table when identical resamples leave stability unmeasured", async () => {
      const run = await runCli(["score", "--input", writeInput([{ ...ROW_RESAMPLED, samples: ["It was signed in Geneva and ratified in 1998.", "It was signed in Geneva and ratified in 1998."] }]), "--format", "table"]);
      expect(run.stdout).toMatch(/claim stability: 0 of 2 claims entailed by fewer than 50% of 2 resamples — UNRELIABLE: all 2 samples are identical/);
    });
  });

  describe("usage errors exit 2 and name the problem", () => {
    it.each([
      [["score", "--input", "/nonexistent/rows.jsonl"], "cannot read /nonexistent/rows.jsonl: no such file"],
      [["score", "--input", "-", "--threshold", "high"], '--threshold must be a number (got "high")'],
      [["score", "--input", "-", "--threshold", "1.5"], "invalid threshold: 1.5 (expected a number from 0 to 1)"],
      [["score", "--input", "-", "--backend", "gpt"], 'invalid backend: "gpt" (expected one of auto, offline, onnx, judge, spans)'],
      [["score", "--input", "-", "--backend", "spans"], "invalid spanModel: undefined (the spans backend needs a span detector: --span-model"],
      [["score", "--input", "-", "--span-model", "/nonexistent/dir"], 'invalid spanModel: "/nonexistent/dir" (no such directory'],
      [["score", "--input", "-", "--backend", "onnx"], "the onnx backend needs --model"],
      [["score", "--input", "-", "--model", "/nonexistent/dir"], 'invalid model: "/nonexistent/dir" (no such directory'],
      [["score", "--input", "-", "--model", "org/not-pulled"], "run `groundwatch model pull org/not-pulled`"],
      [["score", "--input", "-", "--backend", "judge"], "the judge backend needs a base URL"],
      [["score", "--input", "-", "--require-production"], "refusing to score with the triage-tier offline backend"],
      [["score", "--input", "-", "--onnx-workers", "many"], '--onnx-workers must be a number (got "many")'],
      [["score", "--input", "-", "--format", "xml"], '--format must be jsonl, json or table (got "xml")'],
      [["score", "--bogus"], "unknown flag --bogus"],
      [["score", "--inptu", "rows.jsonl"], "unknown flag --inptu (did you mean --input?)"],
      [["frobnicate"], 'unknown command "frobnicate"'],
    ])("%j", async (argv, message) => {
      const run = await runCli(argv, { stdin: "" });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    });

    it("asks for input when none is given at an interactive terminal", async () => {
      const run = await runCli(["score"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('groundwatch score: no input: give a file (groundwatch … FILE or --input FILE), or pipe rows to standard input\nRun "groundwatch score --help" for usage.\n');
    });

    it("refuses a triage backend when GROUNDWATCH_REQUIRE_PRODUCTION is set", async () => {
      const run = await runCli(["score", "--input", "-", "--backend", "offline"], { stdin: "", env: { GROUNDWATCH_REQUIRE_PRODUCTION: "1" } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("refusing to score with the triage-tier offline backend");
      expect(run.stderr).toContain("GROUNDWATCH_REQUIRE_PRODUCTION=1");
    });

    it("names a bad environment variable", async () => {
      const run = await runCli(["score", "--input", "-"], { stdin: "", env: { GROUNDWATCH_TOP_K: "0" } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("invalid GROUNDWATCH_TOP_K: 0");
    });
  });

  it("documents its exit codes in --help", async () => {
    const run = await runCli(["score", "--help"]);
    expect(run.code).toBe(0);
    for (const code of ["0  every row", "1  a failure", "2  bad flags", "3  a malformed input row"]) expect(run.stdout).toContain(code);
  });
});
