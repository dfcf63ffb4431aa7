/**
 * The benchmarks' generated NLI graphs: random-weight BERT-shaped encoders with the shapes of
 * MiniLM-L6-H384 and of deberta-v3-xsmall's encoder, built once by scripts/onnx_fixtures.py into
 * GROUNDWATCH_CACHE (default ~/.cache/groundwatch/bench-models), fp32 and int8; and model
 * directories the onnx backend loads over them (bench:model-tier).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface Shape {
  readonly name: string;
  readonly layers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly intermediate: number;
  readonly vocab: number;
}

export const SHAPES: Shape[] = [
  { name: "minilm-l6-h384", layers: 6, hidden: 384, heads: 12, intermediate: 1536, vocab: 30522 },
  { name: "deberta-v3-xsmall-encoder", layers: 12, hidden: 384, heads: 6, intermediate: 1536, vocab: 128100 },
];

export const ROOT = join(import.meta.dirname, "..");
export const CACHE = join(process.env.GROUNDWATCH_CACHE ?? join(homedir(), ".cache", "groundwatch"), "bench-models");

export function build(args: string[], out: string): void {
  if (existsSync(out)) return;
  runFixtures(args, out);
}

export function runFixtures(args: string[], out: string): void {
  try {
    execFileSync("/usr/bin/python3", [join(ROOT, "scripts", "onnx_fixtures.py"), ...args], { stdio: "inherit" });
  } catch (error) {
    throw new Error(`building ${out} failed (needs Debian's python3-onnx and python3-numpy: apt-get install python3-onnx): ${(error as Error).message}`);
  }
}

/** Builds a shape's fp32 and int8 graphs into CACHE/<name> unless they are there. */
export function buildShape(s: Shape): void {
  const dir = join(CACHE, s.name);
  build(["shape", dir, "--layers", String(s.layers), "--hidden", String(s.hidden), "--heads", String(s.heads), "--intermediate", String(s.intermediate), "--vocab", String(s.vocab), "--int8"], dir);
  // A cache built before the int8 rows existed has only the fp32 graph: quantise it.
  const int8 = join(dir, "onnx", "model_int8.onnx");
  if (!existsSync(int8)) runFixtures(["quantize", join(dir, "onnx", "model.onnx"), int8], int8);
}

const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/**
 * A BERT WordPiece tokenizer.json (the layout scripts/onnx_fixtures.py writes) whose vocabulary is
 * `words` (lower case), punctuation, and single characters with their `##` continuations, so that
 * any other word still encodes, piece by piece.
 */
export function wordPieceTokenizer(words: Iterable<string>): object {
  const pieces = [...SPECIAL, ...".,;:!?'\"()-$%/".split("")];
  for (const c of "abcdefghijklmnopqrstuvwxyz0123456789") pieces.push(c, `##${c}`);
  const seen = new Set(pieces);
  for (const w of words) {
    if (seen.has(w)) continue;
    seen.add(w);
    pieces.push(w);
  }
  const vocab = Object.fromEntries(pieces.map((p, i) => [p, i]));
  const id = (t: string): number => vocab[t] as number;
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((t) => ({ id: id(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }],
      special_tokens: Object.fromEntries(["[CLS]", "[SEP]"].map((t) => [t, { id: t, ids: [id(t)], tokens: [t] }])),
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
}

/** The longest sequence the bench model directories let the encoder build (when the graph's position table allows it). */
export const TIER_MAX_LENGTH = 256;

/**
 * A model directory the onnx backend loads over a shape's graphs (CACHE/tier-<name>): the shape's
 * config.json (three NLI labels), a WordPiece tokenizer over `words`, tokenizer_config.json with
 * model_max_length 256 (or the graph's position table, when smaller), and onnx/model.onnx and
 * onnx/model_int8.onnx as links to the built graphs. Rewritten on every call (the vocabulary is the caller's).
 */
export function tierModelDir(shape: Shape, words: Iterable<string>): string {
  buildShape(shape);
  const source = join(CACHE, shape.name);
  const config = JSON.parse(readFileSync(join(source, "config.json"), "utf8")) as { max_position_embeddings?: number; vocab_size?: number };
  const maxLength = Math.min(TIER_MAX_LENGTH, config.max_position_embeddings ?? TIER_MAX_LENGTH);
  return linkedModelDir(source, `tier-${shape.name}`, words, maxLength, config.vocab_size ?? Infinity);
}

/**
 * A model directory CACHE/`name` over the built graphs in `source`: its config.json, a WordPiece
 * tokenizer over `words` (refused when it has more pieces than `vocabSize` embeddings),
 * tokenizer_config.json with model_max_length `maxLength`, and onnx/model.onnx and
 * onnx/model_int8.onnx as links to the built graphs. Rewritten on every call.
 */
export function linkedModelDir(source: string, name: string, words: Iterable<string>, maxLength: number, vocabSize: number): string {
  const dir = join(CACHE, name);
  const tokenizer = wordPieceTokenizer(words) as { model: { vocab: Record<string, number> } };
  const size = Object.keys(tokenizer.model.vocab).length;
  if (size > vocabSize) throw new Error(`${name}: a tokenizer of ${size} pieces does not fit the graph's ${vocabSize} embeddings`);
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "config.json"), readFileSync(join(source, "config.json")));
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ model_max_length: maxLength, do_lower_case: true }));
  for (const graph of ["model.onnx", "model_int8.onnx"]) {
    const link = join(dir, "onnx", graph);
    rmSync(link, { force: true });
    symlinkSync(join(source, "onnx", graph), link);
  }
  return dir;
}
