import { describe, expect, it } from "vitest";
import type { FeatureVector } from "../../src/nli/offline/features.ts";
import { extractFeatures } from "../../src/nli/offline/features.ts";
import { negatedLemmas, profileText } from "../../src/nli/offline/profile-text.ts";
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
    expect(features("The library is closed on Sundays.", "The library is open on Sundays.").contradiction.antonym).toBe(1);
  });

  // Regression: a claim holding both words of an antonym pair ("a civilian military contractor") was flagged.
  it("ignores an antonym pair the claim itself contains", () => {
    expect(features("He worked for a military contractor.", "He worked for a civilian military contractor.").contradiction.antonym).toBe(0);
  });

  it("ignores an antonym in a sentence about something else", () => {
    expect(features("The library is open on Sundays. The pool is closed for repairs in winter.", "The library is open on Sundays.").contradiction.antonym).toBe(0);
  });
});

describe("numbers in coverage", () => {
  it("counts a spelled-out number as covered by the same number in digits, and the other way round", () => {
    expect(features("Refunds are available within 30 days of delivery.", "Refunds are available within thirty days of delivery.").values.coverage).toBe(1);
    expect(features("The plant employs thirty-five people.", "The plant employs thirty-five people.").values.coverage).toBe(1);
    expect(features("The plant employs 35 people.", "The plant employs thirty-five people.").values.coverage).toBe(1);
    expect(features("The plant employs 35 people.", "The plant employs thirty-five people.").missingNumbers).toBe(0);
  });

  it("matches a sentence-initial plural in the evidence to the singular in the claim", () => {
    const f = features("Refunds are available within 30 days of delivery. Items must be unused.", "A refund is available for an unused item.");
    expect(f.values.coverage).toBe(1);
    expect(f.notes.join(" ")).not.toMatch(/not in evidence/);
  });

  it("reports the share of the claim's numbers the evidence does not state", () => {
    expect(features("The store opens at 9 am.", "The store opens at 9 am with 40 staff.").missingNumbers).toBe(0.5);
    expect(features("The warranty covers parts.", "The warranty covers parts for 5 years.").missingNumbers).toBe(1);
    // An ordinal is a manner of speaking as often as a fact: it does not count.
    expect(features("He won the race.", "He won the race for the first time.").missingNumbers).toBe(0);
  });
});

describe("names at the start of a sentence", () => {
  it("reads a capitalised common word that starts a sentence as a word, not a name", () => {
    const f = features("The annual membership includes free express shipping.", "Members get free express shipping.");
    expect(f.values.entity_missing).toBe(0);
    expect(f.notes.join(" ")).not.toMatch(/names not in evidence/);
  });

  it("still finds a name the evidence lacks, at the start of a sentence or inside one", () => {
    expect(features("Smith won the race in 1990.", "Jones won the race in 1990.").notes).toContain("names not in evidence: Jones");
    expect(features("The race was won by Smith.", "The race was won by Halvorsen.").notes).toContain("names not in evidence: Halvorsen");
    expect(features("Smith won the race in 1990.", "Halvorsen won the race in 1990.").values.entity_missing).toBe(1);
  });
});

describe("negation against the evidence", () => {
  it("does not flip a claim that states the same negation with another word order", () => {
    expect(features("Accidental damage is not covered.", "The warranty does not cover accidental damage.").values.negation_mismatch).toBe(0);
  });

  it("flips a claim that drops the evidence's negation, or adds one", () => {
    expect(features("The bridge was not damaged in the storm.", "The bridge was damaged in the storm.").values.negation_mismatch).toBe(1);
    expect(features("The bridge was damaged in the storm.", "The bridge was not damaged in the storm.").values.negation_mismatch).toBe(1);
  });
});

describe("other forms of a word (issue 25)", () => {
  it("counts a derivational form, a compound written joined or split, and a support verb as stated", () => {
    expect(features("The company is SOC 2 Type II certified.", "The company holds SOC 2 Type II certification.").values.coverage).toBe(1);
    expect(features("Each workspace may hold up to 50 GB of storage.", "Each workspace can store up to 50 GB.").values.coverage).toBe(1);
    expect(features("You can cancel at any time.", "You can cancel anytime.").values.coverage).toBe(1);
    expect(features("You can cancel anytime.", "You can cancel at any time.").values.coverage).toBe(1);
  });

  it("does not stretch a support verb to a noun the evidence does not state in any form", () => {
    const f = features("The company is SOC 2 Type II certified.", "The company holds a patent.");
    expect(f.notes).toContain("not in evidence: holds, patent");
  });
});

describe("numbers are read against the sentence the claim is about (issue 25)", () => {
  const PRICING =
    "The Starter plan costs $29 per month and includes 3 projects. The Team plan costs $99 per month and includes 20 projects. Annual billing gives a 15% discount on either plan.";

  it("contradicts with the aligned sentence's value even when another sentence states the claimed number", () => {
    const f = features(PRICING, "Annual billing gives you 20% off.");
    expect(f.contradiction.number).toBe(1);
    expect(f.notes).toContain('"20%" where the evidence says "15%"');
  });

  it("says so when the claimed value stands only in a sentence about something else", () => {
    const f = features("Logs are kept for 30 days. Deleted projects can be restored.", "Deleted projects can be restored within 30 days.");
    expect(f.contradiction.number).toBe(0);
    expect(f.missingNumbers).toBe(1);
    expect(f.notes).toContain('"30 days" not in evidence (only "30 days", in a sentence about something else)');
  });

  it("reads a claim that is all numbers against the whole evidence", () => {
    expect(features("Logs are kept for 30 days.", "30 days.").missingNumbers).toBe(0);
  });
});
