/**
 * The offline backend's feature extraction meets attacker-controlled text (answers and
 * documents): its cost must grow linearly with either side (issue 25 added stems, compounds,
 * support verbs and quantity alignment to it).
 */
import { describe, it } from "vitest";
import { extractFeatures } from "../../src/nli/offline/features.ts";
import { profileText } from "../../src/nli/offline/profile-text.ts";
import { loadLexicon } from "../../src/nli/offline/lexicon.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const lexicon = loadLexicon();
// No analysis cache: each size is analysed once, outside the timed part.
const analyzer = createTextAnalyzer({ cacheBytes: 0 });
const SENTENCE = "Deleted projects can be restored within 7 days, and the company holds a certification for any time. ";
const CLAIM = "Deleted projects hold storage certification anytime for 30 days at 20% off and $29. ";
// At most 128 sentences against 1,024: past that, the features' sets and arrays are over V8's 128 KiB
// large-object size, fresh from the kernel on every run of the larger size only (test/helpers/growth.ts).
const OPTIONS = { n: 8, maxN: 128 };
// Its sentences hold more words: at most 32 against 256 keeps both sizes on one side of that threshold.
const PARAPHRASE_OPTIONS = { n: 4, maxN: 32 };

describe("offline features grow linearly", () => {
  it("with the evidence's length (sentences, numbers, compounds)", () => {
    const hyp = analyzer.analyze(CLAIM);
    const hypProfile = profileText(hyp);
    const growth = measureGrowth(
      (n) => analyzer.analyze(SENTENCE.repeat(n)),
      (doc) => extractFeatures(profileText(doc), hypProfile, hyp, lexicon),
      OPTIONS,
    );
    expectLinear("evidence of N sentences with numbers", growth);
  });

  it("with the number of clauses, each with a number, in one evidence sentence", () => {
    const hyp = analyzer.analyze("Logs are kept for 45 days on the Starter plan.");
    const hypProfile = profileText(hyp);
    const growth = measureGrowth(
      (n) => analyzer.analyze(`Logs are kept ${Array.from({ length: n }, (_, i) => `for ${i + 1} days on plan ${i}`).join(" and ")}.`),
      (doc) => extractFeatures(profileText(doc), hypProfile, hyp, lexicon),
      OPTIONS,
    );
    expectLinear("one evidence sentence of N clauses with numbers", growth);
  });

  it("with the length of both sides in paraphrase groups and their opposites", () => {
    const evidence = "Support is open Monday to Friday around the clock, billed annually on a pro rata basis. ";
    const claim = "Support is open on weekends 24 hours a day, paid monthly with a prorated refund. ";
    const premise = profileText(analyzer.analyze(evidence.repeat(4)));
    const claimGrowth = measureGrowth(
      (n) => analyzer.analyze(claim.repeat(n)),
      (doc) => extractFeatures(premise, profileText(doc), doc, lexicon),
      PARAPHRASE_OPTIONS,
    );
    expectLinear("claim of N sentences of paraphrases", claimGrowth);
    const hyp = analyzer.analyze(claim);
    const hypProfile = profileText(hyp);
    const evidenceGrowth = measureGrowth(
      (n) => analyzer.analyze(evidence.repeat(n)),
      (doc) => extractFeatures(profileText(doc), hypProfile, hyp, lexicon),
      PARAPHRASE_OPTIONS,
    );
    expectLinear("evidence of N sentences of paraphrases", evidenceGrowth);
  });

  it("with the claim's length (support verbs, joined words, numbers)", () => {
    const premise = profileText(analyzer.analyze(SENTENCE));
    const growth = measureGrowth(
      (n) => analyzer.analyze(CLAIM.repeat(n)),
      (doc) => extractFeatures(premise, profileText(doc), doc, lexicon),
      OPTIONS,
    );
    expectLinear("claim of N sentences with numbers", growth);
  });
});
