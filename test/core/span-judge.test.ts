import { describe, expect, it } from "vitest";
import type { ScoredToken } from "../../src/core/backend.ts";
import { aloneClaims, detectSpans, placeSpans, refineClaims } from "../../src/core/span-judge.ts";
import { createFakeSpanDetector } from "../helpers/fake-span-detector.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

/** An answer of n five-character words, one claim per ten words, every third word marked. */
function answerOf(n: number) {
  const tokens: ScoredToken[] = [];
  const claims: Array<{ index: number; text: string; start: number; end: number }> = [];
  for (let i = 0; i < n; i++) tokens.push({ start: i * 6, end: i * 6 + 5, probability: i % 3 === 0 ? 0.9 : 0.1 });
  for (let c = 0; c * 10 < n; c++) claims.push({ index: c, text: "", start: c * 60, end: Math.min(n, c * 10 + 10) * 6 - 1 });
  return { text: "word ".repeat(n).padEnd(n * 6), tokens, claims };
}

describe("span judgement", () => {
  it("refuses a reply whose tokens are out of order or whose probability is not in [0, 1]", async () => {
    const input = { answer: "one two", passages: ["one"] };
    const disordered = createFakeSpanDetector({ reply: () => [{ tokens: [{ start: 4, end: 7, probability: 0.1 }, { start: 0, end: 3, probability: 0.1 }], runs: 1 }] });
    await expect(detectSpans(disordered, input)).rejects.toThrow(/out of order/);
    const wrong = createFakeSpanDetector({ reply: () => [{ tokens: [{ start: 0, end: 3, probability: 1.5 }], runs: 1 }] });
    await expect(detectSpans(wrong, input)).rejects.toThrow(/invalid probability/);
    const none = createFakeSpanDetector({ reply: () => [] });
    await expect(detectSpans(none, input)).rejects.toThrow(/0 detections for 1 answer/);
  });

  it("lists a span overlapping two claims in both, and judges both unsupported", () => {
    const text = "Alpha beta. Gamma delta.";
    const places = [
      { index: 0, start: 0, end: 11 },
      { index: 1, start: 12, end: 24 },
    ];
    const tokens: ScoredToken[] = [
      { start: 6, end: 11, probability: 0.9 },
      { start: 12, end: 17, probability: 0.8 },
    ];
    const placed = placeSpans(text, tokens, 0.5, places, (o) => o);
    expect(placed.spans).toHaveLength(1);
    const judged = aloneClaims(places.map((p) => ({ ...p, text: text.slice(p.start, p.end) })), places, tokens, placed);
    expect(judged.map((c) => [c.verdict, c.spans])).toEqual([
      ["unsupported", [0]],
      ["unsupported", [0]],
    ]);
  });

  it("places spans and judges claims in time linear in the answer's tokens", () => {
    expectLinear(
      "placeSpans + aloneClaims + refineClaims",
      measureGrowth(
        (n) => answerOf(n),
        ({ text, tokens, claims }) => {
          const placed = placeSpans(text, tokens, 0.5, claims, (o) => o + 1);
          const judged = aloneClaims(claims, claims, tokens, placed);
          return refineClaims(judged, placed);
        },
        { n: 2000, maxN: 2000 },
      ),
    );
  });
});
