import { readFileSync } from "node:fs";
import { ConfigError } from "../../config/errors.ts";

// Which ONNX graph of a model to run. Repositories ship several: sentence-transformers
// cross-encoders (onnx/model.onnx, model_O1..O4, one int8 graph per instruction set),
// transformers.js exports (model_quantized, model_int8, model_uint8, model_fp16, model_q4,
// model_q4f16, model_bnb4) and optimum exports (model.onnx at the root). The same choice is made
// for what the hub lists (`model pull`) and for what a directory holds (loading).

/** The CPU features that decide which int8 graph fits: injected in tests. */
export interface CpuFeatures {
  /** process.arch: "x64", "arm64", … */
  readonly arch: string;
  /** Lower-case CPU flags (from /proc/cpuinfo on Linux); empty when unknown. */
  readonly flags: readonly string[];
}

export interface CpuFeatureSources {
  readonly arch?: string;
  /** Returns /proc/cpuinfo's text; throws when there is none (macOS, Windows). */
  readonly readCpuinfo?: () => string;
}

/**
 * This machine's CPU features: the `flags` line (x86) or `Features` line (arm) of
 * /proc/cpuinfo, and process.arch. Where /proc/cpuinfo cannot be read the flags are empty,
 * so `auto` falls back to a generic int8 graph or fp32 (never an instruction-set-specific one).
 */
export function readCpuFeatures(sources: CpuFeatureSources = {}): CpuFeatures {
  const arch = sources.arch ?? process.arch;
  let text = "";
  try {
    text = (sources.readCpuinfo ?? (() => readFileSync("/proc/cpuinfo", "utf8")))();
  } catch {
    text = "";
  }
  const line = /^(?:flags|features)\s*:(.*)$/im.exec(text);
  const flags = line?.[1] ? [...new Set(line[1].trim().toLowerCase().split(/\s+/).filter(Boolean))] : [];
  return { arch, flags };
}

/** What a graph computes in. "unknown" graphs load only when named exactly. */
export type GraphPrecision = "fp32" | "int8" | "fp16" | "q4" | "unknown";

/** The instruction set an int8 graph was quantised for (optimum's per-CPU configurations). */
export type GraphIsa = "avx512_vnni" | "avx512" | "avx2" | "arm64";

const ISA_NAMES: Record<GraphIsa, string> = { avx512_vnni: "AVX-512 VNNI", avx512: "AVX-512", avx2: "AVX2", arm64: "ARM64" };

export interface GraphVariant {
  /** Path inside the repository or directory, "/"-separated: onnx/model_quantized.onnx. */
  readonly path: string;
  readonly precision: GraphPrecision;
  readonly isa?: GraphIsa;
  /** optimum's optimisation level, O1–O4 (O4 adds fp16). */
  readonly level?: number;
  readonly bytes?: number;
  /** In words: "int8 for AVX-512 VNNI", "fp32, optimised O2", "4-bit (q4f16)". */
  readonly description: string;
}

/** The generic (not instruction-set specific) int8 graphs, in order of preference. */
const GENERIC_INT8 = ["model_quantized.onnx", "model_int8.onnx", "model_uint8.onnx"];

/** The folders a graph is looked for in: onnx/ (cross-encoder, transformers.js) first, then the root (optimum). */
const FOLDERS = ["onnx/", ""];

/**
 * What a file name says a graph is, or undefined for a file that is not an ONNX graph in
 * the root or in onnx/ (external data, openvino/, other folders).
 */
export function classifyGraph(path: string, bytes?: number): GraphVariant | undefined {
  const folder = FOLDERS.find((f) => path.startsWith(f) && !path.slice(f.length).includes("/"));
  if (folder === undefined || !path.endsWith(".onnx")) return undefined;
  const name = path.slice(folder.length);
  const base = { path, ...(bytes !== undefined ? { bytes } : {}) };
  if (name === "model.onnx") return { ...base, precision: "fp32", description: "fp32" };
  const optimised = /^model_O([1-4])\.onnx$/.exec(name);
  if (optimised) {
    const level = Number(optimised[1]);
    return level === 4 ? { ...base, precision: "fp16", level, description: "fp16, optimised O4" } : { ...base, precision: "fp32", level, description: `fp32, optimised O${level}` };
  }
  const isa = /^model_q?u?int8_(avx512_vnni|avx512|avx2|arm64)\.onnx$/.exec(name)?.[1] as GraphIsa | undefined;
  if (isa) return { ...base, precision: "int8", isa, description: `int8 for ${ISA_NAMES[isa]}` };
  if (GENERIC_INT8.includes(name)) return { ...base, precision: "int8", description: `int8 for any CPU (${name.slice(6, -5)})` };
  if (name === "model_fp16.onnx") return { ...base, precision: "fp16", description: "fp16" };
  const q4 = /^model_(q4|q4f16|bnb4)\.onnx$/.exec(name)?.[1];
  if (q4) return { ...base, precision: "q4", description: `4-bit (${q4})` };
  return { ...base, precision: "unknown", description: "not a known variant name: loads only when named" };
}

/** The graphs among `files` (path and size), in a stable order: onnx/ first, then by name. */
export function graphVariants(files: Iterable<readonly [string, number | undefined]>): GraphVariant[] {
  const out: GraphVariant[] = [];
  for (const [path, bytes] of files) {
    const g = classifyGraph(path, bytes);
    if (g) out.push(g);
  }
  const rank = (p: string): number => (p.startsWith("onnx/") ? 0 : 1);
  return out.sort((a, b) => rank(a.path) - rank(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export { VARIANT_NAMES, checkVariant } from "../../config/variant.ts";

/** The chosen graph, and why: what `model pull`, `model info` and the engine print. */
export interface VariantChoice {
  readonly graph: GraphVariant;
  readonly reason: string;
}

/** The instruction sets whose int8 graphs suit this CPU, best first. */
export function cpuIsaOrder(cpu: CpuFeatures): GraphIsa[] {
  if (cpu.arch === "arm64") return ["arm64"];
  if (cpu.arch !== "x64" && cpu.arch !== "ia32") return [];
  const has = (f: string): boolean => cpu.flags.includes(f);
  if (has("avx512_vnni") && has("avx512f")) return ["avx512_vnni", "avx512", "avx2"];
  if (has("avx512_vnni")) return ["avx512_vnni", "avx2"];
  if (has("avx512f")) return ["avx512", "avx2"];
  if (has("avx2")) return ["avx2"];
  return [];
}

function cpuWords(cpu: CpuFeatures): string {
  const order = cpuIsaOrder(cpu);
  if (cpu.arch === "arm64") return "this CPU is ARM64";
  if (order.length === 0) return cpu.flags.length === 0 ? `this CPU's instruction sets are unknown (${cpu.arch}, no CPU flags read)` : `this CPU (${cpu.arch}) has none of AVX2, AVX-512, AVX-512 VNNI`;
  return `this CPU has ${order.map((i) => ISA_NAMES[i]).join(", ")}`;
}

const list = (graphs: readonly GraphVariant[]): string => graphs.map((g) => g.path).join(", ");

function pickFirst(graphs: readonly GraphVariant[], names: readonly string[]): GraphVariant | undefined {
  for (const name of names) {
    for (const folder of FOLDERS) {
      const g = graphs.find((x) => x.path === `${folder}${name}`);
      if (g) return g;
    }
  }
  return undefined;
}

/** The int8 graph for the first of the CPU's instruction sets that the graphs include. */
function isaMatched(graphs: readonly GraphVariant[], cpu: CpuFeatures): VariantChoice | undefined {
  const order = cpuIsaOrder(cpu);
  for (const isa of order) {
    const g = graphs.find((x) => x.precision === "int8" && x.isa === isa);
    if (g) {
      const best = order[0] === isa ? "" : ` (no graph for ${order.slice(0, order.indexOf(isa)).map((i) => ISA_NAMES[i]).join(" or ")} is offered)`;
      return { graph: g, reason: `int8 quantised for ${ISA_NAMES[isa]}: ${cpuWords(cpu)}${best}` };
    }
  }
  return undefined;
}

function generic(graphs: readonly GraphVariant[]): GraphVariant | undefined {
  return pickFirst(graphs, GENERIC_INT8);
}

function fp32(graphs: readonly GraphVariant[]): GraphVariant | undefined {
  return pickFirst(graphs, ["model.onnx", "model_O1.onnx", "model_O2.onnx", "model_O3.onnx"]);
}

/** Why the CPU-specific int8 graphs offered were passed over. */
function mismatchNote(graphs: readonly GraphVariant[], cpu: CpuFeatures): string {
  const other = graphs.filter((g) => g.precision === "int8" && g.isa !== undefined && !cpuIsaOrder(cpu).includes(g.isa));
  if (other.length === 0) return "";
  const sets = [...new Set(other.map((g) => ISA_NAMES[g.isa as GraphIsa]))].join(", ");
  const lacks = cpu.arch !== "arm64" && cpu.flags.length === 0 ? "which this CPU is not known to have (no CPU flags could be read)" : `which this CPU (${cpu.arch}) lacks`;
  return `; the int8 graphs offered (${list(other)}) are quantised for ${sets}, ${lacks}`;
}

/** What the CPU provider refuses unless named, and why. */
const REFUSED: Partial<Record<GraphPrecision, string>> = {
  fp16: "fp16 graphs are not run on the CPU execution provider, the only one groundwatch uses: onnxruntime's CPU kernels compute most fp16 operators by converting to fp32 and back, so they run slower than the fp32 graph, and some operators have no fp16 CPU kernel at all",
  q4: "4-bit graphs (q4, q4f16, bnb4) are not run on the CPU execution provider unless named: they are built for WebGPU and browsers (transformers.js), onnxruntime's CPU kernels for them are slower than int8 at these model sizes, and q4f16 and bnb4 need fp16 or contrib operators",
};

function refusal(request: "fp16" | "q4", graphs: readonly GraphVariant[], where: string): ConfigError {
  const offered = graphs.filter((g) => g.precision === request);
  const named = offered[0] ? `; to load one anyway, name the file: --variant ${offered[0].path}` : `; ${where} offers none (${request === "fp16" ? "model_fp16.onnx or model_O4.onnx" : "model_q4.onnx, model_q4f16.onnx or model_bnb4.onnx"})`;
  return new ConfigError("variant", request, `${REFUSED[request]}. Use int8 or fp32 (or auto)${offered.length > 0 ? `; offered: ${list(offered)}` : ""}${named}`);
}

/**
 * Chooses the graph to load or download. `auto`: the int8 graph quantised for this CPU's
 * instruction set (AVX-512 VNNI, AVX-512, AVX2, ARM64, in that order of preference), else a
 * generic int8 graph (model_quantized, model_int8, model_uint8), else fp32 (model.onnx, then
 * O1–O3). `int8` and `fp32` choose within their kind; `quantized` prefers the generic int8
 * graph. fp16 and 4-bit graphs are refused (a ConfigError on `variant`) unless named by file;
 * so is a variant the graphs cannot satisfy. No graph at all is a plain Error. `where` names
 * the repository or directory in messages.
 */
export function chooseGraph(graphs: readonly GraphVariant[], request: string, cpu: CpuFeatures, where: string): VariantChoice {
  const offered = graphs.length > 0 ? list(graphs) : "none";
  switch (request) {
    case "fp16":
    case "q4":
      throw refusal(request, graphs, where);
    case "fp32": {
      const g = fp32(graphs);
      if (!g) throw new ConfigError("variant", request, `${where} has no fp32 graph (model.onnx or model_O1..O3.onnx in onnx/ or at the root); its graphs: ${offered}`);
      return { graph: g, reason: "fp32, as asked" };
    }
    case "int8":
    case "quantized": {
      const g = generic(graphs);
      const genericChoice = g ? { graph: g, reason: request === "quantized" ? "int8 (quantized: the generic int8 graph), as asked" : `int8 (generic), as asked: no int8 graph for this CPU's instruction set is offered (${cpuWords(cpu)})` } : undefined;
      const choice = request === "quantized" ? (genericChoice ?? isaMatched(graphs, cpu)) : (isaMatched(graphs, cpu) ?? genericChoice);
      if (!choice) {
        const wanted = [...GENERIC_INT8, ...cpuIsaOrder(cpu).map((i) => `one quantised for ${ISA_NAMES[i]}`)].join(", ");
        throw new ConfigError("variant", request, `${where} has no int8 graph this CPU can use (looked for ${wanted})${mismatchNote(graphs, cpu)}; its graphs: ${offered}; name one with --variant FILE to use it anyway`);
      }
      return request === "int8" && choice !== genericChoice ? { graph: choice.graph, reason: `${choice.reason}, as asked` } : choice;
    }
    case "auto": {
      const isa = isaMatched(graphs, cpu);
      if (isa) return { graph: isa.graph, reason: `auto: ${isa.reason}` };
      const g = generic(graphs);
      if (g) return { graph: g, reason: `auto: int8 (generic quantised graph); ${graphs.some((x) => x.isa) ? `no int8 graph for this CPU's instruction set is offered (${cpuWords(cpu)})` : "the repository has no int8 graph per instruction set"}` };
      const f = fp32(graphs);
      if (f) return { graph: f, reason: `auto: fp32; no int8 graph this CPU can use is offered${mismatchNote(graphs, cpu)}` };
      const foreign = mismatchNote(graphs, cpu);
      if (foreign) throw new ConfigError("variant", request, `${where} has no int8 or fp32 graph for this CPU${foreign}; name one with --variant FILE to use it anyway (onnxruntime runs it, without the speed it was quantised for)`);
      const rest = graphs.filter((x) => x.precision === "fp16" || x.precision === "q4" || x.precision === "unknown");
      if (rest.length > 0) {
        throw new ConfigError("variant", request, `${where} has no int8 or fp32 graph; its graphs (${list(rest)}) are fp16, 4-bit or of unknown kind, which groundwatch loads only when named: --variant ${rest[0]?.path ?? ""}`);
      }
      throw new Error(`${where} has no ONNX graph (looked for *.onnx in onnx/ and at the root: model.onnx, model_quantized.onnx, model_qint8_avx512_vnni.onnx, …)`);
    }
    default: {
      // An exact file name: a path, or a base name found in onnx/ or at the root.
      const exact = graphs.find((g) => g.path === request) ?? (request.includes("/") ? undefined : pickFirst(graphs, [request]));
      const same = request.includes("/") ? [] : graphs.filter((g) => g.path === request || g.path === `onnx/${request}`);
      if (same.length > 1) throw new ConfigError("variant", request, `${where} has both ${list(same)}: name one by its path`);
      if (!exact) throw new ConfigError("variant", request, `${where} has no graph ${request}; its graphs: ${offered}`);
      const note = exact.precision === "fp16" || exact.precision === "q4" ? ` (${exact.description} on the CPU execution provider: expect it to run slower than int8 or fp32)` : "";
      return { graph: exact, reason: `named with --variant${note}` };
    }
  }
}
