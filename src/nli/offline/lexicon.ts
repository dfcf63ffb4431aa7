import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Word vectors and antonyms the offline backend reads; built by scripts/build-lexicon.ts. */
export interface Lexicon {
  /** Cosine similarity of two words in [-1, 1], or undefined when either is unknown. */
  similarity(a: string, b: string): number | undefined;
  /** Rarity in (0, 1]: frequent words near 0, unknown words 1 (vocab is frequency-ordered). */
  rarity(word: string): number;
  antonyms(word: string): readonly string[];
  /** True for a common word (one WordNet lists in lower case), false for names and unknown words. */
  isCommon(word: string): boolean;
  readonly words: number;
}

export const DEFAULT_LEXICON_DIR = fileURLToPath(new URL("../../../data/lexicon/", import.meta.url));

const NO_ANTONYMS: readonly string[] = [];

export function loadLexicon(dir: string = DEFAULT_LEXICON_DIR): Lexicon {
  const read = (name: string): Buffer => {
    try {
      return readFileSync(`${dir}/${name}`);
    } catch (error) {
      throw new Error(`offline backend: cannot read lexicon file ${dir}/${name} (${(error as Error).message}); run \`npm run build:lexicon\``);
    }
  };
  const vocab = read("vocab.txt").toString("utf8").split("\n").filter((w) => w !== "");
  const raw = read("vectors.i8");
  const dims = vocab.length > 0 ? raw.length / vocab.length : 0;
  if (!Number.isInteger(dims) || dims <= 0) {
    throw new Error(`offline backend: ${dir}/vectors.i8 has ${raw.length} bytes, not a whole number of rows for ${vocab.length} words`);
  }
  const vectors = new Int8Array(raw.buffer, raw.byteOffset, raw.length);
  const index = new Map<string, number>();
  vocab.forEach((w, i) => index.set(w, i));
  // Row norms, computed on first use (0 = not yet: a norm is never 0, empty rows count as 1).
  // Computing all 30k up front cost ~10 ms of every start; a run touches a small share of them.
  const norms = new Float32Array(vocab.length);
  const norm = (r: number): number => {
    let n = norms[r] ?? 1;
    if (n === 0) {
      let s = 0;
      for (let d = 0; d < dims; d++) {
        const x = vectors[r * dims + d] ?? 0;
        s += x * x;
      }
      norms[r] = Math.sqrt(s) || 1;
      // The stored (float32) value, on first use as on every later one, so a similarity never depends on call order.
      n = norms[r] ?? 1;
    }
    return n;
  };
  const antonymMap = new Map<string, string[]>();
  for (const line of read("antonyms.tsv").toString("utf8").split("\n")) {
    const [a, b] = line.split("\t");
    if (!a || !b) continue;
    for (const [word, other] of [[a, b], [b, a]] as const) {
      const list = antonymMap.get(word);
      if (list) list.push(other);
      else antonymMap.set(word, [other]);
    }
  }
  const common = new Set(read("common.txt").toString("utf8").split("\n").filter((w) => w !== ""));
  const logSize = Math.log(vocab.length + 2);
  return {
    words: vocab.length,
    similarity(a: string, b: string): number | undefined {
      const ia = index.get(a);
      const ib = index.get(b);
      if (ia === undefined || ib === undefined) return undefined;
      let dot = 0;
      const oa = ia * dims;
      const ob = ib * dims;
      for (let d = 0; d < dims; d++) dot += (vectors[oa + d] ?? 0) * (vectors[ob + d] ?? 0);
      return dot / (norm(ia) * norm(ib));
    },
    rarity(word: string): number {
      const i = index.get(word);
      return i === undefined ? 1 : Math.log(i + 2) / logSize;
    },
    antonyms(word: string): readonly string[] {
      return antonymMap.get(word) ?? NO_ANTONYMS;
    },
    isCommon(word: string): boolean {
      return common.has(word);
    },
  };
}
