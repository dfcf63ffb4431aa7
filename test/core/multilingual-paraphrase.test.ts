/**
 * Paraphrases in the languages the offline tier reads: an answer that words a sentence of its
 * documents with other articles, prepositions or auxiliaries is not missing content, while a
 * changed number still is not grounded. Japanese counters (3人, 2つ) are read as a number and a
 * word, never as a number that differs.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const backend = createOfflineBackend({ analyzer: testAnalyzer() });
afterAll(() => backend.close());
const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: backend.recommendedThreshold ?? 0.5, topK: 3, tokenBudget: 120 });

const CASES = [
  {
    language: "German",
    context: "Die Rückerstattung wird innerhalb von 14 Tagen auf das Konto überwiesen.",
    paraphrase: "Eine Rückerstattung wird in 14 Tagen überwiesen.",
    numberChanged: "Eine Rückerstattung wird in 30 Tagen überwiesen.",
  },
  {
    language: "Spanish",
    context: "El envío es gratuito para todos los clientes de la tienda en línea, que lo reciben en 3 días.",
    paraphrase: "Los clientes de la tienda tienen envío gratuito en 3 días.",
    numberChanged: "Los clientes de la tienda tienen envío gratuito en 9 días.",
  },
  {
    language: "French",
    context: "L'abonnement annuel coûte 120 euros.",
    paraphrase: "Un abonnement annuel coûte 120 euros.",
    numberChanged: "Un abonnement annuel coûte 150 euros.",
  },
  {
    language: "Russian",
    context: "Возврат денег возможен в течение 30 дней после покупки.",
    paraphrase: "Возврат денег возможен в течение 30 дней с покупки.",
    numberChanged: "Возврат денег возможен в течение 60 дней с покупки.",
  },
  {
    language: "Japanese (counters)",
    context: "この会社には社員が3人います。会議室は2つあります。",
    paraphrase: "社員は3人です。",
    numberChanged: "社員は5人です。",
  },
  {
    language: "Japanese (counter つ)",
    context: "この会社には社員が3人います。会議室は2つあります。",
    paraphrase: "会議室は2つです。",
    numberChanged: "会議室は4つです。",
  },
] as const;

describe.each(CASES)("a paraphrase in $language", (c) => {
  it("is grounded: other function words are not missing content", async () => {
    expect((await scorer.score({ answer: c.paraphrase, context: c.context })).verdict).toBe("grounded");
  });

  it("with its number changed is not grounded", async () => {
    const r = await scorer.score({ answer: c.numberChanged, context: c.context });
    expect(r.verdict).toBe("ungrounded");
  });
});
