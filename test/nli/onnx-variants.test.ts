import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import type { OnnxEngine } from "../../src/nli/onnx/engine.ts";
import { createOnnxEngine, describeOnnxModel, floatValues, tokenSettings } from "../../src/nli/onnx/engine.ts";
import { mapLabels } from "../../src/nli/onnx/model-dir.ts";
import type { CpuFeatures } from "../../src/nli/onnx/variants.ts";
import { checkVariant, chooseGraph, classifyGraph, cpuIsaOrder, graphVariants, readCpuFeatures } from "../../src/nli/onnx/variants.ts";
import type { LayoutRepo } from "../helpers/hub-layouts.ts";
import { CPUS, CROSS_ENCODER, OPTIMUM, TOLERANCE, TRANSFORMERS_JS, graphReference } from "../helpers/hub-layouts.ts";

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));

const graphsOf = (layout: LayoutRepo) => graphVariants([...layout.files].map(([path, body]) => [path, Buffer.byteLength(body)] as const));
const pick = (layout: LayoutRepo, request: string, cpu: CpuFeatures) => chooseGraph(graphsOf(layout), request, cpu, layout.repo);

describe("CPU features", () => {
  it("reads the x86 flags line of /proc/cpuinfo and the architecture", () => {
    const cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme avx2 avx512f avx512_vnni\nbugs\t\t: sysret_ss_attrs\n\nprocessor\t: 1\nflags\t\t: fpu vme avx2 avx512f avx512_vnni\n";
    expect(readCpuFeatures({ arch: "x64", readCpuinfo: () => cpuinfo })).toEqual({ arch: "x64", flags: ["fpu", "vme", "avx2", "avx512f", "avx512_vnni"] });
  });

  it("reads an arm64 Features line", () => {
    expect(readCpuFeatures({ arch: "arm64", readCpuinfo: () => "processor\t: 0\nFeatures\t: fp asimd evtstrm aes asimddp\n" })).toEqual({ arch: "arm64", flags: ["fp", "asimd", "evtstrm", "aes", "asimddp"] });
  });

  it("has no flags where /proc/cpuinfo cannot be read", () => {
    const missing = (): string => {
      throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    };
    expect(readCpuFeatures({ arch: "x64", readCpuinfo: missing })).toEqual({ arch: "x64", flags: [] });
  });

  it("orders the int8 instruction sets a CPU can use, best first", () => {
    expect(cpuIsaOrder(CPUS.avx512_vnni)).toEqual(["avx512_vnni", "avx512", "avx2"]);
    expect(cpuIsaOrder(CPUS.avx512)).toEqual(["avx512", "avx2"]);
    expect(cpuIsaOrder(CPUS.avx2)).toEqual(["avx2"]);
    expect(cpuIsaOrder(CPUS.arm64)).toEqual(["arm64"]);
    expect(cpuIsaOrder(CPUS.none)).toEqual([]);
    expect(cpuIsaOrder({ arch: "ppc64", flags: ["avx2"] })).toEqual([]);
  });
});

describe("graph names", () => {
  it("classifies every variant name of the three layouts", () => {
    const kinds = (paths: string[]) => paths.map((p) => [p, classifyGraph(p)?.precision, classifyGraph(p)?.isa ?? null]);
    expect(kinds(["onnx/model.onnx", "model.onnx", "onnx/model_O1.onnx", "onnx/model_O3.onnx", "onnx/model_O4.onnx"])).toEqual([
      ["onnx/model.onnx", "fp32", null],
      ["model.onnx", "fp32", null],
      ["onnx/model_O1.onnx", "fp32", null],
      ["onnx/model_O3.onnx", "fp32", null],
      ["onnx/model_O4.onnx", "fp16", null],
    ]);
    expect(kinds(["onnx/model_qint8_avx512_vnni.onnx", "onnx/model_qint8_avx512.onnx", "onnx/model_quint8_avx2.onnx", "onnx/model_qint8_arm64.onnx"])).toEqual([
      ["onnx/model_qint8_avx512_vnni.onnx", "int8", "avx512_vnni"],
      ["onnx/model_qint8_avx512.onnx", "int8", "avx512"],
      ["onnx/model_quint8_avx2.onnx", "int8", "avx2"],
      ["onnx/model_qint8_arm64.onnx", "int8", "arm64"],
    ]);
    expect(kinds(["onnx/model_quantized.onnx", "model_int8.onnx", "onnx/model_uint8.onnx", "onnx/model_fp16.onnx", "onnx/model_q4.onnx", "onnx/model_q4f16.onnx", "onnx/model_bnb4.onnx", "onnx/decoder.onnx"])).toEqual([
      ["onnx/model_quantized.onnx", "int8", null],
      ["model_int8.onnx", "int8", null],
      ["onnx/model_uint8.onnx", "int8", null],
      ["onnx/model_fp16.onnx", "fp16", null],
      ["onnx/model_q4.onnx", "q4", null],
      ["onnx/model_q4f16.onnx", "q4", null],
      ["onnx/model_bnb4.onnx", "q4", null],
      ["onnx/decoder.onnx", "unknown", null],
    ]);
  });

  it("ignores files that are not graphs in the root or onnx/", () => {
    for (const path of ["openvino/openvino_model.xml", "onnx/model.onnx_data", "onnx/sub/model.onnx", "model.safetensors", "config.json"]) expect(classifyGraph(path), path).toBeUndefined();
  });

  it("validates --variant: the names, or a relative .onnx path", () => {
    for (const ok of ["auto", "fp32", "int8", "fp16", "q4", "quantized", "onnx/model_qint8_arm64.onnx", "model.onnx"]) expect(checkVariant(ok)).toBe(ok);
    for (const bad of ["int4", "", "../model.onnx", "/abs/model.onnx", "onnx\\model.onnx", "onnx/model.bin", "onnx//model.onnx"]) {
      expect(() => checkVariant(bad, "--variant"), bad).toThrow(ConfigError);
      expect(() => checkVariant(bad, "--variant"), bad).toThrow(`invalid --variant: ${JSON.stringify(bad)} (expected auto, fp32, int8, fp16, q4, quantized`);
    }
  });
});

describe("auto picks the int8 graph for the CPU, else a generic int8 graph, else fp32", () => {
  it.each([
    ["avx512_vnni", "onnx/model_qint8_avx512_vnni.onnx", /int8 quantised for AVX-512 VNNI: this CPU has AVX-512 VNNI, AVX-512, AVX2$/],
    ["avx512", "onnx/model_qint8_avx512.onnx", /int8 quantised for AVX-512: this CPU has AVX-512, AVX2$/],
    ["avx2", "onnx/model_quint8_avx2.onnx", /int8 quantised for AVX2: this CPU has AVX2$/],
    ["arm64", "onnx/model_qint8_arm64.onnx", /int8 quantised for ARM64: this CPU is ARM64$/],
    ["none", "onnx/model.onnx", /^auto: fp32; no int8 graph this CPU can use is offered; the int8 graphs offered \(onnx\/model_qint8_arm64\.onnx, .*\) are quantised for ARM64, AVX-512, AVX-512 VNNI, AVX2, which this CPU is not known to have \(no CPU flags could be read\)$/],
  ] as const)("on the cross-encoder layout with %s", (cpu, path, reason) => {
    const choice = pick(CROSS_ENCODER, "auto", CPUS[cpu]);
    expect(choice.graph.path).toBe(path);
    expect(choice.reason).toMatch(reason);
  });

  it("falls back to AVX2 on an AVX-512 CPU when the repository has no AVX-512 graph, and says so", () => {
    const graphs = graphsOf(CROSS_ENCODER).filter((g) => !g.path.includes("avx512"));
    const choice = chooseGraph(graphs, "auto", CPUS.avx512_vnni, CROSS_ENCODER.repo);
    expect(choice.graph.path).toBe("onnx/model_quint8_avx2.onnx");
    expect(choice.reason).toContain("(no graph for AVX-512 VNNI or AVX-512 is offered)");
  });

  it.each(Object.keys(CPUS) as Array<keyof typeof CPUS>)("takes the generic int8 graph of the transformers.js and optimum layouts on %s", (cpu) => {
    expect(pick(TRANSFORMERS_JS, "auto", CPUS[cpu])).toMatchObject({ graph: { path: "onnx/model_quantized.onnx" }, reason: expect.stringMatching(/^auto: int8 \(generic quantised graph\)/) as unknown });
    expect(pick(OPTIMUM, "auto", CPUS[cpu]).graph.path).toBe("model_quantized.onnx");
  });

  it("takes a CPU's int8 graph even on an x64 CPU with flags from a container, and never another CPU's", () => {
    const x86only = graphsOf(CROSS_ENCODER).filter((g) => g.path !== "onnx/model_qint8_arm64.onnx");
    expect(chooseGraph(x86only, "auto", CPUS.arm64, "r").graph.path).toBe("onnx/model.onnx");
    expect(chooseGraph(x86only, "auto", CPUS.arm64, "r").reason).toContain("are quantised for AVX-512, AVX-512 VNNI, AVX2, which this CPU (arm64) lacks");
  });

  it("takes fp32 from a repository with only fp32", () => {
    expect(chooseGraph(graphVariants([["onnx/model.onnx", 10]]), "auto", CPUS.avx2, "r").graph.path).toBe("onnx/model.onnx");
    expect(chooseGraph(graphVariants([["model.onnx", 10]]), "auto", CPUS.avx2, "r").graph.path).toBe("model.onnx");
  });

  it("refuses a repository with only fp16 or 4-bit graphs, naming the file to ask for", () => {
    const only = graphVariants([["onnx/model_fp16.onnx", 10], ["onnx/model_q4.onnx", 5]]);
    expect(() => chooseGraph(only, "auto", CPUS.avx2, "org/only-fp16")).toThrow(ConfigError);
    expect(() => chooseGraph(only, "auto", CPUS.avx2, "org/only-fp16")).toThrow('invalid variant: "auto" (org/only-fp16 has no int8 or fp32 graph; its graphs (onnx/model_fp16.onnx, onnx/model_q4.onnx) are fp16, 4-bit or of unknown kind, which groundwatch loads only when named: --variant onnx/model_fp16.onnx)');
  });

  it("refuses a directory holding only another CPU's int8 graph, naming it", () => {
    const only = graphVariants([["onnx/model_qint8_arm64.onnx", 10]]);
    expect(() => chooseGraph(only, "auto", CPUS.avx2, "dir")).toThrow(
      'invalid variant: "auto" (dir has no int8 or fp32 graph for this CPU; the int8 graphs offered (onnx/model_qint8_arm64.onnx) are quantised for ARM64, which this CPU (x64) lacks; name one with --variant FILE to use it anyway (onnxruntime runs it, without the speed it was quantised for))',
    );
  });

  it("says a repository has no graph at all", () => {
    expect(() => chooseGraph([], "auto", CPUS.avx2, "org/empty")).toThrow("org/empty has no ONNX graph");
  });
});

describe("named variants", () => {
  it("fp32 takes model.onnx in onnx/ or at the root", () => {
    expect(pick(CROSS_ENCODER, "fp32", CPUS.avx2)).toEqual({ graph: expect.objectContaining({ path: "onnx/model.onnx" }) as unknown, reason: "fp32, as asked" });
    expect(pick(TRANSFORMERS_JS, "fp32", CPUS.avx2).graph.path).toBe("onnx/model.onnx");
    expect(pick(OPTIMUM, "fp32", CPUS.avx2).graph.path).toBe("model.onnx");
  });

  it("int8 takes the CPU's graph, else the generic one", () => {
    expect(pick(CROSS_ENCODER, "int8", CPUS.arm64).graph.path).toBe("onnx/model_qint8_arm64.onnx");
    expect(pick(TRANSFORMERS_JS, "int8", CPUS.arm64).graph.path).toBe("onnx/model_quantized.onnx");
    expect(pick(OPTIMUM, "int8", CPUS.none).graph.path).toBe("model_quantized.onnx");
  });

  it("int8 refuses when only other CPUs' int8 graphs are offered, naming them", () => {
    expect(() => pick(CROSS_ENCODER, "int8", CPUS.none)).toThrow(/invalid variant: "int8" \(cross-encoder\/nli-deberta-v3-xsmall has no int8 graph this CPU can use \(looked for model_quantized\.onnx, model_int8\.onnx, model_uint8\.onnx\); the int8 graphs offered \(onnx\/model_qint8_arm64\.onnx, onnx\/model_qint8_avx512\.onnx, onnx\/model_qint8_avx512_vnni\.onnx, onnx\/model_quint8_avx2\.onnx\) are quantised for .*; name one with --variant FILE to use it anyway\)/);
  });

  it("quantized (the earlier name) takes the generic int8 graph, else the CPU's", () => {
    expect(pick(TRANSFORMERS_JS, "quantized", CPUS.avx512_vnni)).toMatchObject({ graph: { path: "onnx/model_quantized.onnx" }, reason: "int8 (quantized: the generic int8 graph), as asked" });
    expect(pick(CROSS_ENCODER, "quantized", CPUS.avx2).graph.path).toBe("onnx/model_quint8_avx2.onnx");
  });

  it.each([
    [TRANSFORMERS_JS, "onnx/model_fp16.onnx"],
    [CROSS_ENCODER, "onnx/model_O4.onnx"],
  ])("fp16 is refused on the CPU provider, naming the file that can be asked for ($repo)", (layout, file) => {
    const failure = (() => {
      try {
        return pick(layout, "fp16", CPUS.avx512_vnni);
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toContain('invalid variant: "fp16" (fp16 graphs are not run on the CPU execution provider');
    expect((failure as Error).message).toContain(`to load one anyway, name the file: --variant ${file}`);
  });

  it("q4 is refused, naming the 4-bit graphs offered", () => {
    expect(() => pick(TRANSFORMERS_JS, "q4", CPUS.avx2)).toThrow(/invalid variant: "q4" \(4-bit graphs \(q4, q4f16, bnb4\) are not run on the CPU execution provider unless named.*offered: onnx\/model_bnb4\.onnx, onnx\/model_q4\.onnx, onnx\/model_q4f16\.onnx; to load one anyway, name the file: --variant onnx\/model_bnb4\.onnx\)/);
    expect(() => pick(OPTIMUM, "q4", CPUS.avx2)).toThrow(/test-org\/minilm-nli-optimum offers none \(model_q4\.onnx, model_q4f16\.onnx or model_bnb4\.onnx\)/);
  });

  it("takes any graph by exact path or by file name, fp16 and 4-bit included, and says so", () => {
    for (const layout of [CROSS_ENCODER, TRANSFORMERS_JS, OPTIMUM]) {
      for (const path of layout.graphs.keys()) {
        expect(pick(layout, path, CPUS.none).graph.path, path).toBe(path);
        expect(pick(layout, path.replace(/^onnx\//, ""), CPUS.none).graph.path, path).toBe(path);
      }
    }
    expect(pick(TRANSFORMERS_JS, "onnx/model_q4f16.onnx", CPUS.avx2).reason).toBe("named with --variant (4-bit (q4f16) on the CPU execution provider: expect it to run slower than int8 or fp32)");
  });

  it("names the graphs offered when the named file is not one of them", () => {
    expect(() => pick(OPTIMUM, "onnx/model_qint8_arm64.onnx", CPUS.arm64)).toThrow('invalid variant: "onnx/model_qint8_arm64.onnx" (test-org/minilm-nli-optimum has no graph onnx/model_qint8_arm64.onnx; its graphs: model.onnx, model_quantized.onnx)');
  });
});

describe("label mapping from config.json", () => {
  const labels = (id2label: Record<string, string>) => mapLabels({ id2label }, "config.json");

  it("maps three labels whatever their case and order", () => {
    expect(labels({ 0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION" })).toMatchObject({ kind: "three", entailment: 0, neutral: 1, contradiction: 2 });
    expect(labels({ 0: "contradiction", 1: "entailment", 2: "neutral" })).toMatchObject({ kind: "three", entailment: 1, neutral: 2, contradiction: 0 });
    expect(labels({ 2: "Entailment", 0: "Neutral", 1: "Contradiction" })).toMatchObject({ kind: "three", entailment: 2, neutral: 0, contradiction: 1 });
  });

  it("maps two labels: entailment and not_entailment, non-entailment or not entailed", () => {
    expect(labels({ 0: "entailment", 1: "not_entailment" })).toMatchObject({ kind: "two", entailment: 0, notEntailment: 1 });
    expect(labels({ 0: "non-entailment", 1: "entailment" })).toMatchObject({ kind: "two", entailment: 1, notEntailment: 0 });
    expect(labels({ 0: "ENTAILMENT", 1: "NOT ENTAILMENT" })).toMatchObject({ kind: "two", entailment: 0, notEntailment: 1 });
    expect(labels({ 0: "not_entailed", 1: "Entailed" })).toMatchObject({ kind: "two", entailment: 1, notEntailment: 0 });
  });

  it("reads label2id when config.json has no id2label", () => {
    expect(mapLabels({ label2id: { entailment: 2, neutral: 1, contradiction: 0 } }, "config.json")).toMatchObject({ kind: "three", entailment: 2, neutral: 1, contradiction: 0 });
  });

  it("refuses generic LABEL_n names, naming them and what to do", () => {
    expect(() => labels({ 0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2" })).toThrow(
      'onnx backend: cannot map the labels of config.json to entailment/neutral/contradiction (or entailment/not_entailment): id2label is {"0":"LABEL_0","1":"LABEL_1","2":"LABEL_2"}; generic LABEL_n names do not say which column is entailment: set id2label in config.json to the label names the model card gives, in its order',
    );
  });

  it("refuses labels it cannot read as NLI, naming them", () => {
    expect(() => labels({ 0: "entailment", 1: "contradiction" })).toThrow(/id2label is \{"0":"entailment","1":"contradiction"\}; groundwatch reads three labels \(entailment, neutral, contradiction\) or two \(entailment and not_entailment or non-entailment\)/);
    expect(() => labels({ 0: "entailment", 1: "not_entailment", 2: "neutral" })).toThrow(/id2label is \{"0":"entailment","1":"not_entailment","2":"neutral"\}/);
    expect(() => labels({ 0: "positive", 1: "negative" })).toThrow(/id2label is \{"0":"positive","1":"negative"\}/);
    expect(() => labels({ 0: "entailment", 1: "Entailment", 2: "neutral" })).toThrow(/a class is named twice/);
    expect(() => labels({ 0: "entailment", 2: "neutral", 3: "contradiction" })).toThrow(/id2label is \{"0":"entailment","1":null,"2":"neutral","3":"contradiction"\}; its column indices have gaps/);
    expect(() => mapLabels({}, "config.json")).toThrow("config.json has no id2label (or label2id)");
  });
});

describe("tokenizer files", () => {
  it("reads tokens written as objects in special_tokens_map.json or tokenizer_config.json", () => {
    expect(tokenSettings({ pad_token: { content: "[PAD]", lstrip: false }, cls_token: "[CLS]", additional_special_tokens: [{ content: "<x>" }, "<y>"], model_max_length: 512 })).toEqual({
      pad_token: "[PAD]",
      cls_token: "[CLS]",
      additional_special_tokens: ["<x>", "<y>"],
      model_max_length: 512,
    });
  });
});

describe("fp16 outputs", () => {
  it("turns float16 bits into numbers", () => {
    const bits = Uint16Array.from([0x3c00, 0xc000, 0x3555, 0x0001, 0x7c00, 0x8000]);
    expect(Array.from(floatValues({ dims: [1, 6], data: bits, type: "float16" }))).toEqual([1, -2, Math.fround(0.333251953125), Math.fround(2 ** -24), Infinity, -0]);
    expect(floatValues({ dims: [1], data: Float32Array.from([0.5]), type: "float32" })).toEqual(Float32Array.from([0.5]));
    expect(() => floatValues({ dims: [1], data: BigInt64Array.from([1n]), type: "int64" })).toThrow("the graph's output is of type int64, not a float tensor");
  });
});

describe("a model directory with several graphs", () => {
  const dirs: string[] = [];
  const engines: OnnxEngine[] = [];
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  /** The deberta fixture with its int8 and fp16 twins beside onnx/model.onnx. */
  const withVariants = (): string => {
    const d = mkdtempSync(join(tmpdir(), "gw-variants-"));
    dirs.push(d);
    cpSync(join(MODELS, "deberta-unigram"), d, { recursive: true });
    for (const kind of ["int8", "fp16"]) writeFileSync(join(d, "onnx", `model_${kind}.onnx`), readFileSync(join(MODELS, "graph-variants", "deberta-unigram", `model_${kind}.onnx`)));
    return d;
  };
  const reference = graphReference("deberta-unigram");

  it.each([
    ["auto", "onnx/model_int8.onnx", "int8"],
    ["int8", "onnx/model_int8.onnx", "int8"],
    ["fp32", "onnx/model.onnx", "fp32"],
    ["onnx/model_fp16.onnx", "onnx/model_fp16.onnx", "fp16"],
    ["model_fp16.onnx", "onnx/model_fp16.onnx", "fp16"],
  ] as const)("--variant %s loads %s and matches its numpy reference", async (variant, graph, kind) => {
    const engine = await createOnnxEngine({ dir: withVariants(), variant, cpu: CPUS.avx2, threads: 1, minHypothesisTokens: reference.minHypothesis });
    engines.push(engine);
    expect(engine.info.graph).toBe(graph);
    expect(engine.info.variant.precision).toBe(kind);
    expect(engine.info.graphs.map((g) => g.path)).toEqual(["onnx/model.onnx", "onnx/model_fp16.onnx", "onnx/model_int8.onnx"]);
    for (const p of reference.pairs) {
      const { logits } = await engine.logits([p]);
      (logits[0] ?? []).forEach((x, k) => expect(Math.abs(x - (p.logits[kind][k] ?? NaN)), `${p.premise} [${k}]`).toBeLessThan(TOLERANCE[kind]));
    }
  });

  it("says why auto chose the graph", () => {
    const d = describeOnnxModel({ dir: withVariants(), cpu: CPUS.none });
    expect(d.variant).toEqual({ precision: "int8", description: "int8 for any CPU (int8)", reason: "auto: int8 (generic quantised graph); the repository has no int8 graph per instruction set" });
  });

  it("refuses --variant fp16 on the CPU, naming the file to ask for", async () => {
    await expect(createOnnxEngine({ dir: withVariants(), variant: "fp16", cpu: CPUS.avx2 })).rejects.toThrow(/invalid variant: "fp16" \(fp16 graphs are not run on the CPU execution provider.*to load one anyway, name the file: --variant onnx\/model_fp16\.onnx\)/);
  });

  it("refuses a directory whose only graph is fp16 unless it is named", async () => {
    const d = withVariants();
    unlinkSync(join(d, "onnx", "model.onnx"));
    unlinkSync(join(d, "onnx", "model_int8.onnx"));
    await expect(createOnnxEngine({ dir: d, cpu: CPUS.avx2 })).rejects.toThrow(/has no int8 or fp32 graph; its graphs \(onnx\/model_fp16\.onnx\) are fp16, 4-bit or of unknown kind, which groundwatch loads only when named: --variant onnx\/model_fp16\.onnx/);
  });

  it("loads without tokenizer_config.json, special_tokens_map.json or added_tokens.json, and with all three", async () => {
    const bare = withVariants();
    unlinkSync(join(bare, "tokenizer_config.json"));
    const full = withVariants();
    writeFileSync(join(full, "special_tokens_map.json"), JSON.stringify({ pad_token: { content: "[PAD]" }, cls_token: { content: "[CLS]" }, sep_token: "[SEP]", unk_token: { content: "[UNK]" } }));
    writeFileSync(join(full, "added_tokens.json"), JSON.stringify({ "[MASK]": 128000 }));
    for (const dir of [bare, full]) {
      const engine = await createOnnxEngine({ dir, variant: "fp32", cpu: CPUS.avx2, threads: 1 });
      engines.push(engine);
      const p = reference.pairs[1];
      if (!p) throw new Error("no reference pair");
      const { logits } = await engine.logits([p]);
      (logits[0] ?? []).forEach((x, k) => expect(Math.abs(x - (p.logits.fp32[k] ?? NaN))).toBeLessThan(1e-4));
    }
  });
});
