import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { NliResult } from "../../src/core/backend.ts";
import { createOfflineBackend, loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { loadLexicon } from "../../src/nli/offline/lexicon.ts";
import { parseOfflineModel } from "../../src/nli/offline/model.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const backend = createOfflineBackend({ analyzer: testAnalyzer() });
afterAll(() => backend.close());

async function one(premise: string, hypothesis: string): Promise<NliResult> {
  const [r] = await backend.classify([{ premise, hypothesis }]);
  if (!r) throw new Error("no result");
  return r;
}

const EVIDENCE = "Returns: you may return unopened items within 30 days of delivery for a full refund.";

describe("offline backend", () => {
  it("declares itself triage tier with a fitted threshold", () => {
    expect(backend.name).toBe("offline");
    expect(backend.tier).toBe("triage");
    expect(backend.recommendedThreshold).toBeGreaterThan(0);
    expect(backend.recommendedThreshold).toBeLessThan(1);
  });

  it("returns probabilities that sum to one", async () => {
    const r = await one(EVIDENCE, "You can return unopened items within 30 days.");
    expect(r.entailment + r.neutral + r.contradiction).toBeCloseTo(1, 9);
    for (const p of [r.entailment, r.neutral, r.contradiction]) expect(p).toBeGreaterThanOrEqual(0);
  });

  it("supports a paraphrased number and contradicts a changed one", async () => {
    const same = await one(EVIDENCE, "You can return unopened items within thirty days of delivery.");
    const changed = await one(EVIDENCE, "You can return unopened items within 90 days of delivery.");
    expect(same.entailment).toBeGreaterThan(changed.entailment);
    expect(changed.contradiction).toBeGreaterThan(changed.entailment);
    expect(changed.notes?.join(" ")).toContain('"90 days" where the evidence says "30 days"');
  });

  it("treats a scale change in money as a contradiction", async () => {
    const r = await one("The council approved a budget of $160 million for the transit line.", "The council approved a $1.6 billion budget for the transit line.");
    expect(r.contradiction).toBeGreaterThan(r.entailment);
  });

  it("treats a negation flip as a contradiction", async () => {
    const evidence = "The tower was designed by the company of Gustave Eiffel.";
    const plain = await one(evidence, "The tower was designed by the company of Gustave Eiffel.");
    const negated = await one(evidence, "The tower was not designed by the company of Gustave Eiffel.");
    expect(negated.contradiction).toBeGreaterThan(negated.entailment);
    expect(plain.entailment).toBeGreaterThan(negated.entailment);
  });

  it("treats an antonym of an evidence word as a contradiction", async () => {
    const r = await one("The north entrance is open on Sundays.", "The north entrance is shut on Sundays.");
    expect(r.contradiction).toBeGreaterThan(r.entailment);
    expect(r.notes?.join(" ")).toContain("antonym");
  });

  it("scores a claim with names missing from the evidence lower", async () => {
    const evidence = "Marie Curie won the Nobel Prize in Physics in 1903.";
    const ok = await one(evidence, "Marie Curie won the Nobel Prize in Physics.");
    const wrongName = await one(evidence, "Albert Einstein won the Nobel Prize in Physics.");
    expect(ok.entailment).toBeGreaterThan(wrongName.entailment);
    expect(wrongName.notes?.join(" ")).toContain("Einstein");
  });

  it("is deterministic", async () => {
    const a = await one(EVIDENCE, "Items can be returned within a month.");
    const b = await one(EVIDENCE, "Items can be returned within a month.");
    expect(a).toEqual(b);
  });

  it("reads a window inside its document's analysis, whatever its caches hold, and never mixes up two documents with the same window", async () => {
    const documentA = `Shipping is free. ${EVIDENCE} Gift cards are final sale.`;
    const documentB = `Opening hours vary. ${EVIDENCE}`;
    const at = (document: string) => ({ document, start: document.indexOf(EVIDENCE), end: document.indexOf(EVIDENCE) + EVIDENCE.length });
    const pair = (document: string) => ({ premise: EVIDENCE, hypothesis: "Unopened items can be returned within 30 days.", source: at(document) });
    const fresh = () => createOfflineBackend({ analyzer: testAnalyzer(), cacheSize: 1 });
    const cold = fresh();
    const [first] = await cold.classify([pair(documentA)]);
    // The other document's window of the same text, then documentA's again: read from documentA each time.
    const [, again] = await cold.classify([pair(documentB), pair(documentA)]);
    expect(again).toEqual(first);
    const other = fresh();
    const [fromB] = await other.classify([pair(documentB)]);
    expect((await cold.classify([pair(documentB)]))[0]).toEqual(fromB);
    // And the window read on its own says the same thing about this claim.
    expect(first?.entailment).toBeCloseTo((await one(EVIDENCE, "Unopened items can be returned within 30 days.")).entailment, 6);
    await cold.close();
    await other.close();
  });
});

describe("offline backend files", () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-lexicon-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the missing lexicon file", () => {
    expect(() => loadLexicon(dir)).toThrow(/vocab\.txt/);
  });

  it("refuses a vector file that does not match the vocabulary", () => {
    writeFileSync(join(dir, "vocab.txt"), "alpha\nbeta\n");
    writeFileSync(join(dir, "vectors.i8"), Buffer.alloc(3));
    writeFileSync(join(dir, "antonyms.tsv"), "");
    expect(() => loadLexicon(dir)).toThrow(/not a whole number of rows/);
  });

  it("refuses weights whose features differ from the extractor's", () => {
    const good = loadOfflineModel();
    expect(() => parseOfflineModel({ ...good, features: ["coverage"] }, "w.json")).toThrow(/w\.json: features/);
    expect(() => parseOfflineModel({ ...good, weights: good.weights.slice(1) }, "w.json")).toThrow(/weights must hold/);
  });

  it("names an unreadable weights file", () => {
    expect(() => loadOfflineModel(join(dir, "missing.json"))).toThrow(/missing\.json/);
  });
});
