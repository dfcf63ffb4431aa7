import { describe, expect, it } from "vitest";
import { CAUSE_ROWS } from "../helpers/cause-rows.ts";
import { runCli } from "../helpers/cli.ts";

const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("groundwatch score: cause and relevance", () => {
  it("writes the cause of each ungrounded answer and of its failing claims, and the relevance of every row", async () => {
    const run = await runCli(["score", "--input", "-"], { stdin: jsonl(CAUSE_ROWS) });
    expect(run.code).toBe(0);
    const rows = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.id, r.verdict, r.cause])).toEqual([
      ["retrieval", "ungrounded", "retrieval"],
      ["generation", "ungrounded", "generation"],
      ["citation", "ungrounded", "citation"],
      ["grounded", "grounded", undefined],
    ]);
    expect((rows[0]?.claims as Array<{ cause?: string }>)[0]?.cause).toBe("retrieval");
    expect(rows[0]?.relevance).toMatchObject({ context: { addressed: false, perDocument: [expect.any(Number), expect.any(Number)] }, answer: { onTopic: true } });
    expect(rows[1]?.relevance).toMatchObject({ context: { addressed: true }, thresholds: { context: expect.any(Number), answer: expect.any(Number) } });
    expect(rows[3]?.relevance).toMatchObject({ context: { addressed: true }, answer: { refusal: false } });
  });

  it("shows the cause and the relevance on one line under the verdict in the table, and each failing claim's cause", async () => {
    const run = await runCli(["score", "--input", "-", "--format", "table"], { stdin: jsonl(CAUSE_ROWS.slice(0, 2)) });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/cause: retrieval · context relevance 0\.\d\d \(< 0\.\d\d: off-topic documents\) · answer relevance 0\.\d\d/);
    expect(run.stdout).toMatch(/cause: generation · context relevance 0\.\d\d · answer relevance 0\.\d\d/);
    expect(run.stdout).toMatch(/✗ contradicted \(0\.\d{3}\) \[generation\]: "Refunds are paid within 90 days/);
  });

  it("leaves cause and relevance out when GROUNDWATCH_RELEVANCE is false", async () => {
    const run = await runCli(["score", "--input", "-"], { stdin: jsonl(CAUSE_ROWS.slice(0, 1)), env: { GROUNDWATCH_RELEVANCE: "false" } });
    expect(run.code).toBe(0);
    const row = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(row.verdict).toBe("ungrounded");
    expect(row).not.toHaveProperty("cause");
    expect(row).not.toHaveProperty("relevance");
  });
});

describe("groundwatch serve --log-evaluations: cause", () => {
  it("names the cause of an ungrounded evaluation on its line, and none for a grounded one", async () => {
    const { formatEvaluation } = await import("../../src/cli/serve.ts");
    const base = { score: 0.1, threshold: 0.5, reason: null, skipped: 0, backend: { name: "offline", version: "v", tier: "triage" }, limits: [], claims: { supported: 0, contradicted: 0, unsupported: 1, misattributed: 0 } } as const;
    expect(formatEvaluation({ route: "/ask", durationMs: 5, result: { ...base, verdict: "ungrounded", cause: "retrieval" } })).toBe(
      "groundwatch serve: evaluation route=/ask ungrounded score 0.100 (threshold 0.5) cause retrieval; claims 0 supported, 0 contradicted, 1 unsupported; limits none; offline 5 ms",
    );
    expect(formatEvaluation({ route: "/ask", durationMs: 5, result: { ...base, verdict: "grounded" } })).not.toContain("cause");
  });
});
