import { afterAll, describe, expect, it } from "vitest";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { scriptMismatch } from "../../src/core/language.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { LANGUAGE_CASES } from "./multilingual-cases.ts";

const backend = createOfflineBackend({ analyzer: testAnalyzer() });
afterAll(() => backend.close());
const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: backend.recommendedThreshold ?? 0.5, topK: 3, tokenBudget: 120 });

describe("an answer in a script its documents are not written in", () => {
  const english = LANGUAGE_CASES.find((c) => c.language === "English");
  const chinese = LANGUAGE_CASES.find((c) => c.language === "Chinese");
  if (!english || !chinese) throw new Error("missing cases");

  it("is unscorable with reason language_mismatch instead of a confident verdict", async () => {
    const r = await scorer.score({ answer: chinese.copy, context: english.context });
    expect(r).toMatchObject({ verdict: "unscorable", score: null, reason: "language_mismatch" });
    if (r.verdict === "unscorable") expect(r.detail).toBe("the answer is written in Han/kana script and the documents in Latin: their words cannot be compared");
    const back = await scorer.score({ answer: english.copy, context: [chinese.context] });
    expect(back).toMatchObject({ verdict: "unscorable", reason: "language_mismatch" });
  });

  it("tells every pair of the ten languages apart only where their scripts differ", () => {
    const script = (language: string): string => ({ Russian: "Cyrillic", Arabic: "Arabic", Chinese: "Han", Japanese: "Han", Korean: "Hangul", Thai: "Thai" })[language] ?? "Latin";
    for (const a of LANGUAGE_CASES) {
      for (const b of LANGUAGE_CASES) expect(scriptMismatch(a.copy, [b.context]) !== undefined, `${a.language} answer, ${b.language} context`).toBe(script(a.language) !== script(b.language));
    }
  });

  it("is judged when any document is written in the answer's script, or has enough of it", async () => {
    expect(scriptMismatch(chinese.copy, [english.context, chinese.context])).toBeUndefined();
    // A bilingual document; a name in another script does not make one.
    expect(scriptMismatch(english.copy, [`${chinese.context} Returns: unopened items can be returned within 30 days.`])).toBeUndefined();
    expect(scriptMismatch(chinese.copy, ["Our shop in 北京 opens at nine every morning and closes at six in the evening."])).toMatchObject({ answer: "Han/kana", documents: "Latin" });
    const r = await scorer.score({ answer: chinese.copy, context: [english.context, chinese.context] });
    expect(r.verdict).toBe("grounded");
  });

  it("is not decided for answers with too few letters or documents without letters", () => {
    expect(scriptMismatch("是的", ["Yes, the store opens at nine."])).toBeUndefined();
    expect(scriptMismatch("The price is 30 USD.", ["30 | 45 | 60"])).toBeUndefined();
    expect(scriptMismatch("The price is 30 USD.", ["Price: 30 USD"])).toBeUndefined();
  });
});

describe("growth of the script check", () => {
  it("counts the scripts of an answer and its documents in time linear in their length", () => {
    const mixed = (n: number): string => "退货政策：未开封的商品 returns within 30 days Возврат الإرجاع ".repeat(Math.ceil(n / 50)).slice(0, n);
    expectLinear("counting the scripts of an answer and its documents", measureGrowth(mixed, (text) => scriptMismatch(text, [text, text]), { n: 10_000, maxN: 10_000 }));
  });
});
