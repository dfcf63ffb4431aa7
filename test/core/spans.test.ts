import { describe, expect, it } from "vitest";
import type { ScoredToken } from "../../src/core/backend.ts";
import { claimTokenMax, spanSegments, spansByClaim, spansOf } from "../../src/core/spans.ts";

/** Tokens for each whitespace-separated word of `answer` (split in two pieces when longer than 6), with the given probabilities in order. */
function tokensOf(answer: string, probabilities: readonly number[]): ScoredToken[] {
  const out: ScoredToken[] = [];
  for (const m of answer.matchAll(/\S+/g)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0].length > 6) out.push({ start, end: start + 4, probability: 0 }, { start: start + 4, end, probability: 0 });
    else out.push({ start, end, probability: 0 });
  }
  return out.map((t, i) => ({ ...t, probability: probabilities[i] ?? 0 }));
}

describe("spans from a span detector's tokens", () => {
  const answer = "The Basic plan costs $10. It includes phone support.";
  const claims = [
    { index: 0, start: 0, end: 25 },
    { index: 1, start: 26, end: 52 },
  ];

  it("merges a run of tokens at or above the threshold into one span with its highest probability, across sub-word pieces", () => {
    // The Basic plan costs $10. | It incl udes phone supp ort.
    const tokens = tokensOf(answer, [0, 0, 0, 0, 0.1, 0, 0.2, 0.7, 0.9, 0.8, 0.6]);
    const spans = spansOf(answer, tokens, 0.5, claims);
    expect(spans).toEqual([{ start: 33, end: 52, probability: 0.9, claim: 1, text: "udes phone support." }]);
  });

  it("keeps runs apart when a token below the threshold lies between them, and places each in its claim", () => {
    const tokens = tokensOf(answer, [0, 0.6, 0, 0, 0, 0, 0, 0, 0, 0.7, 0]);
    const spans = spansOf(answer, tokens, 0.5, claims);
    expect(spans.map((s) => [s.text, s.claim])).toEqual([
      ["Basic", 0],
      ["supp", 1],
    ]);
  });

  it("places a span outside every checked claim at null, and one at a threshold exactly", () => {
    const tokens = tokensOf(answer, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5]);
    expect(spansOf(answer, tokens, 0.5, [claims[0] as (typeof claims)[0]])).toEqual([{ start: 48, end: 52, probability: 0.5, claim: null, text: "ort." }]);
  });

  it("lists every claim a span overlaps, and each claim's highest token probability", () => {
    const tokens = tokensOf(answer, [0, 0, 0, 0, 0.9, 0.8, 0, 0, 0, 0, 0.3]);
    const spans = spansOf(answer, tokens, 0.5, claims);
    expect(spans.map((s) => s.text)).toEqual(["$10. It"]);
    expect([...spansByClaim(spans, claims)]).toEqual([
      [0, [0]],
      [1, [0]],
    ]);
    expect([...claimTokenMax(tokens, claims)]).toEqual([
      [0, 0.9],
      [1, 0.8],
    ]);
  });

  it("stays linear: 4× the tokens costs about 4× the time", () => {
    const run = (n: number): number => {
      const text = "word ".repeat(n);
      const tokens = tokensOf(text, Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0.9 : 0.1)));
      const cl = Array.from({ length: n / 10 }, (_, i) => ({ index: i, start: i * 50, end: i * 50 + 49 }));
      const t0 = process.cpuUsage();
      for (let k = 0; k < 5; k++) {
        const spans = spansOf(text, tokens, 0.5, cl);
        spansByClaim(spans, cl);
        claimTokenMax(tokens, cl);
      }
      const d = process.cpuUsage(t0);
      return d.user + d.system;
    };
    run(20_000);
    const small = Math.min(run(20_000), run(20_000));
    const large = Math.min(run(80_000), run(80_000));
    expect(large / small).toBeLessThan(12);
  });
});

describe("an answer cut at its spans, for every view", () => {
  it("gives the unmarked and marked pieces in order, with each marked piece's span index", () => {
    const text = "The Basic plan includes phone support.";
    expect(spanSegments(text, [{ start: 4, end: 9 }, { start: 24, end: 37 }])).toEqual([
      { text: "The ", span: null },
      { text: "Basic", span: 0 },
      { text: " plan includes ", span: null },
      { text: "phone support", span: 1 },
      { text: ".", span: null },
    ]);
  });

  it("reads spans of a longer answer inside a claim's text from its offset, clipping what lies outside it", () => {
    // The claim "It includes phone support." starts at 26 in its answer; a span 20–31 starts before it.
    expect(spanSegments("It includes phone support.", [{ start: 20, end: 31 }], 26)).toEqual([
      { text: "It in", span: 0 },
      { text: "cludes phone support.", span: null },
    ]);
  });
});
