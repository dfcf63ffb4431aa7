// Issue 36: the eval report's score histogram had bars and a score axis but no count axis: a bar's
// height said nothing about how many answers it stood for.
import { describe, expect, it } from "vitest";
import { histogramSvg } from "../../src/cli/eval/html.ts";
import { evalRun, rows, set } from "../helpers/eval.ts";

/** The count axis's tick labels, with their y; and each bar's height and top. */
function parse(svg: string): { ticks: Array<{ count: number; y: number }>; bars: Array<{ count: number; y: number; height: number }>; labels: Array<{ count: number; y: number }> } {
  const ticks = [...svg.matchAll(/<text class="tick" x="[\d.]+" y="([\d.]+)"[^>]*>(\d+)<\/text>/g)].map((m) => ({ count: Number(m[2]), y: Number(m[1]) - 3 }));
  const bars = [...svg.matchAll(/<rect class="bar" x="[\d.]+" y="([\d.]+)" width="33" height="([\d.]+)"[^>]*><title>[^:]+: (\d+)<\/title>/g)].map((m) => ({ count: Number(m[3]), y: Number(m[1]), height: Number(m[2]) }));
  const labels = [...svg.matchAll(/<text class="count" x="[\d.]+" y="([\d.]+)"[^>]*>(\d+)<\/text>/g)].map((m) => ({ count: Number(m[2]), y: Number(m[1]) + 3 }));
  return { ticks, bars, labels };
}

describe("the eval report's score histogram", () => {
  it("has a count axis titled 'answers' whose ticks (0, half, the tallest bin) sit level with bars of those counts, and each bar's count above it", () => {
    // Bins: 0.0–0.1 two answers, 0.4–0.5 one, 0.9–1.0 four (1.0 counts in the last bin).
    const svg = histogramSvg([0.05, 0.08, 0.45, 0.91, 0.95, 0.99, 1], 0.5);
    const { ticks, bars, labels } = parse(svg);
    expect(svg).toMatch(/<text class="axis-title" transform="rotate\(-90\)"[^>]*>answers<\/text>/);
    expect(svg).toMatch(/<text class="axis-title"[^>]*>score<\/text>/);
    expect(ticks.map((t) => t.count)).toEqual([0, 2, 4]);
    expect(bars.map((b) => b.count)).toEqual([2, 0, 0, 0, 1, 0, 0, 0, 0, 4]);
    const baseline = bars[1]!.y;
    // The 0 tick is the baseline; the 2 and 4 ticks are the tops of the bars of 2 and 4 answers.
    expect(ticks.find((t) => t.count === 0)!.y).toBeCloseTo(baseline, 6);
    expect(ticks.find((t) => t.count === 2)!.y).toBeCloseTo(bars[0]!.y, 6);
    expect(ticks.find((t) => t.count === 4)!.y).toBeCloseTo(bars[9]!.y, 6);
    // Heights are proportional to counts.
    expect(bars[0]!.height * 2).toBeCloseTo(bars[9]!.height, 6);
    expect(bars[4]!.height * 2).toBeCloseTo(bars[0]!.height, 6);
    // Each non-empty bar is labelled with its count, just above its top; empty bins are not.
    expect(labels).toEqual([
      { count: 2, y: bars[0]!.y },
      { count: 1, y: bars[4]!.y },
      { count: 4, y: bars[9]!.y },
    ]);
  });

  it("marks 0 and the tallest bin's count when it is under 4, and 0 and 1 with no scores", () => {
    expect(parse(histogramSvg([0.2, 0.25, 0.9], 0.5)).ticks.map((t) => t.count)).toEqual([0, 2]);
    expect(parse(histogramSvg([], 0.5)).ticks.map((t) => t.count)).toEqual([0, 1]);
    expect(parse(histogramSvg(Array.from({ length: 7 }, () => 0.95), 0.5)).ticks.map((t) => t.count)).toEqual([0, 4, 7]);
  });

  it("is in report.html with its count axis", async () => {
    const { html } = await evalRun(set(rows(3, 10)), ["--no-gate"]);
    const svg = /<h2>Score distribution<\/h2>\n(<svg[\s\S]*?<\/svg>)/.exec(html)?.[1] ?? "";
    expect(svg).toContain(">answers</text>");
    const { ticks, bars } = parse(svg);
    expect(bars.reduce((n, b) => n + b.count, 0)).toBe(10);
    expect(ticks.at(-1)?.count).toBe(Math.max(...bars.map((b) => b.count)));
  });
});
