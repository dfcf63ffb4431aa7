/**
 * A span detector (token classification) as a new user meets it from the CLI: `model info` says how
 * it is fed and read and how to run it; `--backend onnx --model` on it is refused on `model` with the
 * way to run it; `score --backend spans --span-model` marks words and reads every answer once.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

const SPANS = fileURLToPath(new URL("../fixtures/models/spans/lettucedetect-modernbert/", import.meta.url));

function rows(): string {
  const file = join(tempDir(), "rows.jsonl");
  const row = (id: string, answer: string) => JSON.stringify({ id, question: "Which support does the Basic plan include?", context: ["The Premium plan includes phone support; the Basic plan includes email support only."], answer });
  writeFileSync(file, `${row("a", "The Basic plan includes phone support. Refunds take 30 days.")}\n${row("b", "The Basic plan includes email support.")}\n`);
  return file;
}

describe("a span detector from the CLI", () => {
  it("model info names it a span detector: the class read as unsupported, the span rule, and how to run it", async () => {
    const run = await runCli(["model", "info", SPANS]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/recipe: +span detector \(token classification/);
    expect(run.stdout).toMatch(/mapping: +unsupported = class 1; a run of answer tokens at p ≥ 0.5/);
    expect(run.stdout).toContain("--backend spans --span-model");
  });

  it("refuses --backend onnx --model on a span detector, on the field model, saying how to run it", async () => {
    const run = await runCli(["score", rows(), "--backend", "onnx", "--model", SPANS]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/invalid model: .*span detector .*--backend spans --span-model/);
  });

  it("scores with --backend spans: every row carries its spans and one detector run, claims a span falls in are unsupported_span", async () => {
    const run = await runCli(["score", rows(), "--backend", "spans", "--span-model", SPANS, "--format", "json"]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as Array<{ spans: Array<{ start: number; end: number; probability: number; claim: number | null; text: string }>; callsByEngine: { claims: number; spans: number }; entailmentCalls: number; claims: Array<{ verdict: string; reason?: string; spans?: number[]; score: number }> }>;
    expect(out).toHaveLength(2);
    for (const row of out) {
      expect(row.callsByEngine).toEqual({ claims: 0, spans: 1 });
      expect(row.entailmentCalls).toBe(0);
      for (const claim of row.claims) {
        // The rule: unsupported exactly when a span falls in the claim, and then its score is under 1 − 0.5.
        expect(claim.verdict === "unsupported").toBe((claim.spans ?? []).length > 0);
        if (claim.verdict === "unsupported") expect(claim.reason).toBe("unsupported_span");
        expect(claim.score < 0.5).toBe(claim.verdict === "unsupported");
      }
      for (const s of row.spans) expect(s.probability).toBeGreaterThanOrEqual(0.5);
    }
  });
});
