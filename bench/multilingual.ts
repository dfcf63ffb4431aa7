/**
 * Answers in ten languages on the offline backend, and the cost of cutting spaceless scripts into words.
 *
 *   npx tsx bench/multilingual.ts
 *
 * 1. The cases of test/core/multilingual-cases.ts (a verbatim copy, the copy with its number
 *    changed, an invented sentence, per language) scored with the default settings and the
 *    offline backend's fitted threshold: verdict and score of each, and a Chinese answer to the
 *    English documents.
 * 2. The analyser (wink-nlp plus segmentation) on one run of Chinese with no space and no
 *    sentence end, at 25,000, 100,000 and 400,000 characters: ms and characters per ms.
 * 3. Intl.Segmenter on the same run, the whole string at once against 512-character chunks
 *    (what src/core/spaceless-scripts.ts does), at 5,000 to 320,000 characters (the whole string only up
 *    to 20,000: at 80,000 it took 28 s here).
 */
import { cpus } from "node:os";
import { DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import { createGroundednessScorer } from "../src/core/groundedness.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { LANGUAGE_CASES } from "../test/core/multilingual-cases.ts";

const analyzer = createTextAnalyzer();
const backend = createOfflineBackend({ analyzer });
const threshold = backend.recommendedThreshold ?? 0.5;
const scorer = createGroundednessScorer(backend, analyzer, { ...DEFAULT_SETTINGS, threshold });

const cell = async (answer: string, context: string): Promise<string> => {
  const r = await scorer.score({ answer, context });
  if (r.verdict === "unscorable") return `unscorable (${r.reason})`;
  const claim = r.claims.find((c) => c.verdict !== "supported") ?? r.claims[0];
  return `${r.verdict} ${r.score.toFixed(2)}${claim && claim.verdict !== "supported" ? ` (${claim.verdict})` : ""}`;
};

console.log(`offline backend, threshold ${threshold}, topK ${DEFAULT_SETTINGS.topK}, tokenBudget ${DEFAULT_SETTINGS.tokenBudget}; ${cpus()[0]?.model ?? "cpu"}, Node ${process.versions.node}, ICU ${process.versions.icu}\n`);
console.log("| language | verbatim copy | number changed | invented sentence |");
console.log("|---|---|---|---|");
for (const c of LANGUAGE_CASES) {
  console.log(`| ${c.language} | ${await cell(c.copy, c.context)} | ${await cell(c.numberChanged, c.context)} | ${await cell(c.invented, c.context)} |`);
}
const english = LANGUAGE_CASES[0];
const chinese = LANGUAGE_CASES.find((c) => c.language === "Chinese");
if (english && chinese) console.log(`\nChinese copy against the English documents: ${await cell(chinese.copy, english.context)}`);

const RUN = "退货政策：未开封的商品可在交货后三十天内退货，并获得全额退款我们的商店每天上午九点开门";
const chineseRun = (n: number): string => RUN.repeat(Math.ceil(n / RUN.length)).slice(0, n);
const best = (fn: () => unknown, rounds: number): number => {
  let min = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
};

console.log("\n| Chinese characters (one run) | analyse, ms (best of 3) | characters per ms |");
console.log("|---|---|---|");
const fresh = createTextAnalyzer({ cacheBytes: 0 });
fresh.analyze(chineseRun(25_000)); // warm up
for (const n of [25_000, 100_000, 400_000]) {
  const text = chineseRun(n);
  const ms = best(() => fresh.analyze(text), 3);
  console.log(`| ${n.toLocaleString("en")} | ${ms.toFixed(0)} | ${(n / ms).toFixed(0)} |`);
}

console.log("\n| Chinese characters | Intl.Segmenter, whole string, ms | in 512-character chunks, ms |");
console.log("|---|---|---|");
const segmenter = new Intl.Segmenter("und", { granularity: "word" });
const count = (text: string): number => [...segmenter.segment(text)].length;
count(chineseRun(20_000)); // warm up ICU's dictionaries
for (const n of [5_000, 10_000, 20_000, 80_000, 320_000]) {
  const text = chineseRun(n);
  const whole = n <= 20_000 ? best(() => count(text), 5).toFixed(1) : "not run";
  const chunked = best(() => {
    let k = 0;
    for (let i = 0; i < text.length; i += 512) k += count(text.slice(i, i + 512));
    return k;
  }, 5);
  console.log(`| ${n.toLocaleString("en")} | ${whole} | ${chunked.toFixed(1)} |`);
}
await backend.close();
