/**
 * A claim that says of one named thing (a plan, a tier, a version, a person, a product) what the
 * evidence says of another of its kind is not supported, though every one of its words is in the
 * evidence; its twin, which keeps each thing with what the evidence says of it, stays supported.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { NliResult } from "../../src/core/backend.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { loadLexicon } from "../../src/nli/offline/lexicon.ts";
import { mentionClauses, resolveMention } from "../../src/nli/offline/mentions.ts";
import { subjectSwap } from "../../src/nli/offline/subject-swap.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const lexicon = loadLexicon();
const backend = createOfflineBackend({ analyzer: testAnalyzer(), lexicon });
afterAll(() => backend.close());
const threshold = backend.recommendedThreshold ?? 0.5;

async function one(premise: string, hypothesis: string): Promise<NliResult> {
  const [r] = await backend.classify([{ premise, hypothesis }]);
  if (!r) throw new Error("no result");
  return r;
}

/** Each case: evidence, a claim swapping two things of one kind, and claims that keep them apart. */
const CASES: ReadonlyArray<{ what: string; evidence: string; swapped: string; twins: readonly string[] }> = [
  {
    what: "plans",
    evidence: "The Premium plan includes phone support; the Basic plan includes email support only.",
    swapped: "The Basic plan includes phone support.",
    twins: ["The Premium plan includes phone support.", "The Basic plan includes email support."],
  },
  {
    what: "people with titles",
    evidence: "Dr. Kim performed the surgery on Monday, and Dr. Lee reviewed the scans.",
    swapped: "Dr. Lee performed the surgery on Monday.",
    twins: ["Dr. Kim performed the surgery on Monday.", "Dr. Lee reviewed the scans."],
  },
  {
    what: "versions",
    evidence: "Version 2 adds dark mode; Version 3 adds offline sync.",
    swapped: "Version 3 adds dark mode.",
    twins: ["Version 2 adds dark mode.", "Version 3 adds offline sync."],
  },
  {
    what: "tiers",
    evidence: "Gold members get free shipping, while Silver members get a 10% discount on every order.",
    swapped: "Silver members get free shipping.",
    twins: ["Gold members get free shipping.", "Silver members get a 10% discount on every order."],
  },
  {
    what: "products, in separate sentences",
    evidence: "Acme Cloud supports single sign-on. Acme Lite supports password login only.",
    swapped: "Acme Lite supports single sign-on.",
    twins: ["Acme Cloud supports single sign-on.", "Acme Lite supports password login only."],
  },
  {
    what: "lowercase plan names",
    evidence: "The premium plan comes with a dedicated account manager, but the basic plan comes with community forums.",
    swapped: "The basic plan comes with a dedicated account manager.",
    twins: ["The premium plan comes with a dedicated account manager.", "The basic plan comes with community forums."],
  },
];

describe("offline backend: a claim's subject swapped for another of its kind", () => {
  it("knows a name's kind from the evidence when the claim drops the title", async () => {
    const r = await one("Dr. Lee performed the surgery on Monday, and Dr. Kim reviewed the scans.", "Kim performed the surgery on Monday.");
    expect(r.entailment).toBeLessThan(threshold);
  });

  for (const c of CASES) {
    it(`is not supported (${c.what}), and says which`, async () => {
      const r = await one(c.evidence, c.swapped);
      expect(r.entailment).toBeLessThan(threshold);
      expect(r.notes?.join(" ")).toMatch(/where the evidence says/);
    });

    it(`leaves its twins supported (${c.what})`, async () => {
      for (const twin of c.twins) {
        const r = await one(c.evidence, twin);
        expect(r.entailment, twin).toBeGreaterThan(threshold);
        expect(r.notes?.join(" ") ?? "", twin).not.toMatch(/where the evidence says/);
      }
    });
  }
});

describe("offline backend: ordinary claims about several named things stay supported", () => {
  const GROUNDED: ReadonlyArray<readonly [string, string]> = [
    // Coordinated subjects share one predicate.
    ["Dr. Kim and Dr. Lee reviewed the scans on Friday.", "Dr. Lee reviewed the scans on Friday."],
    // A clause that names nobody goes on about the one before it.
    ["Dr. Kim arrived at the hospital early, and performed the surgery before noon. Dr. Lee met the family.", "Dr. Kim performed the surgery before noon."],
    // A pronoun's sentence could be about anyone: no swap is claimed from it.
    ["Dr. Lee met the family. Dr. Kim joined the team last year. She performed the surgery before noon.", "Dr. Kim performed the surgery before noon."],
    // A dialogue: speakers are named, what they say names nobody.
    ["Anna: I will bring the cake to the party. Tom: Great, I will bring the drinks.", "Anna will bring the cake to the party."],
    // Bare one-word names (countries, publishers, weekdays) are said of together too often to be swapped.
    ["Oman opened its airspace to Israeli airlines on Thursday, and Saudi Arabia said it would follow.", "Oman opened its airspace to Israeli airlines."],
    // One name inside another may be the same thing ("CBS News" and "CBS Evening News").
    ["CBS News runs a streaming service around the clock. CBS Evening News airs every weekday.", "CBS Evening News runs on a streaming service."],
    // A sentence opening with a capitalised common word does not name it.
    ["Yesterday the Basic plan gained email support. Today the Premium plan gained phone support.", "The Basic plan gained email support."],
  ];
  for (const [evidence, claim] of GROUNDED) {
    it(`"${claim}"`, async () => {
      const r = await one(evidence, claim);
      expect(r.entailment).toBeGreaterThan(threshold);
      expect(r.notes?.join(" ") ?? "").not.toMatch(/where the evidence says/);
    });
  }
});

describe("mentions", () => {
  const analyzer = createTextAnalyzer();
  const keys = (text: string): string[][] => mentionClauses(analyzer.analyze(text)).map((c) => c.mentions.map((m) => `${resolveMention(m, lexicon)?.kind ?? "-"}:${resolveMention(m, lexicon)?.key ?? "-"}`));

  it("reads titled people, plans, tiers, versions and names of two words, one clause each", () => {
    expect(keys("Dr. Kim performed the surgery, and Dr. Lee reviewed the scans.")).toEqual([["person:kim"], ["person:lee"]]);
    expect(keys("Version 2 adds dark mode; version 3 adds offline sync.")).toEqual([["version:2"], ["version:3"]]);
    expect(keys("The Premium plan includes phone support, while Gold members get free shipping.")).toEqual([["plan:premium"], ["member:gold"]]);
    expect(keys("Acme Cloud supports the basic plan.")).toEqual([["name:acme:acme cloud", "plan:basic"]]);
  });

  it("gives a bare one-word name no kind, and leaves a capitalised common word that opens a sentence out of a name", () => {
    expect(keys("Yesterday Kim said so. Members pay less.")).toEqual([["-:kim"], []]);
  });
});

describe("subject swaps grow linearly", () => {
  // No analysis cache: each size is analysed once, outside the timed part.
  const fresh = createTextAnalyzer({ cacheBytes: 0 });
  const OPTIONS = { n: 8, maxN: 128 };

  // Neither finds a swap, so every clause is looked at.
  it("with the evidence's clauses naming things of one kind", () => {
    const claim = mentionClauses(fresh.analyze("The Basic plan includes phone support and a dedicated manager."));
    const growth = measureGrowth(
      (n) => fresh.analyze(Array.from({ length: n }, (_, i) => `The Plan${i} plan includes phone support; the Basic plan includes phone support`).join(", and ")),
      (doc) => subjectSwap(mentionClauses(doc), claim, lexicon),
      OPTIONS,
    );
    expectLinear("evidence of N clauses naming plans", growth);
  });

  it("with the claim's clauses naming things of one kind", () => {
    const evidence = mentionClauses(fresh.analyze("The Premium plan includes phone support; the Basic plan includes email support only."));
    const growth = measureGrowth(
      (n) => fresh.analyze(Array.from({ length: n }, (_, i) => `the Tier${i} plan includes email support`).join(", and ")),
      (doc) => subjectSwap(evidence, mentionClauses(doc), lexicon),
      OPTIONS,
    );
    expectLinear("claim of N clauses naming plans", growth);
  });
});
