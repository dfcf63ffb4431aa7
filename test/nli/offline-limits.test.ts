import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TextAnalyzer } from "../../src/core/text.ts";
import type { Scorer } from "../../src/scoring/scorer.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// Regression for issue 13 ("never stall silently"): a 100,000-character token took 42 s in
// wink-nlp's tokenizer and a 200 KB base64 blob in a document over 60 s. What is asserted is
// behaviour (nothing over the limit reaches the tokenizer, the limit is reported), not time;
// the timeout is only a generous guard against the old behaviour.
const GUARD_MS = 60_000;

/** The longest run of characters wink-nlp's tokenizer would read as one token. */
function longestRun(text: string): number {
  return Math.max(0, ...text.split(/[ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f\n\r\t]+/).map((t) => t.length));
}

/** The shared analyser, recording the longest token of every text it is asked to analyse. */
function spyAnalyzer(): TextAnalyzer & { longest: () => number } {
  const inner = testAnalyzer();
  let longest = 0;
  return {
    analyze(text: string) {
      longest = Math.max(longest, longestRun(text));
      return inner.analyze(text);
    },
    longest: () => longest,
  };
}

const scorers: Scorer[] = [];
afterAll(async () => {
  for (const s of scorers) await s.close();
});

async function offlineScorer(options: Parameters<typeof createScorer>[0] = {}, analyzer: TextAnalyzer = testAnalyzer()): Promise<Scorer> {
  const scorer = await createScorer({ backend: "offline", ...options }, { analyzer });
  scorers.push(scorer);
  return scorer;
}

const DOC = "The museum opens at nine in the morning. Entry costs ten euros.";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

describe("pathological inputs are cut before the tokenizer and reported", () => {
  it(
    "a 100,000-character token in the answer",
    async () => {
      const analyzer = spyAnalyzer();
      const scorer = await offlineScorer({}, analyzer);
      const token = "x".repeat(100_000);
      const r = await scorer.score({ answer: `The museum opens at nine. Its code is ${token}.`, context: [DOC] });
      expect(analyzer.longest()).toBeLessThanOrEqual(100);
      expect(r.limits).toEqual(["token_chars"]);
      expect(r.verdict).not.toBe("unscorable");
      expect(r.claims[1]?.text).toBe(`Its code is ${"x".repeat(99)}…`);
      expect(summarize(r, false).limits).toEqual(["token_chars"]);
    },
    GUARD_MS,
  );

  it(
    "a 200 KB base64 blob in a document, which does not use up the context allowance",
    async () => {
      const analyzer = spyAnalyzer();
      const scorer = await offlineScorer({ maxContextChars: 5000 }, analyzer);
      const blob = Array.from({ length: 200_000 }, (_, i) => BASE64[(i * 7919) % 64]).join("");
      const r = await scorer.score({ answer: "The museum opens at nine.", context: [`<img src="data:image/png;base64,${blob}"> ${DOC}`] });
      expect(analyzer.longest()).toBeLessThanOrEqual(100);
      expect(r.limits).toEqual(["token_chars"]);
      expect(r.verdict).toBe("grounded");
    },
    GUARD_MS,
  );

  it("reports nothing for an ordinary observation", async () => {
    const r = await (await offlineScorer()).score({ answer: "The museum opens at nine.", context: [DOC] });
    expect(r.limits).toEqual([]);
    expect(summarize(r, false).limits).toEqual([]);
  });
});

describe("resample limits", () => {
  const samples = (n: number): string[] => Array.from({ length: n }, (_, i) => `The museum opens at ${i + 1} o'clock on day ${i * 3 + 7}.`);

  it("samples: measures the first maxSamples resamples and says so", async () => {
    const r = await (await offlineScorer({ maxSamples: 5 })).score({ answer: "The museum opens at nine.", context: [DOC], question: "When?", samples: samples(12) });
    expect(r.limits).toEqual(["samples"]);
    expect(r.entropy?.samples).toHaveLength(5);
  });

  it("entailment_calls: entropy gets only what groundedness left of the observation's budget, and fails closed", async () => {
    const r = await (await offlineScorer({ maxEntailmentCalls: 10 })).score({ answer: "The museum opens at nine.", context: [DOC], question: "When?", samples: samples(6) });
    expect(r.limits).toEqual(["entailment_calls"]);
    expect(r.entropy?.reliable).toBe(false);
    expect(r.entropy?.overBudget).toBe(true);
    expect(r.entropy?.entailmentCalls).toBe(0);
    expect(r.combined?.verdict).toBe("unscorable");
  });

  it("entailment_calls: the default entropy budget (500) refuses 30 distinct samples (870 calls) up front", async () => {
    const r = await (await offlineScorer({ maxSamples: 30 })).score({ answer: "The museum opens at nine.", context: [DOC], question: "When?", samples: samples(30) });
    expect(r.limits).toEqual(["entailment_calls"]);
    expect(r.entropy?.reasons.join(" ")).toContain("entailment budget 500 is below the worst case of 870 calls");
  });

  it("answer_chars and token_chars: resamples are cut like the answer", async () => {
    const long = ["It opens at nine.", `It opens at ${"Z".repeat(5000)} and more.`, "It opens at ten. ".repeat(20)];
    const r = await (await offlineScorer({ maxAnswerChars: 100 })).score({ answer: "The museum opens at nine.", context: [DOC], question: "When?", samples: long });
    expect(r.limits).toEqual(["answer_chars", "token_chars"]);
    for (const s of r.entropy?.samples ?? []) {
      expect(s.length).toBeLessThanOrEqual(100);
      expect(longestRun(s)).toBeLessThanOrEqual(100);
    }
  });
});

describe("groundwatch score rows", () => {
  it("carry limits when a limit cut the row, and no limits field otherwise", async () => {
    const dir = tempDir();
    const input = join(dir, "rows.jsonl");
    const rows = [
      { id: "plain", context: [DOC], answer: "The museum opens at nine." },
      { id: "blob", context: [`${DOC} ${"f".repeat(300_000)}`], answer: "The museum opens at nine." },
    ];
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const run = await runCli(["score", "--input", input, "--backend", "offline"]);
    expect(run.code).toBe(0);
    const out = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; limits?: string[] });
    expect(out[0]).not.toHaveProperty("limits");
    expect(out[1]?.limits).toEqual(["token_chars"]);
  });
});
