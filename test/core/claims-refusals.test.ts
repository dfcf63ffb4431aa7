import { describe, expect, it } from "vitest";
import type { AnswerSegment } from "../../src/core/claims/index.ts";
import { splitClaims } from "../../src/core/claims/index.ts";
import { isRefusalAnswer } from "../../src/core/refusal.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const split = (text: string): AnswerSegment[] => splitClaims(text, testAnalyzer());
/** Each segment as "claim" or its skip reason. */
const kinds = (text: string): string[] => split(text).map((s) => (s.kind === "claim" ? "claim" : s.reason));

// Phrasings of refusals and non-answers that RAG services produce: each states nothing about the
// world, so scoring it as a claim measured the refusal's wording against the context instead.
const REFUSALS = [
  "I'm not able to answer that.",
  "I’m not able to answer that.",
  "I am not sure.",
  "I'm not sure what the fee is.",
  "I’m not sure about that.",
  "I don't have enough information to answer that.",
  "I don’t have any information about the CEO's salary.",
  "I do not have access to that data.",
  "I can't help with that.",
  "I cannot provide that information.",
  "I was unable to find the opening hours.",
  "I could not find any information about refunds.",
  "I couldn’t locate any details about that.",
  "I have no information about the warranty.",
  "That information is not available.",
  "That information is not provided in the context.",
  "That information is not in the context.",
  "That information is not mentioned.",
  "The provided context doesn't say when the store opens.",
  "The documents don’t mention a deadline.",
  "The context does not specify the price.",
  "The documents do not appear to mention shipping costs.",
  "None of the documents mention a warranty.",
  "The answer is not in the context.",
  "There's no information about shipping.",
  "There’s no information about shipping.",
  "There is not enough information in the context.",
  "Not enough information to answer.",
  "Insufficient information.",
  "Insufficient context to answer the question.",
  "I apologize, but I cannot answer that.",
  "Apologies, but the documents do not cover refunds.",
  "It is not mentioned in the documents.",
  "It's not stated in the context.",
  "It is unclear from the context whether fees apply.",
  "No relevant information was found.",
  "As an AI language model, I cannot browse the web.",
  "Based on the provided context, I cannot determine the CEO's salary.",
  "According to the context, the answer is not specified.",
  "Unfortunately, I don't know.",
  "I'm sorry, but I can't find that in the documents.",
  "Sorry, I don't know.",
  "I’m afraid I can’t help with that.",
  "I'm sorry.",
  "I'm sorry to hear that.",
  "I'm unable to determine the answer from the context.",
  "That's not something I can help with.",
  "I'm not aware of any fees.",
  "The information you are looking for is not available in the documents.",
  "I searched the documents but found nothing about refunds.",
];

// Sentences that open like a refusal but state something checkable (documented choices):
// - an opener ("Unfortunately,", "I'm sorry, but", "I'm afraid") before a statement keeps the statement a claim;
// - "not covered by the warranty", "not included in the price" are about the product, not the context;
// - "No information technology …", "information desk", "context window" use the words in another sense.
const CLAIMS = [
  "The context window is 8k tokens.",
  "Unfortunately for investors, shares fell 5%.",
  "Unfortunately, shares fell 5% in March.",
  "Information about refunds is on page 3.",
  "The documents were signed in 2020.",
  "Sorry Inc. was founded in 1990.",
  "Apologies Ltd is based in Leeds.",
  "I'm sorry, but the store is closed on Sundays.",
  "I'm afraid the store is closed on Sundays.",
  "I'm not sure, but I think the store opens at 9 am.",
  "It is not covered by the warranty.",
  "That is not included in the price.",
  "It is not possible to return opened items.",
  "There is no parking on site.",
  "There is no fee for returns.",
  "No data was lost in the outage.",
  "No refunds are given after 30 days.",
  "No information technology budget was cut.",
  "The information desk is on the ground floor.",
  "The information is not provided to third parties.",
  "The documents do not expire.",
  "The context menu opens with a right click.",
  "The answer key is published in May.",
];

describe("splitClaims: refusals and non-answers", () => {
  it.each(REFUSALS)("skips %j as a refusal", (text) => {
    expect(kinds(text)).toEqual(["refusal"]);
  });

  it.each(CLAIMS)("keeps %j as a claim", (text) => {
    expect(kinds(text)).toEqual(["claim"]);
  });

  // Semantic entropy and claim consistency read whole samples with the same detector.
  it.each(REFUSALS)("reads %j as a refusing sample too", (text) => {
    expect(isRefusalAnswer(text)).toBe(true);
  });

  it.each(CLAIMS)("reads %j as an answering sample too", (text) => {
    expect(isRefusalAnswer(text)).toBe(false);
  });

  it("covers at least 25 refusal phrasings and 10 near misses", () => {
    expect(REFUSALS.length).toBeGreaterThanOrEqual(25);
    expect(CLAIMS.length).toBeGreaterThanOrEqual(10);
  });

  // Regression: "I'm not able to …" was missed (only "I am not able to" was listed), and curly
  // apostrophes defeated every pattern with an apostrophe.
  it("reads curly apostrophes as straight ones in refusals, greetings and meta lines", () => {
    expect(kinds("I’m not able to answer that. You’re welcome! Here’s a summary:")).toEqual(["refusal", "greeting", "meta"]);
  });

  it("skips only the refusal in an answer that also states facts", () => {
    expect(kinds("The store opens at 9 am. The context does not say when it closes.")).toEqual(["claim", "refusal"]);
  });
});

describe("a refusal followed by 'but' and a statement", () => {
  // Regression: the whole sentence was skipped as a refusal, so the statement after "but" was never checked.
  it("skips the refusal and checks the statement", () => {
    const segments = splitClaims("I don't know much about him, but he won two Grammys in 1990.", testAnalyzer());
    expect(segments.map((s) => (s.kind === "claim" ? `claim: ${s.text}` : `${s.reason}: ${s.text}`))).toEqual([
      "refusal: I don't know much about him",
      "claim: he won two Grammys in 1990.",
    ]);
  });

  it("keeps a refusal whole when what follows 'but' is a refusal too", () => {
    const segments = splitClaims("I don't know, but the documents do not mention it.", testAnalyzer());
    expect(segments.map((s) => (s.kind === "claim" ? "claim" : s.reason))).toEqual(["refusal"]);
  });
});
