import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CITED_ANSWERS, CITED_DOCS, judgeEnv, judgeFlags, startCitingJudge } from "../helpers/citations.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

function input(rows: unknown[]): string {
  const path = join(tempDir(), "rows.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

const ROWS = Object.entries(CITED_ANSWERS).map(([id, answer]) => ({ id, context: CITED_DOCS, answer }));

describe("groundwatch score: citations", () => {
  it("--format table shows each citation's status under its claim, and the answer's citation summary", async () => {
    const judge = await startCitingJudge();
    const run = await runCli(["score", "--input", input(ROWS), "--format", "table", ...judgeFlags(judge.url)], { env: judgeEnv() });
    expect(run.code, run.stderr).toBe(0);
    const block = (id: string): string => run.stdout.slice(run.stdout.indexOf(`\n${id} `), run.stdout.indexOf("\n", run.stdout.indexOf(`\n${id} `) + 1) + 600);
    expect(block("invented")).toContain(
      [
        "                     citations: 1 found, 1 not retrieved, 0 misattributed",
        '                     ✗ unsupported (0.000) [citation]: "Gift cards never expire."',
        '                       why: cites "3", not among the 2 retrieved documents',
        '                       [3] not retrieved — names "3", not among the 2 retrieved documents',
      ].join("\n"),
    );
    expect(block("misattributed")).toContain('                     ✗ misattributed (0.000) [citation]: "Refunds are paid within 30 days of delivery."\n                       supported instead by [document [1], 0–44]: "Refunds are paid within 30 days of delivery."');
    expect(block("misattributed")).toContain("                       [2] misattributed — supported by document 1 (refunds), not by document 2 (shipping)\n");
    // A supported claim is listed when it cites something, with its citations under it.
    expect(block("cited")).toContain(
      [
        "                     citations: 2 found, 0 not retrieved, 0 misattributed",
        '                     ✓ supported (1.000): "Refunds are paid within 30 days of delivery."',
        "                       [1] supported (1.000) by document 1 (refunds)",
        '                     ✓ supported (1.000): "Shipping is free on orders over 50 euros."',
        "                       [2] supported (1.000) by document 2 (shipping)",
      ].join("\n"),
    );
  });

  it("writes the answer's citation summary and each claim's citations to the JSON output, and nothing for an answer without citations", async () => {
    const judge = await startCitingJudge();
    const run = await runCli(["score", "--input", input([...ROWS, { id: "plain", context: CITED_DOCS, answer: "Refunds are paid within 30 days of delivery." }]), ...judgeFlags(judge.url)], { env: judgeEnv() });
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; verdict: string; citations?: unknown; claims: Array<{ verdict: string; reason?: string; citations?: Array<{ marker: string; status: string }> }> });
    expect(out.map((r) => [r.id, r.verdict, r.citations])).toEqual([
      ["invented", "ungrounded", { found: 1, valid: 0, invalid: 1, misattributed: 0 }],
      ["misattributed", "ungrounded", { found: 1, valid: 1, invalid: 0, misattributed: 1 }],
      ["cited", "grounded", { found: 2, valid: 2, invalid: 0, misattributed: 0 }],
      ["plain", "grounded", undefined],
    ]);
    expect(out[0]?.claims[0]).toMatchObject({ verdict: "unsupported", reason: "citation_not_retrieved", citations: [{ marker: "[3]", status: "not_retrieved" }] });
    expect(out[3]?.claims[0]).not.toHaveProperty("citations");
  });
});

describe("groundwatch serve --log-evaluations: citations", () => {
  it("counts misattributed claims and the answer's citations in the evaluation line, and says nothing of them for an answer without citations", async () => {
    const { formatEvaluation } = await import("../../src/cli/serve.ts");
    const base = { verdict: "ungrounded", score: 0, threshold: 0.5, reason: null, skipped: 0, backend: { name: "judge", version: "m", tier: "production" }, limits: [] } as const;
    const cited = formatEvaluation({ route: "/ask", durationMs: 12, result: { ...base, claims: { supported: 1, contradicted: 0, unsupported: 1, misattributed: 1 }, citations: { found: 3, valid: 2, invalid: 1, misattributed: 1, byStatus: { supported: 1, misattributed: 1, unsupported: 0, contradicted: 0, not_retrieved: 1, unchecked: 0 } } } });
    expect(cited).toBe("groundwatch serve: evaluation route=/ask ungrounded score 0.000 (threshold 0.5); claims 1 supported, 0 contradicted, 1 unsupported, 1 misattributed; 3 citations: 2 valid, 1 not retrieved, 1 misattributed; limits none; judge 12 ms");
    const plain = formatEvaluation({ route: "/ask", durationMs: 12, result: { ...base, claims: { supported: 0, contradicted: 0, unsupported: 1, misattributed: 0 } } });
    expect(plain).toBe("groundwatch serve: evaluation route=/ask ungrounded score 0.000 (threshold 0.5); claims 0 supported, 0 contradicted, 1 unsupported; limits none; judge 12 ms");
  });
});
