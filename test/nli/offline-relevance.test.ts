/**
 * The offline backend's context relevance: how much of a query's content a passage speaks about,
 * rarity-weighted, with soft matches through the word vectors. Deterministic, bounded, and linear
 * in the passage (passages are retrieved documents: attacker-controlled text).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { profileText } from "../../src/nli/offline/profile-text.ts";
import { DEFAULT_LEXICON_DIR, loadLexicon } from "../../src/nli/offline/lexicon.ts";
import { MAX_QUERY_TERMS, queryTerms, relevanceScore } from "../../src/nli/offline/relevance.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const lexicon = loadLexicon();
const backend = createOfflineBackend({ analyzer: testAnalyzer(), lexicon });
const QUESTION = "How long are deleted projects kept before they are purged?";
const ON_TOPIC = "Deleted projects are kept for 30 days before they are purged permanently.";
const OFF_TOPIC = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.";

describe("offline context relevance", () => {
  it("reads a passage with a source inside its document's analysis, and scores it as the passage read alone", async () => {
    const document = `Billing questions go to finance. ${ON_TOPIC} Archived projects stay forever.`;
    const source = { document, start: document.indexOf(ON_TOPIC), end: document.indexOf(ON_TOPIC) + ON_TOPIC.length };
    const fresh = createOfflineBackend({ analyzer: createTextAnalyzer(), lexicon, cacheSize: 1 });
    const [withSource, alone] = await fresh.relevance!([
      { query: QUESTION, passage: ON_TOPIC, source },
      { query: QUESTION, passage: ON_TOPIC },
    ]);
    expect(withSource).toBeCloseTo(alone ?? -1, 6);
    await fresh.close();
  });

  it("scores a passage that states the question's words above one about something else", async () => {
    const [on, off] = await backend.relevance!([
      { query: QUESTION, passage: ON_TOPIC },
      { query: QUESTION, passage: OFF_TOPIC },
    ]);
    expect(on).toBeGreaterThan(0.8);
    expect(off).toBeLessThan(0.3);
  });

  it("counts a word the passage states only through a near word in the vectors, for less than the word itself", async () => {
    const [exact, near, none] = await backend.relevance!([
      { query: "How much does a car cost?", passage: "The car costs twenty thousand dollars." },
      { query: "How much does a car cost?", passage: "The automobile price is twenty thousand dollars." },
      { query: "How much does a car cost?", passage: "The museum opens at nine on weekdays." },
    ]);
    expect(exact).toBe(1);
    expect(near).toBeGreaterThan(none ?? 1);
    expect(near).toBeLessThan(exact ?? 0);
  });

  it("weighs rare words above common ones", async () => {
    // The same share of the query's words, once the rare one and once the common one.
    const [rare, common] = await backend.relevance!([
      { query: "refund thing", passage: "Refunds are issued within a week." },
      { query: "refund thing", passage: "Every thing is issued within a week." },
    ]);
    expect(rare).toBeGreaterThan(common ?? 1);
  });

  it("returns one score in [0, 1] per pair, in order, and the same scores whatever the batch", async () => {
    const pairs = [
      { query: QUESTION, passage: ON_TOPIC },
      { query: QUESTION, passage: OFF_TOPIC },
      { query: "Who designed the tower in Paris?", passage: OFF_TOPIC },
    ];
    const scores = await backend.relevance!(pairs);
    expect(scores).toHaveLength(3);
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
    const reversed = await createOfflineBackend({ analyzer: testAnalyzer(), lexicon }).relevance!([...pairs].reverse());
    expect(reversed.reverse()).toEqual(scores);
    expect(await backend.relevance!([])).toEqual([]);
  });

  it("scores 0 for a query with no content word, and for an empty passage", async () => {
    expect(await backend.relevance!([
      { query: "?", passage: ON_TOPIC },
      { query: QUESTION, passage: "" },
    ])).toEqual([0, 0]);
  });

  it("looks for at most MAX_QUERY_TERMS distinct words of a query", () => {
    const words = readFileSync(join(DEFAULT_LEXICON_DIR, "vocab.txt"), "utf8").split("\n").filter((w) => /^[a-z]{6,}$/.test(w)).slice(0, 3 * MAX_QUERY_TERMS);
    expect(queryTerms(testAnalyzer().analyze(words.join(" "))).length).toBe(MAX_QUERY_TERMS);
  });
});

describe("offline context relevance grows linearly", () => {
  // Distinct real words, so the passage's vocabulary (what soft matching walks) grows with it.
  const vocab = readFileSync(join(DEFAULT_LEXICON_DIR, "vocab.txt"), "utf8").split("\n").filter((w) => /^[a-z]{4,}$/.test(w));
  const analyzer = createTextAnalyzer({ cacheBytes: 0 });
  const sentence = (i: number): string => `The ${vocab[(3 * i) % vocab.length] ?? "x"} of ${vocab[(3 * i + 1) % vocab.length] ?? "y"} was ${vocab[(3 * i + 2) % vocab.length] ?? "z"} in 2024. `;
  // 64 sentences against 256 (N vs 4N): the passage's working set (its sets of words, the word vectors
  // soft matching reads) grows with its vocabulary and costs about 1.5× per word over 8× the words,
  // from the CPU's caches outward; at 4× a quadratic walk of the vocabulary is still 4× per word. The
  // larger passage's sets stay under V8's 128 KiB large-object size (test/helpers/growth.ts).
  const OPTIONS = { n: 64, maxN: 64, factor: 4 };

  it("with the passage's length and vocabulary", () => {
    const terms = queryTerms(analyzer.analyze("Which unfamiliar zephyr quokka did the committee approve for the refund policy?"));
    const growth = measureGrowth(
      (n) => analyzer.analyze(Array.from({ length: n }, (_, i) => sentence(i)).join("")),
      (doc) => relevanceScore(profileText(doc), terms, lexicon),
      OPTIONS,
    );
    expectLinear("passage of N sentences of distinct words", growth);
  });

  it("with the query's length", () => {
    const passage = analyzer.analyze(Array.from({ length: 20 }, (_, i) => sentence(i)).join(""));
    const growth = measureGrowth(
      (n) => Array.from({ length: n }, (_, i) => sentence(i + 1000)).join(""),
      (query) => relevanceScore(profileText(passage), queryTerms(analyzer.analyze(query)), lexicon),
      OPTIONS,
    );
    expectLinear("query of N sentences", growth);
  });
});
