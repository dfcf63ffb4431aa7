import { describe, expect, it } from "vitest";
import type { FeatureVector } from "../../src/nli/offline/features.ts";
import { extractFeatures, negatedLemmas, profileText } from "../../src/nli/offline/features.ts";
import { loadLexicon } from "../../src/nli/offline/lexicon.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const lexicon = loadLexicon();

function features(premise: string, hypothesis: string): FeatureVector {
  const a = testAnalyzer();
  const hyp = a.analyze(hypothesis);
  return extractFeatures(profileText(a.analyze(premise)), profileText(hyp), hyp, lexicon);
}

describe("negation scope", () => {
  it("covers the words right after the cue, up to punctuation", () => {
    expect([...negatedLemmas(testAnalyzer().analyze("The bridge was not badly damaged, but the road was.").tokens)]).toEqual(["badly", "damage"]);
  });

  it("flags a shared word negated on one side only", () => {
    expect(features("The bridge was not damaged in the storm.", "The bridge was damaged in the storm.").values.negation_mismatch).toBe(1);
    expect(features("The bridge was damaged in the storm.", "The bridge was never damaged in the storm.").values.negation_mismatch).toBe(1);
  });

  // Regression: a negation elsewhere in the evidence sentence used to flip any claim that shared two words with it.
  it("ignores a negation that covers none of the claim's words", () => {
    expect(features("The movie is a sci-fi story that was not released in cinemas.", "It's a sci-fi movie.").values.negation_mismatch).toBe(0);
  });

  // Regression: "not only … but" was counted as a negation.
  it("does not read 'not only' as a negation", () => {
    expect(features("It was the band's longest tour, one of the longest tours in rock history.", "It was not only the band's longest tour, but one of the longest in rock history.").values.negation_mismatch).toBe(0);
  });

  it("does not read an answer's leading 'No,' as negating its statement", () => {
    expect(features("The film has a 92% rating on Rotten Tomatoes.", "No, but it has a 92% rating on Rotten Tomatoes.").values.negation_mismatch).toBe(0);
  });
});

describe("antonyms", () => {
  it("flags an antonym in an evidence sentence that states the rest of the claim", () => {
    expect(features("The library is closed on Sundays.", "The library is open on Sundays.").values.antonym).toBe(1);
  });

  // Regression: a claim holding both words of an antonym pair ("a civilian military contractor") was flagged.
  it("ignores an antonym pair the claim itself contains", () => {
    expect(features("He worked for a military contractor.", "He worked for a civilian military contractor.").values.antonym).toBe(0);
  });

  it("ignores an antonym in a sentence about something else", () => {
    expect(features("The library is open on Sundays. The pool is closed for repairs in winter.", "The library is open on Sundays.").values.antonym).toBe(0);
  });
});
