/**
 * The citation parser meets attacker text (answers, document names and URLs): every pattern in it is
 * timed at N and 8N on input crafted against its quantifiers, and its hand scans are checked against
 * the regular expressions they replace on many small inputs, where those still run fast.
 */
import { describe, expect, it } from "vitest";
import type { CitationMarker } from "../../src/core/citations.ts";
import { findCitations, resolveCitations } from "../../src/core/citations.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

/**
 * 12,500 characters against 100,000 (the issue's 100 KB). The sizes stay put (maxN): what the parser
 * makes of 100,000 one-byte characters stays under V8's 128 KiB large-object size, so neither size takes
 * fresh pages from the kernel on every run (test/helpers/growth.ts).
 */
const N = 12_500;
const OPTIONS = { n: N, maxN: N };
const spaces = (n: number): string => " ".repeat(n);
const repeatTo = (unit: string, n: number): string => unit.repeat(Math.max(1, Math.floor(n / unit.length)));

describe("findCitations grows linearly on adversarial answers", () => {
  it.each([
    ["(source: and a whitespace run, no closer", (n: number) => `The fee is $5 (source:${spaces(n)}`],
    ["[sources : and a whitespace run, no closer", (n: number) => `The fee is $5 [sources :${spaces(n)}`],
    ["(source: and a whitespace run, then a closer", (n: number) => `The fee is $5 (source:${spaces(n)})`],
    ["a name, then a whitespace run with no closer", (n: number) => `Fee (source: a.md${spaces(n)}`],
    ["a name, a whitespace run, then more text and a closer", (n: number) => `Fee (source: a.md${spaces(n)}b)`],
    ["spaced words with no closer", (n: number) => `Fee (source:${repeatTo(" a", n)}`],
    ["a run of line breaks before the closer", (n: number) => `Fee (source:${"\n".repeat(n)})`],
    ["whitespace before the source word", (n: number) => `Fee (${spaces(n)}source`],
    ["repeated openers, each with a whitespace run", (n: number) => repeatTo(`(source:${spaces(40)}`, n)],
    ["repeated openers and names with no closer", (n: number) => repeatTo("[Sources: a.md, b.md ", n)],
    ["[1 and a whitespace run", (n: number) => `Fee [1${spaces(n)}`],
    ["a list of numbers with no closer", (n: number) => `Fee [${repeatTo("1,", n)}`],
    ["a spaced list of numbers with no closer", (n: number) => `Fee [${repeatTo("1 , 2 - 3 ; ", n)}`],
    ["repeated [1 openers", (n: number) => repeatTo("[1 ", n)],
  ])("%s", (what, make) => {
    expectLinear(what, measureGrowth(make, (answer) => findCitations(answer, true), OPTIONS));
  });
});

describe("resolveCitations grows linearly on adversarial names", () => {
  const marker = (name: string): CitationMarker => ({ text: `(source: ${name})`, start: 0, end: 1, targets: [{ kind: "name", name }] });
  it.each([
    ["a URL ending in a run of slashes", (n: number) => `https://example.com/${"/".repeat(n)}`],
    ["a URL with a run of slashes before a last character", (n: number) => `https://example.com/${"/".repeat(n)}x`],
    ["a run of question marks, then a line break", (n: number) => `https://example.com/${"?".repeat(n)}\nx`],
    ["a run of hashes and question marks", (n: number) => `a${repeatTo("#?", n)}`],
    ["a run of dots", (n: number) => `docs/a${".".repeat(n)}md`],
    ["a run of digits as an id", (n: number) => `${"1".repeat(n)}x`],
  ])("%s", (what, make) => {
    expectLinear(what, measureGrowth(make, (url) => resolveCitations([marker(url)], [{ id: url, url, title: url }]), OPTIONS));
  });
});

describe("a long list of cited numbers", () => {
  it("is read and resolved in linear time (each target against a keyed map, each marker's documents deduplicated)", () => {
    const docs = Array.from({ length: 20 }, (_, i) => ({ id: String(i + 1), text: `Document ${i + 1}.` }));
    // 3,000 characters against 24,000: the larger list's 13,000 targets (and the arrays of its
    // numbers) stay under 16,000 elements, V8's large-object size; 100,000 characters would make them
    // large objects, fresh from the kernel on every run where the smaller list's are not.
    const growth = measureGrowth(
      (n) => `Fee [${repeatTo("1, 2-5, 7; ", n)}9]`,
      (answer) => resolveCitations(findCitations(answer, true), docs),
      { n: 3_000, maxN: 3_000 },
    );
    expectLinear("[1, 2-5, 7; … 9]", growth);
  });
});

describe("scoring an answer with adversarial citation text", () => {
  it("grows linearly, the citation found in the limited answer", async () => {
    // No analysis cache: each timed run analyses its answer.
    const scorer = createGroundednessScorer(createFakeBackend(), createTextAnalyzer({ cacheBytes: 0 }), { threshold: 0.5, topK: 3, tokenBudget: 400, maxAnswerChars: 1_000_000 });
    const docs = [{ id: "refund-policy.md", text: "Refunds are issued within 14 days." }];
    // The scorer is async; the growth is measured on its synchronous part (the promise is settled after).
    const pending: Array<Promise<unknown>> = [];
    const growth = measureGrowth(
      (n) => `Refunds are issued within 14 days (source:${spaces(n)}`,
      (answer) => pending.push(scorer.score({ answer, context: docs })),
      OPTIONS,
    );
    await Promise.all(pending);
    expectLinear("score() on (source: + whitespace", growth);
  });
});

// --- The hand scans read exactly what the regular expressions they replace read. ---

/** A seeded generator (mulberry32), so the inputs are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OLD_NAMED = /[([]\s*sources?\s*:\s*([^()[\]\n]{1,200}?)\s*[)\]]/giy;

/** The named-source reading before it became a hand scan, on text with no digits, code or quotes. */
function oldNamed(answer: string): Array<[string, number, string[]]> {
  const out: Array<[string, number, string[]]> = [];
  for (let i = 0; i < answer.length; i++) {
    if (answer[i] !== "(" && answer[i] !== "[") continue;
    OLD_NAMED.lastIndex = i;
    const m = OLD_NAMED.exec(answer);
    if (!m) continue;
    const names = (m[1] ?? "").split(/\s*[,;]\s*/).filter((n) => n !== "");
    if (names.length === 0) continue;
    out.push([m[0], i, names]);
    i += m[0].length - 1;
  }
  return out;
}

function oldNormalise(name: string): string {
  return name.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/[?#].*$/, "").replace(/\/+$/, "");
}

function oldBaseNames(name: string): string[] {
  const base = name.split("/").pop() ?? name;
  const stem = base.replace(/\.[a-z0-9]{1,5}$/, "");
  return stem === base ? [base] : [base, stem];
}

describe("the hand scans agree with the regular expressions they replace", () => {
  it("reads the same named sources on 20,000 small answers", () => {
    const random = seeded(24);
    const pieces = ["(", "[", ")", "]", " ", "  ", "\n", "\t", "\u00a0", "source", "Sources", "SOURCE", "s", ":", ",", ";", " , ", "a.md", "b", "x y"];
    for (let k = 0; k < 20_000; k++) {
      let answer = "";
      const length = 1 + Math.floor(random() * 14);
      for (let p = 0; p < length; p++) answer += pieces[Math.floor(random() * pieces.length)];
      const found = findCitations(answer, true).map((m): [string, number, string[]] => [m.text, m.start, m.targets.map((t) => (t.kind === "name" ? t.name : ""))]);
      expect(found, JSON.stringify(answer)).toEqual(oldNamed(answer));
    }
  });

  it("reads the 200-character limit on names as before", () => {
    for (const n of [198, 199, 200, 201]) {
      const answer = `Fee (source: ${"a".repeat(n)}  )`;
      expect(findCitations(answer, true).map((m) => m.text), String(n)).toEqual(oldNamed(answer).map((m) => m[0]));
    }
  });

  it("resolves the same documents on 20,000 small names", () => {
    const random = seeded(6);
    const pieces = ["https://", "http://", "HTTP://", "/", "//", "?", "#", "\n", " ", "a", "B", ".", ".md", ".html", "x.y", "1", "q=1"];
    const make = (): string => {
      let s = "";
      const length = 1 + Math.floor(random() * 8);
      for (let p = 0; p < length; p++) s += pieces[Math.floor(random() * pieces.length)];
      return s;
    };
    for (let k = 0; k < 20_000; k++) {
      const url = make();
      const name = make();
      const [resolved] = resolveCitations([{ text: name, start: 0, end: 1, targets: [{ kind: "name", name }] }], [{ url }]);
      const key = oldNormalise(url);
      const keys = new Set(url.trim() === "" ? [] : [key, ...oldBaseNames(key)]);
      const n = oldNormalise(name);
      const expected = keys.has(n) || oldBaseNames(n).some((b) => keys.has(b)) ? [0] : [];
      expect(resolved?.docs, JSON.stringify({ url, name })).toEqual(expected);
    }
  });
});
