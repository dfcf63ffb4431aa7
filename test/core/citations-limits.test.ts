/**
 * The answer's input limits apply before its citations are read: markers are found in the limited
 * answer, and every offset (claims, markers, the skipped rest) still points into the caller's answer.
 */
import { describe, expect, it } from "vitest";
import type { GroundednessSettings } from "../../src/core/result.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 3, tokenBudget: 400 };
const docs = [
  { id: "hours.md", text: "The museum opens at nine." },
  { id: "prices.md", text: "Entry costs ten euros." },
];
const scorer = (settings: Partial<GroundednessSettings>) => createGroundednessScorer(createFakeBackend(), testAnalyzer(), { ...SETTINGS, ...settings });

describe("citations in a limited answer", () => {
  it("does not read a citation past maxAnswerChars: the cut text is skipped, not parsed", async () => {
    const answer = `The museum opens at nine [1]. ${"The museum room opens at nine. ".repeat(4)}Entry costs ten euros (source: missing.md).`;
    const result = await scorer({ maxAnswerChars: 60 }).score({ answer, context: docs });
    expect(result.limits).toEqual(["answer_chars"]);
    // One marker read ([1]); the "(source: missing.md)" past the cut is part of the skipped rest.
    expect(result.citations).toEqual({ found: 1, valid: 1, invalid: 0, misattributed: 0 });
    const rest = result.skipped[result.skipped.length - 1];
    expect(rest).toMatchObject({ reason: "over_limit", end: answer.length });
    expect(rest?.text).toContain("(source: missing.md)");
  });

  it("maps claims and markers back through the token cut and the marker removal", async () => {
    const blob = "QUJDRA".repeat(100);
    const answer = `The file was ${blob} today. The museum opens at nine [1]. Entry costs ten euros (source: prices.md).`;
    const result = await scorer({ maxTokenChars: 100 }).score({ answer, context: docs });
    expect(result.limits).toEqual(["token_chars"]);
    const byText = (t: string) => result.claims.find((c) => c.text.startsWith(t));
    const opens = byText("The museum opens");
    const costs = byText("Entry costs");
    expect(opens && answer.slice(opens.start, opens.end)).toBe("The museum opens at nine [1].");
    expect(costs && answer.slice(costs.start, costs.end)).toBe("Entry costs ten euros (source: prices.md).");
    const cited = result.claims.flatMap((c) => c.citations ?? []);
    expect(cited.map((c) => [c.marker, answer.slice(c.start, c.end), c.docs])).toEqual([
      ["[1]", "[1]", [0]],
      ["(source: prices.md)", "(source: prices.md)", [1]],
    ]);
  });

  it("maps claim offsets back when a run of spaceless script was split with spaces (nothing cut)", async () => {
    const run = "東京は日本の首都です".repeat(30); // 300 characters with no space: split, not cut
    const answer = `${run}.\n\nThe museum opens at nine [1].`;
    // With a document in Japanese too: an answer mostly in Japanese is not scored against English alone (language_mismatch).
    const result = await scorer({ maxTokenChars: 100 }).score({ answer, context: [...docs, { id: "tokyo.md", text: run }] });
    expect(result.limits).toEqual([]);
    const opens = result.claims.find((c) => c.text.startsWith("The museum opens"));
    expect(opens && answer.slice(opens.start, opens.end)).toBe("The museum opens at nine [1].");
    const [cite] = opens?.citations ?? [];
    expect(cite && answer.slice(cite.start, cite.end)).toBe("[1]");
  });

  it("maps evidence offsets back when a document's run of spaceless script was split with spaces", async () => {
    const run = "東京は日本の首都です".repeat(30);
    const context = [{ id: "hours.md", text: `${run}.\n\nThe museum opens at nine.` }];
    const result = await scorer({ maxTokenChars: 100 }).score({ answer: "The museum opens at nine.", context });
    // The window is the whole document (the analyser saw it with 3 spaces added): its offsets end at the document's end, not 3 past it;
    // the sentence shown, after the run, is mapped back the same way.
    const evidence = result.claims[0]?.evidence;
    const text = context[0]?.text ?? "";
    expect(evidence?.window).toEqual({ start: 0, end: text.length });
    expect(evidence && text.slice(evidence.start, evidence.end)).toBe("The museum opens at nine.");
  });

  it("reads a named source whose URL is longer than maxTokenChars whole: the token cut comes after the markers are taken out", async () => {
    const url = `https://docs.example.test/${"policies/".repeat(14)}opening-hours.html`;
    expect(url.length).toBeGreaterThan(100);
    const answer = `The museum opens at nine (source: ${url}).`;
    const result = await scorer({ maxTokenChars: 100 }).score({ answer, context: [{ url, text: "The museum opens at nine." }, docs[1] as { id: string; text: string }] });
    expect(result.citations).toEqual({ found: 1, valid: 1, invalid: 0, misattributed: 0 });
    expect(result.limits).toEqual([]);
    const claim = result.claims[0];
    expect(claim && answer.slice(claim.start, claim.end)).toBe(answer);
    expect(claim?.citations?.[0]).toMatchObject({ marker: `(source: ${url})`, docs: [0], status: "supported" });
  });
});
