import { describe, expect, it } from "vitest";
import { createTextAnalyzer, numberWordLemma, sliceAnalysis } from "../../src/core/text.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const lemmaOf = (text: string, word: string): string | undefined => testAnalyzer().analyze(text).tokens.find((t) => t.text === word)?.lemma;

describe("lemmas of sentence-initial words", () => {
  it("lemmatises a capitalised common noun that starts a sentence like the same word inside one", () => {
    // wink-nlp tags "Refunds" as a proper noun and would keep "refunds" as its lemma.
    expect(lemmaOf("Refunds are available within 30 days. Items must be unused.", "Refunds")).toBe("refund");
    expect(lemmaOf("Refunds are available within 30 days. Items must be unused.", "Items")).toBe("item");
    expect(lemmaOf("We offer refunds.", "refunds")).toBe("refund");
  });

  it("does so past opening quotes and list marks, in every sentence", () => {
    expect(lemmaOf('He said so. "Appliances have a warranty," she added.', "Appliances")).toBe("appliance");
    expect(lemmaOf("- Studies show it.", "Studies")).toBe("study");
  });

  it("keeps names as they are", () => {
    expect(lemmaOf("Jones said it.", "Jones")).toBe("jones");
    expect(lemmaOf("Paris is big.", "Paris")).toBe("paris");
    // All capitals are acronyms, not sentence-case words: left to wink.
    expect(lemmaOf("NASA launched it.", "NASA")).toBe("nasa");
  });
});

describe("lemmas of number words", () => {
  it("reads cardinal number words as digits, so 'thirty' and '30' share a lemma", () => {
    expect(lemmaOf("You have thirty days.", "thirty")).toBe("30");
    expect(lemmaOf("You have 30 days.", "30")).toBe("30");
    expect(numberWordLemma("thirty-five")).toBe("35");
    expect(numberWordLemma("five-thirty")).toBeUndefined();
    expect(numberWordLemma("window")).toBeUndefined();
  });
});

describe("the analyser's cache", () => {
  it("analyses a text once while it stays cached", () => {
    const a = createTextAnalyzer();
    const first = a.analyze("The bridge opened in 1962.");
    expect(a.analyze("The bridge opened in 1962.")).toBe(first);
  });

  it("stays within its byte bound, dropping the least recently used analysis", () => {
    const a = createTextAnalyzer({ cacheBytes: 2000 });
    const one = a.analyze("The bridge opened in 1962 after six years of work.");
    a.analyze("The tunnel opened in 1970 after nine years of work.");
    a.analyze("The ferry stopped in 1980 after the bridge was widened.");
    // Each analysis is estimated at about 900 bytes: the first one is gone.
    expect(a.analyze("The bridge opened in 1962 after six years of work.")).not.toBe(one);
    expect(a.analyze("The bridge opened in 1962 after six years of work.")).toEqual(one);
  });

  it("never caches with a zero bound", () => {
    const a = createTextAnalyzer({ cacheBytes: 0 });
    expect(a.analyze("The bridge opened in 1962.")).not.toBe(a.analyze("The bridge opened in 1962."));
  });
});

describe("token offsets", () => {
  it("point into the original text when a run of spaceless script was split with spaces for the tokenizer", () => {
    const text = `${"東京は日本の首都です".repeat(30)}. The museum opens at nine.`;
    const doc = createTextAnalyzer({ maxTokenChars: 100, cacheBytes: 0 }).analyze(text);
    const opens = doc.tokens.find((t) => t.text === "opens");
    expect(opens && text.slice(opens.start, opens.end)).toBe("opens");
    const last = doc.sentences[doc.sentences.length - 1];
    expect(last && text.slice(last.start, last.end)).toBe("The museum opens at nine.");
  });
});

describe("a part of an analysis (a window of a document)", () => {
  const text = "Logs are kept for 30 days. Deleted projects can be restored within 7 days. Exports run nightly at 2 am.";
  it("holds the tokens wholly inside the range, shared and with offsets into the whole text, and the sentences cut to them", () => {
    const doc = testAnalyzer().analyze(text);
    const start = text.indexOf("Deleted");
    const end = text.indexOf(" Exports");
    const part = sliceAnalysis(doc, start, end);
    expect(part.text).toBe(text);
    expect(part.tokens.map((t) => t.text).join(" ")).toBe("Deleted projects can be restored within 7 days .");
    expect(part.tokens.every((t) => doc.tokens.includes(t))).toBe(true);
    expect(part.sentences).toEqual([{ tokenStart: 0, tokenEnd: part.tokens.length, start, end }]);
  });

  it("cuts a sentence the range ends inside, and is empty outside every token", () => {
    const doc = testAnalyzer().analyze(text);
    const part = sliceAnalysis(doc, 0, text.indexOf(" 30"));
    expect(part.tokens.map((t) => t.text)).toEqual(["Logs", "are", "kept", "for"]);
    expect(part.sentences).toHaveLength(1);
    expect(part.sentences[0]?.end).toBe(text.indexOf(" 30"));
    expect(sliceAnalysis(doc, text.length, text.length)).toMatchObject({ tokens: [], sentences: [] });
  });
});
