import { describe, expect, it } from "vitest";
import type { StreamRow } from "../../bench/guard-run.ts";
import { runGuardBench } from "../../bench/guard-run.ts";
import { guardCase, tokenDeltas } from "../../bench/guard-workload.ts";

const figures = (text: string): string[] => text.match(/[0-9]+/g) ?? [];

describe("the guard bench's workload", () => {
  it("streams each answer as token-sized deltas that join to the answer byte for byte", () => {
    for (let k = 0; k < 20; k++) {
      const { answer } = guardCase(41, k);
      const deltas = tokenDeltas(answer);
      expect(deltas.join("")).toBe(answer);
      expect(deltas.length).toBeGreaterThan(answer.split(" ").length);
      expect(Math.max(...deltas.map((d) => d.trimStart().length))).toBeLessThan(16);
    }
  });

  it("writes grounded answers of 3–6 sentences whose figures all appear in the context, and invented ones with exactly one that does not", () => {
    for (let k = 0; k < 40; k++) {
      const c = guardCase(41, k);
      expect(c.kind).toBe(k % 2 === 0 ? "grounded" : "invented");
      expect(c.sentences).toBeGreaterThanOrEqual(3);
      expect(c.sentences).toBeLessThanOrEqual(6);
      const stated = new Set(c.context.flatMap(figures));
      const missing = figures(c.answer).filter((n) => !stated.has(n));
      expect(missing).toHaveLength(c.kind === "grounded" ? 0 : 1);
    }
  });

  it("gives the same case for the same seed and index, of the length asked for, and no two cases the same context", () => {
    expect(guardCase(41, 7)).toEqual(guardCase(41, 7));
    for (const n of [3, 6]) expect(guardCase(41, 9, n).answer.split(/(?<=\.) /)).toHaveLength(n);
    expect(guardCase(41, 0).context).not.toEqual(guardCase(41, 1).context);
  });
});

describe("bench:guard", () => {
  it("runs guard() alone on the offline tier and reports a decision time for every answer", async () => {
    const report = await runGuardBench({ seed: 41, answers: 6, warmup: 1, budgetMs: 20_000, tiers: ["offline"], variants: [], streamAnswers: 0, tokenMs: 1 });
    const [row] = report.guard;
    expect(row?.tier).toBe("offline");
    expect(row?.all.n).toBe(6);
    expect(row?.all.p50).toBeGreaterThan(0);
    expect(row?.all.p99).toBeGreaterThanOrEqual(row?.all.p50 ?? Infinity);
    expect(row?.decisions["grounded:pass"]).toBe(3);
    expect(Object.values(row?.decisions ?? {}).reduce((a, b) => a + b, 0)).toBe(6);
  });

  it("streams answers unguarded and in every mode on the offline tier: grounded ones sent byte for byte, the invented figure never sent in sentence mode", async () => {
    const report = await runGuardBench({ seed: 41, answers: 0, warmup: 1, budgetMs: 20_000, tiers: ["offline"], variants: [], streamAnswers: 2, tokenMs: 1 });
    const row = (config: string, kind: string): StreamRow | undefined => report.streams.find((r) => r.config === config && r.kind === kind);
    for (const config of ["unguarded", "buffer", "sentence", "annotate"]) {
      const grounded = row(config, "grounded");
      expect(grounded?.streams).toBe(1);
      expect(grounded?.unchanged).toBe(1);
      expect(grounded?.ttft.p50).toBeGreaterThan(0);
      expect(grounded?.last.p50).toBeGreaterThanOrEqual(grounded?.ttft.p50 ?? Infinity);
      if (config === "unguarded") expect(grounded?.checksMean).toBe(0);
      else if (config === "buffer") expect(grounded?.checksMean).toBe(1);
      else expect(grounded?.checksMean).toBeGreaterThanOrEqual(1);
    }
    expect(row("unguarded", "invented")?.leaked).toBe(1);
    expect(row("sentence", "invented")).toMatchObject({ leaked: 0, outcomes: { "block blocked": 1 } });
    expect(row("annotate", "invented")?.retract.n).toBe(1);
  });
});
