import { describe, expect, it } from "vitest";
import { LIMIT_NAMES, capTokens, cutPoint, limitText, orderLimits } from "../../src/core/limits.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

/** The longest run of characters wink-nlp's tokenizer would read as one token. */
function longestRun(text: string): number {
  return Math.max(0, ...text.split(/[ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f\n\r\t]+/).map((t) => t.length));
}

describe("capTokens", () => {
  it("leaves text without over-long tokens as it is", () => {
    const text = "The museum opens at nine. See https://example.com/a/b for details.";
    const c = capTokens(text, 100);
    expect(c).toMatchObject({ text, cut: 0 });
    expect(c.toOriginal(10)).toBe(10);
  });

  it("cuts a run longer than the limit to its first characters and an ellipsis, mapping offsets back", () => {
    const blob = "QUJD".repeat(50); // 200 characters
    const text = `Key ${blob} and ${"f0".repeat(60)} end.`;
    const c = capTokens(text, 16);
    expect(c.cut).toBe(2);
    expect(c.text).toBe(`Key ${blob.slice(0, 15)}… and ${"f0".repeat(60).slice(0, 15)}… end.`);
    expect(longestRun(c.text)).toBeLessThanOrEqual(16);
    // Offsets before, inside the kept part, at the cut mark and after each blob.
    expect(c.toOriginal(0)).toBe(0);
    expect(c.toOriginal(4 + 15)).toBe(4 + 15); // start of "…": where the dropped part begins
    expect(c.toOriginal(4 + 16)).toBe(4 + 200); // just after "…": the end of the blob
    const and = c.text.indexOf(" and ");
    expect(text.slice(c.toOriginal(and), c.toOriginal(and) + 5)).toBe(" and ");
    expect(c.toOriginal(c.text.length)).toBe(text.length);
  });

  it("keeps prose in scripts without spaces (Chinese, Japanese, Thai) whole, split for the tokenizer, and reports no cut", () => {
    const zh = "退货须在收货后三十天内办理，全额退款将退回原支付方式。".repeat(40); // 1,080 characters, no spaces
    const text = `Policy: ${zh} End.`;
    const c = capTokens(text, 100);
    expect(c.cut).toBe(0);
    expect(c.text.replace(/ /g, "")).toBe(text.replace(/ /g, ""));
    expect(longestRun(c.text)).toBeLessThanOrEqual(100);
    // Every character of the result maps back to the same character of the original.
    for (let i = 0; i < c.text.length; i++) if (c.text[i] !== " ") expect(text[c.toOriginal(i)]).toBe(c.text[i]);
    expect(c.toOriginal(c.text.length)).toBe(text.length);
    expect(capTokens("สวัสดีครับ".repeat(30), 100).cut).toBe(0);
    // A base64 blob is still cut.
    expect(capTokens(Buffer.from("退货".repeat(200)).toString("base64"), 100).cut).toBe(1);
  });

  it("is idempotent: cutting a cut text changes nothing", () => {
    const once = capTokens(`a ${"x".repeat(5000)} b`, 100);
    expect(capTokens(once.text, 100)).toMatchObject({ text: once.text, cut: 0 });
  });

  it("splits tokens where wink-nlp does (no-break spaces too), not at other characters", () => {
    expect(capTokens(`${"a".repeat(20)}\u00a0${"b".repeat(20)}`, 20).cut).toBe(0);
    // An ideographic space does not end a wink-nlp token, so the run is one token of 41.
    expect(capTokens(`${"a".repeat(20)}\u3000${"b".repeat(20)}`, 20).cut).toBe(1);
  });

  it("never splits a surrogate pair", () => {
    const c = capTokens("😀".repeat(40), 18);
    expect(c.text).toBe(`${"😀".repeat(8)}…`);
    expect(c.toOriginal(c.text.length)).toBe(80);
  });

  it("handles a megabyte-long token without a regular expression running out of stack", () => {
    const c = capTokens(`start ${"A".repeat(1_000_000)} end`, 100);
    expect(c.text).toBe(`start ${"A".repeat(99)}… end`);
  });
});

describe("cutPoint", () => {
  it("returns the length when the text fits", () => {
    expect(cutPoint("short", 10)).toBe(5);
  });

  it("prefers a sentence end, then whitespace, then a hard cut", () => {
    const text = "One sentence here. Another sentence that runs on and on";
    expect(text.slice(0, cutPoint(text, 30))).toBe("One sentence here.");
    const words = "aaaa bbbb cccc dddd";
    expect(words.slice(0, cutPoint(words, 12))).toBe("aaaa bbbb");
    expect(cutPoint("x".repeat(50), 20)).toBe(20);
  });
});

describe("limitText", () => {
  it("cuts tokens, then characters, and names each limit applied", () => {
    expect(limitText("Paris.", 100, 100)).toEqual({ text: "Paris.", limits: [] });
    const r = limitText(`It is ${"Z".repeat(500)}. ${"More words follow. ".repeat(20)}`, 150, 50);
    expect(r.limits).toEqual(["token_chars", "answer_chars"]);
    expect(r.text.length).toBeLessThanOrEqual(150);
    expect(longestRun(r.text)).toBeLessThanOrEqual(50);
  });
});

describe("orderLimits", () => {
  it("lists each limit once, in the canonical order", () => {
    expect(orderLimits(["samples", "token_chars", "samples", "answer_chars"])).toEqual(["answer_chars", "token_chars", "samples"]);
    expect(LIMIT_NAMES).toEqual(["answer_chars", "context_chars", "documents", "token_chars", "claims", "samples", "entailment_calls"]);
  });
});

describe("the analyser's own token limit", () => {
  it("never hands wink-nlp a token over the limit, and keeps offsets into the text it was given", () => {
    const blob = "0123456789abcdef".repeat(6250); // a 100,000-character hex token
    const text = `The checksum is ${blob} today. The museum opens at nine.`;
    const doc = createTextAnalyzer({ maxTokenChars: 100 }).analyze(text);
    expect(doc.text).toBe(text);
    expect(Math.max(...doc.tokens.map((t) => t.text.length))).toBeLessThanOrEqual(100);
    const last = doc.tokens[doc.tokens.length - 1];
    expect(last?.end).toBe(text.length);
    expect(doc.sentences).toHaveLength(2);
    const museum = doc.tokens.find((t) => t.text === "museum");
    expect(museum && text.slice(museum.start, museum.end)).toBe("museum");
  });

  it("defaults to 100 characters", () => {
    const doc = testAnalyzer().analyze(`Data: ${"A".repeat(100_000)}`);
    expect(Math.max(...doc.tokens.map((t) => t.text.length))).toBeLessThanOrEqual(100);
  });
});
