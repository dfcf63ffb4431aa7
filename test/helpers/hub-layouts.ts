import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CpuFeatures } from "../../src/nli/onnx/variants.ts";

// Fixture repositories in the three layouts users pull from, with the file names of the
// repositories the issue names: cross-encoder/nli-deberta-v3-xsmall (sentence-transformers),
// Xenova/nli-deberta-v3-xsmall (transformers.js) and an optimum export. The names are those
// the export tools write (sentence-transformers' export_optimized_onnx_model /
// export_dynamic_quantized_onnx_model, transformers.js' conversion script, optimum-cli); the
// lists could not be checked against the live Hub from here (no network). Every graph is a
// tiny random-weight graph from scripts/onnx_fixtures.py: the fp32 network, its dynamically
// quantised int8 twin, or its fp16 twin, served under each variant's name; 4-bit names serve the
// fp32 graph as a stand-in (a real MatMulNBits graph is not built here). Files that are not
// graphs, tokenizer or config (weights in other formats, READMEs, OpenVINO) are served as short
// stand-ins: a pull must never ask for them.

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));

/** Which of the three fixture networks a graph name serves, and so which reference it matches. */
export type GraphKind = "fp32" | "int8" | "fp16";

export interface LayoutRepo {
  readonly repo: string;
  /** The fixture model whose tokenizer, config and networks the repository serves. */
  readonly base: "deberta-unigram" | "bert-wordpiece";
  /** Every file as the Hub lists it, in its order, with what it serves. */
  readonly files: ReadonlyMap<string, Buffer | string>;
  /** Each graph's path and the network it serves. */
  readonly graphs: ReadonlyMap<string, GraphKind>;
  /** Tokenizer and config files a pull fetches. */
  readonly support: readonly string[];
}

const read = (...parts: string[]): Buffer => readFileSync(join(MODELS, ...parts));

function network(base: LayoutRepo["base"], kind: GraphKind): Buffer {
  return kind === "fp32" ? read(base, "onnx", "model.onnx") : read("graph-variants", base, `model_${kind}.onnx`);
}

function layout(repo: string, base: LayoutRepo["base"], listing: ReadonlyArray<readonly [string, GraphKind | Buffer | string]>): LayoutRepo {
  const files = new Map<string, Buffer | string>();
  const graphs = new Map<string, GraphKind>();
  for (const [path, what] of listing) {
    if (what === "fp32" || what === "int8" || what === "fp16") {
      graphs.set(path, what);
      files.set(path, network(base, what));
    } else files.set(path, what);
  }
  const support = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json"].filter((f) => files.has(f));
  return { repo, base, files, graphs, support };
}

const STANDIN = "not a file groundwatch fetches";
const config = (base: LayoutRepo["base"]): Buffer => read(base, "config.json");
const tokenizer = (base: LayoutRepo["base"]): Buffer => read(base, "tokenizer.json");

/** special_tokens_map.json as transformers writes it, tokens as objects (AddedToken). */
const SPECIAL_TOKENS_MAP = JSON.stringify({
  bos_token: "[CLS]",
  cls_token: "[CLS]",
  eos_token: "[SEP]",
  mask_token: "[MASK]",
  pad_token: { content: "[PAD]", lstrip: false, normalized: false, rstrip: false, single_word: false },
  sep_token: "[SEP]",
  unk_token: { content: "[UNK]", lstrip: false, normalized: true, rstrip: false, single_word: false },
});

/** The sentence-transformers cross-encoder layout: graphs in onnx/, O1–O4, one int8 graph per instruction set. */
export const CROSS_ENCODER = layout("cross-encoder/nli-deberta-v3-xsmall", "deberta-unigram", [
  [".gitattributes", STANDIN],
  ["CESoftmaxAccuracyEvaluator_AllNLI-dev_results.csv", STANDIN],
  ["README.md", STANDIN],
  ["added_tokens.json", JSON.stringify({ "[MASK]": 128000 })],
  ["config.json", config("deberta-unigram")],
  ["model.safetensors", STANDIN],
  ["onnx/model.onnx", "fp32"],
  ["onnx/model_O1.onnx", "fp32"],
  ["onnx/model_O2.onnx", "fp32"],
  ["onnx/model_O3.onnx", "fp32"],
  ["onnx/model_O4.onnx", "fp16"],
  ["onnx/model_qint8_arm64.onnx", "int8"],
  ["onnx/model_qint8_avx512.onnx", "int8"],
  ["onnx/model_qint8_avx512_vnni.onnx", "int8"],
  ["onnx/model_quint8_avx2.onnx", "int8"],
  ["openvino/openvino_model.bin", STANDIN],
  ["openvino/openvino_model.xml", STANDIN],
  ["openvino/openvino_model_qint8_quantized.bin", STANDIN],
  ["openvino/openvino_model_qint8_quantized.xml", STANDIN],
  ["pytorch_model.bin", STANDIN],
  ["special_tokens_map.json", SPECIAL_TOKENS_MAP],
  ["spm.model", STANDIN],
  ["tokenizer.json", tokenizer("deberta-unigram")],
  ["tokenizer_config.json", read("deberta-unigram", "tokenizer_config.json")],
]);

/** The transformers.js layout: graphs in onnx/, one per dtype. */
export const TRANSFORMERS_JS = layout("Xenova/nli-deberta-v3-xsmall", "deberta-unigram", [
  [".gitattributes", STANDIN],
  ["README.md", STANDIN],
  ["added_tokens.json", JSON.stringify({ "[MASK]": 128000 })],
  ["config.json", config("deberta-unigram")],
  ["onnx/model.onnx", "fp32"],
  ["onnx/model_bnb4.onnx", "fp32"],
  ["onnx/model_fp16.onnx", "fp16"],
  ["onnx/model_int8.onnx", "int8"],
  ["onnx/model_q4.onnx", "fp32"],
  ["onnx/model_q4f16.onnx", "fp16"],
  ["onnx/model_quantized.onnx", "int8"],
  ["onnx/model_uint8.onnx", "int8"],
  ["quantize_config.json", STANDIN],
  ["special_tokens_map.json", SPECIAL_TOKENS_MAP],
  ["spm.model", STANDIN],
  ["tokenizer.json", tokenizer("deberta-unigram")],
  ["tokenizer_config.json", read("deberta-unigram", "tokenizer_config.json")],
]);

/** An optimum export: model.onnx at the root with model_quantized.onnx beside it, and only tokenizer.json (no tokenizer_config.json). */
export const OPTIMUM = layout("test-org/minilm-nli-optimum", "bert-wordpiece", [
  [".gitattributes", STANDIN],
  ["README.md", STANDIN],
  ["config.json", config("bert-wordpiece")],
  ["model.onnx", "fp32"],
  ["model_quantized.onnx", "int8"],
  ["ort_config.json", STANDIN],
  ["tokenizer.json", tokenizer("bert-wordpiece")],
  ["vocab.txt", STANDIN],
]);

export const LAYOUTS = [CROSS_ENCODER, TRANSFORMERS_JS, OPTIMUM] as const;

/** CPU flag sets as /proc/cpuinfo reports them, injected where the graph is chosen. */
export const CPUS = {
  avx512_vnni: { arch: "x64", flags: ["fpu", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni"] },
  avx512: { arch: "x64", flags: ["fpu", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl"] },
  avx2: { arch: "x64", flags: ["fpu", "sse4_2", "avx", "avx2", "fma"] },
  arm64: { arch: "arm64", flags: ["fp", "asimd", "asimddp"] },
  none: { arch: "x64", flags: [] },
} satisfies Record<string, CpuFeatures>;

export interface GraphReference {
  readonly premise: string;
  readonly hypothesis: string;
  readonly logits: Readonly<Record<GraphKind, readonly number[]>>;
}

/** The numpy logits of a base fixture's pairs for each network (one pair at a time). */
export function graphReference(base: LayoutRepo["base"]): { readonly id2label: readonly string[]; readonly minHypothesis: number; readonly pairs: readonly GraphReference[] } {
  const fp32 = JSON.parse(read(base, "reference.json").toString("utf8")) as { id2label: string[]; min_hypothesis: number };
  const variants = JSON.parse(read("graph-variants", base, "reference.json").toString("utf8")) as { pairs: GraphReference[] };
  return { id2label: fp32.id2label, minHypothesis: fp32.min_hypothesis, pairs: variants.pairs };
}

/** How close each network's logits must come to numpy: fp16 output is rounded to half precision. */
export const TOLERANCE: Record<GraphKind, number> = { fp32: 1e-4, int8: 1e-4, fp16: 5e-3 };
