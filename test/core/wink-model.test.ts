import { readFileSync } from "node:fs";
import { join } from "node:path";
import model from "wink-eng-lite-web-model";
import { describe, expect, it } from "vitest";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { englishModel } from "../../src/core/wink-model.ts";

const ROOT = join(import.meta.dirname, "..", "..");
// Real answers and documents, plus words no lexicon has (they are added to wink's feature lists as they are met).
const TEXTS = [
  ...readFileSync(join(ROOT, "examples", "answers.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      const row = JSON.parse(line) as { answer: string; context: string | string[] };
      return [row.answer, ...(Array.isArray(row.context) ? row.context : [row.context])];
    }),
  "Zorblatt-9 costs $1,250.00 (≈ €1.1k) per qrxl unit; shipping takes 3–5 days, e.g. to Kraków.",
  "Dr. Smith's flurbogenic assay didn't fail on 12 Jan. 2024! Did it?",
];

describe("the English model's fast core loader", () => {
  it("analyses text exactly as the package's own loader does: tokens, lemmas, POS, stop words and sentences", () => {
    const reference = createTextAnalyzer({ model });
    const fast = createTextAnalyzer({ model: englishModel() });
    for (const text of TEXTS) expect(fast.analyze(text), text).toEqual(reference.analyze(text));
  });

  it("keeps instances independent: words one instance learnt do not leak into the next", () => {
    const first = createTextAnalyzer({ model: englishModel() });
    for (const text of TEXTS) first.analyze(text);
    const second = createTextAnalyzer({ model: englishModel() });
    const reference = createTextAnalyzer({ model });
    for (const text of [...TEXTS].reverse()) expect(second.analyze(text), text).toEqual(reference.analyze(text));
  });

  it("is used by default and replaces only the core loader", () => {
    const m = englishModel();
    expect(m.core).not.toBe(model.core);
    expect(m.sbd).toBe(model.sbd);
    expect(m.pos).toBe(model.pos);
  });
});

describe("the English model's metaCER (regression: the package re-encodes it on every call)", () => {
  it("gives the same custom-entity machines to the 30th analyser as to the first, without growing", () => {
    const metaCER = (): { machines: string } => (englishModel() as unknown as { metaCER(): { machines: string } }).metaCER();
    const first = metaCER();
    expect(typeof first.machines).toBe("string");
    expect(JSON.parse(first.machines) as unknown).toBeTypeOf("object");
    for (let i = 0; i < 30; i++) createTextAnalyzer({ model: englishModel() });
    const later = metaCER();
    expect(later.machines).toBe(first.machines);
    expect(later.machines.length).toBeLessThan(10_000);
  });
});
