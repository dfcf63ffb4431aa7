/**
 * What the evidence shown beside a claim tells its reader: the window's opening text (what
 * `score --format table` showed before issue 25: the first 90 characters of a window of up to ~2,100)
 * against the evidence sentence it shows now (up to 160 characters).
 *
 *   npx tsx bench/evidence.ts            # GROUNDWATCH_EVIDENCE_ROWS=200 rows per dev set by default
 *
 * For the first rows of every dev set (../shared/data/dev), scored with the offline backend at the
 * default settings, every claim with evidence:
 * - mean characters of the window judged and of the sentence shown;
 * - claim-term recall: the share of the claim's distinct content lemmas that the text shown holds
 *   (the window's first 90 characters, the sentence's first 160, and the whole window as the bound);
 * - for contradicted claims whose notes name the evidence's conflicting number ("… where the evidence
 *   says "30 days""), the share whose text shown holds that number.
 */
import { cpus } from "node:os";
import { contentTerms } from "../src/core/context.ts";
import { createGroundednessScorer } from "../src/core/groundedness.ts";
import { evidenceToShow } from "../src/core/verdict.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import { loadDevSets } from "../scripts/devsets.ts";

const ROWS = Number(process.env.GROUNDWATCH_EVIDENCE_ROWS ?? 200);

/** The first `width` characters of the text on one line, as the table clips it. */
const clip = (text: string, width: number): string => text.replace(/\s+/g, " ").trim().slice(0, width);

const pct = (n: number, d: number): string => (d === 0 ? "–" : `${((100 * n) / d).toFixed(1)}%`);

async function main(): Promise<void> {
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; ${ROWS} rows per set`);
  const analyzer = createTextAnalyzer();
  const backend = createOfflineBackend({ analyzer });
  const scorer = createGroundednessScorer(backend, analyzer, { ...DEFAULT_SETTINGS, threshold: backend.recommendedThreshold ?? 0.5 });
  const terms = (text: string): Set<string> => new Set(contentTerms(analyzer.analyze(text).tokens));
  console.log("");
  console.log("| dev set | claims with evidence | window chars (mean) | sentence chars (mean) | claim terms in window's first 90 chars | in sentence's first 160 | in whole window | contradicted on a number: number shown, first 90 / sentence |");
  console.log("|---|---|---|---|---|---|---|---|");
  const total = { claims: 0, windowChars: 0, sentenceChars: 0, terms: 0, old: 0, now: 0, whole: 0, numbers: 0, numbersOld: 0, numbersNow: 0 };
  for (const [name, rows] of loadDevSets()) {
    const t = { claims: 0, windowChars: 0, sentenceChars: 0, terms: 0, old: 0, now: 0, whole: 0, numbers: 0, numbersOld: 0, numbersNow: 0 };
    for (const row of rows.slice(0, ROWS)) {
      const r = await scorer.score({ answer: row.claim, context: row.context });
      for (const c of r.claims) {
        const ev = evidenceToShow(c);
        if (!ev) continue;
        const window = row.context.slice(ev.window.start, ev.window.end);
        const old = clip(window, 90);
        const now = clip(ev.text, 160);
        t.claims++;
        t.windowChars += window.length;
        t.sentenceChars += ev.text.length;
        const claimTerms = terms(c.text);
        const has = (shown: Set<string>): number => [...claimTerms].filter((x) => shown.has(x)).length;
        t.terms += claimTerms.size;
        t.old += has(terms(old));
        t.now += has(terms(now));
        t.whole += has(terms(window));
        if (c.verdict === "contradicted") {
          const says = c.notes.map((n) => /where the evidence says "([^"]+)"/.exec(n)?.[1]).find((x) => x !== undefined && x !== "");
          if (says) {
            t.numbers++;
            if (old.includes(says)) t.numbersOld++;
            if (now.includes(says)) t.numbersNow++;
          }
        }
      }
    }
    for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += t[k];
    console.log(`| ${name} | ${t.claims} | ${(t.windowChars / Math.max(1, t.claims)).toFixed(0)} | ${(t.sentenceChars / Math.max(1, t.claims)).toFixed(0)} | ${pct(t.old, t.terms)} | ${pct(t.now, t.terms)} | ${pct(t.whole, t.terms)} | ${t.numbers}: ${pct(t.numbersOld, t.numbers)} / ${pct(t.numbersNow, t.numbers)} |`);
  }
  const t = total;
  console.log(`| **all** | ${t.claims} | ${(t.windowChars / Math.max(1, t.claims)).toFixed(0)} | ${(t.sentenceChars / Math.max(1, t.claims)).toFixed(0)} | ${pct(t.old, t.terms)} | ${pct(t.now, t.terms)} | ${pct(t.whole, t.terms)} | ${t.numbers}: ${pct(t.numbersOld, t.numbers)} / ${pct(t.numbersNow, t.numbers)} |`);
  await backend.close();
}

await main();
