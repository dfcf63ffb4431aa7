import { describe, expect, it } from "vitest";
import { elidedWord, isFunctionWord, latinLanguage } from "../../src/core/function-words.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const words = (text: string): string[] => text.split(/\s+/);
/** The words of a text the analyser flags as stop words. */
const stops = (text: string): string[] => testAnalyzer().analyze(text).tokens.filter((t) => t.stop).map((t) => t.text);

describe("the language of a Latin-script text", () => {
  it("is told by its function words", () => {
    expect(latinLanguage(words("Der Versand ist für alle Kunden kostenlos."))).toBe("de");
    expect(latinLanguage(words("La livraison est gratuite pour tous les clients."))).toBe("fr");
    expect(latinLanguage(words("El envío es gratuito para todos los clientes."))).toBe("es");
    expect(latinLanguage(words("Shipping is free for all customers."))).toBe("en");
  });

  it("stays English for English text that holds a foreign name or an English word another language writes", () => {
    expect(latinLanguage(words("The die is cast and El Paso is hot in the summer."))).toBe("en");
    expect(latinLanguage(words("She read Le Monde on the train to Des Moines."))).toBe("en");
    expect(latinLanguage(words("X rose; Y fell."))).toBe("en");
  });

  it("counts a French elision ('l'abonnement') for French", () => {
    expect(latinLanguage(words("L'abonnement annuel coûte 120 euros."))).toBe("fr");
  });
});

describe("function words", () => {
  it("are flagged in German, French and Spanish text, and a word English also writes is not flagged in English text", () => {
    expect(stops("Der Versand ist für alle Kunden kostenlos.")).toEqual(["Der", "ist", "für", "alle"]);
    expect(stops("Les clients de la boutique ont une livraison gratuite.")).toEqual(["Les", "de", "la", "ont", "une"]);
    expect(stops("Los clientes de la tienda tienen envío gratuito.")).toEqual(["Los", "de", "la", "tienen"]);
    expect(stops("Patients who die in the ward are counted.")).not.toContain("die");
  });

  it("are flagged in Russian and Arabic text, and negations never are", () => {
    expect(stops("Доставка не бесплатна для всех клиентов.")).toEqual(["для", "всех"]);
    expect(stops("التوصيل لا يتوفر في المدينة.")).toEqual(["في"]);
    expect(stops("Der Versand ist nicht kostenlos.")).not.toContain("nicht");
    expect(stops("La livraison n'est pas gratuite.")).not.toContain("pas");
    expect(isFunctionWord("es", "no")).toBe(false);
  });

  it("reads a French word after an elided article as the word, and the elided negation 'n'' as it is", () => {
    expect(elidedWord("fr", "l'envoi")).toBe("envoi");
    expect(elidedWord("fr", "qu’il")).toBe("il");
    expect(elidedWord("fr", "n'est")).toBeUndefined();
    expect(elidedWord("en", "l'envoi")).toBeUndefined();
    const envoi = testAnalyzer().analyze("L'envoi d'un colis est gratuit.").tokens;
    expect(envoi.map((t) => `${t.lemma}${t.stop ? "*" : ""}`)).toEqual(["envoi", "un*", "colis", "est*", "gratuit", "."]);
  });
});

describe("telling the language grows linearly", () => {
  it("with the words of the text, French elisions included", () => {
    const growth = measureGrowth(
      (n) => words("l'envoi d'un colis est gratuit qu’il pleuve ou non. ".repeat(n)),
      (values) => latinLanguage(values),
      { n: 2_000, maxN: 2_000 },
    );
    expectLinear("a text of N French words", growth);
  });
});
