import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ModelCommandDeps } from "../../src/cli/model.ts";
import { runModel } from "../../src/cli/model.ts";
import type { CpuFeatures } from "../../src/nli/onnx/variants.ts";
import { classifyGraph } from "../../src/nli/onnx/variants.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import type { GraphKind, LayoutRepo } from "../helpers/hub-layouts.ts";
import { CPUS, CROSS_ENCODER, LAYOUTS, OPTIMUM, TOLERANCE, TRANSFORMERS_JS, graphReference } from "../helpers/hub-layouts.ts";
import { HUB_SHA, startHubServer } from "../helpers/hub-server.ts";

/** Runs `groundwatch model …` in-process with an injected CPU; returns the exit code and output. */
async function model(argv: string[], env: NodeJS.ProcessEnv, cpu: CpuFeatures, deps: ModelCommandDeps = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (c: Buffer) => out.push(c));
  stderr.on("data", (c: Buffer) => err.push(c));
  const code = await runModel(argv, { stdin: Readable.from([]), stdout, stderr, env, cwd: tempDir() }, { cpu, ...deps });
  return { code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(bytes < 1e5 ? 3 : 1)} MB`;

/** The one scoring row whose answer's only claim is the pair's hypothesis, against its premise. */
function row(layout: LayoutRepo): string {
  const pair = graphReference(layout.base).pairs[1];
  return `${JSON.stringify({ id: 1, context: pair?.premise, answer: pair?.hypothesis })}\n`;
}

/** The entailment and contradiction probabilities numpy's logits give for that pair. */
function expectedProbabilities(layout: LayoutRepo, kind: GraphKind): { entailment: number; contradiction: number } {
  const ref = graphReference(layout.base);
  const logits = ref.pairs[1]?.logits[kind] ?? [];
  const z = logits.map((x) => Math.exp(x));
  const sum = z.reduce((a, b) => a + b, 0);
  const at = (label: string): number => (z[ref.id2label.indexOf(label)] ?? NaN) / sum;
  return { entailment: at("entailment"), contradiction: at("contradiction") };
}

describe("groundwatch model pull, info and score on each layout", () => {
  it.each([
    [CROSS_ENCODER.repo, "avx512_vnni", "onnx/model_qint8_avx512_vnni.onnx", "int8 for AVX-512 VNNI", "auto: int8 quantised for AVX-512 VNNI: this CPU has AVX-512 VNNI, AVX-512, AVX2", CROSS_ENCODER],
    [CROSS_ENCODER.repo, "arm64", "onnx/model_qint8_arm64.onnx", "int8 for ARM64", "auto: int8 quantised for ARM64: this CPU is ARM64", CROSS_ENCODER],
    [CROSS_ENCODER.repo, "none", "onnx/model.onnx", "fp32", "auto: fp32; no int8 graph this CPU can use is offered", CROSS_ENCODER],
    [TRANSFORMERS_JS.repo, "avx2", "onnx/model_quantized.onnx", "int8 for any CPU (quantized)", "auto: int8 (generic quantised graph); the repository has no int8 graph per instruction set", TRANSFORMERS_JS],
    [OPTIMUM.repo, "avx2", "model_quantized.onnx", "int8 for any CPU (quantized)", "auto: int8 (generic quantised graph); the repository has no int8 graph per instruction set", OPTIMUM],
  ] as const)("%s on %s: pull says it chose %s and why, info describes it, score matches numpy", async (_repo, cpu, graph, description, reason, layout) => {
    const server = await startHubServer({ files: layout.files, repo: layout.repo });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const pull = await model(["pull", layout.repo], env, CPUS[cpu]);
    expect(pull.code, pull.stderr).toBe(0);
    const size = Buffer.byteLength(layout.files.get(graph) ?? "");
    expect(pull.stdout).toContain(`variant    ${graph} (${description}, ${mb(size)}): ${reason}`);
    expect(pull.stdout.split("\n").filter((l) => l.startsWith("downloaded") && l.includes(".onnx"))).toEqual([expect.stringMatching(new RegExp(`^downloaded ${graph.replace(/\./g, "\\.")} \\(`)) as unknown]);
    expect(pull.stdout).toContain(`use it with: --backend onnx --model ${layout.repo}\n`);

    const info = await model(["info", layout.repo], env, CPUS[cpu]);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(`graph:       ${graph} (`);
    expect(info.stdout).toContain(`variant:     ${description}: ${reason}`);
    expect(info.stdout).toMatch(/mapping: {5}entailment=\d, (neutral=\d, contradiction=\d|not_entailment=\d)/);
    expect(info.stdout).toContain(`variants:    offered by ${layout.repo}@${HUB_SHA} when pulled:`);
    for (const [path, body] of layout.files) {
      if (!layout.graphs.has(path)) continue;
      const line = info.stdout.split("\n").find((l) => l.startsWith(`  ${path} `));
      expect(line, path).toContain(mb(Buffer.byteLength(body)));
      expect(line?.includes("[pulled; chosen"), path).toBe(path === graph);
    }
    // The listing was saved by the pull: info asked the hub nothing more.
    expect(server.requests.filter((r) => r.path.startsWith("/api/")).length).toBe(1);

    // A graph quantised for one instruction set is chosen by auto only on a CPU that has it: the
    // machine running this test may not, so it is named (the snapshot holds only that graph).
    const pin = classifyGraph(graph)?.isa ? ["--variant", graph] : [];
    const score = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", layout.repo, ...pin], { stdin: row(layout), env: { HF_HOME: env.HF_HOME } });
    expect(score.code, score.stderr).toBe(0);
    const result = JSON.parse(score.stdout) as { backend: { version: string }; claims: Array<{ score: number; contradiction: number }> };
    expect(result.backend.version).toContain(`:${graph}@`);
    const want = expectedProbabilities(layout, layout.graphs.get(graph) as GraphKind);
    expect(Math.abs((result.claims[0]?.score ?? NaN) - want.entailment)).toBeLessThan(TOLERANCE.fp32);
    expect(Math.abs((result.claims[0]?.contradiction ?? NaN) - want.contradiction)).toBeLessThan(TOLERANCE.fp32);
  });

  it("describes a repository that is not pulled from the hub's listing, marking what auto would fetch", async () => {
    const server = await startHubServer({ files: TRANSFORMERS_JS.files, repo: TRANSFORMERS_JS.repo });
    const info = await model(["info", TRANSFORMERS_JS.repo], { HF_HOME: tempDir(), HF_ENDPOINT: server.url }, CPUS.avx2);
    expect(info.code, info.stderr).toBe(0);
    const lines = info.stdout.split("\n");
    expect(lines[0]).toBe(`model:       ${TRANSFORMERS_JS.repo}@main: not pulled (labels, inputs and maximum length are read once it is)`);
    expect(lines[1]).toBe(`variants:    offered by ${TRANSFORMERS_JS.repo}@${HUB_SHA}:`);
    const listed = lines.slice(2, 2 + TRANSFORMERS_JS.graphs.size);
    expect(listed.map((l) => l.trim().split(/\s+/)[0])).toEqual([...TRANSFORMERS_JS.graphs.keys()]);
    expect(listed.find((l) => l.includes("model_quantized.onnx"))).toMatch(/int8 for any CPU \(quantized\) {2}\[auto on this CPU\]$/);
    expect(listed.find((l) => l.includes("model_fp16.onnx"))).toMatch(/fp16 {2}\[not run on the CPU unless named\]$/);
    expect(listed.find((l) => l.includes("model_bnb4.onnx"))).toMatch(/4-bit \(bnb4\) {2}\[not run on the CPU unless named\]$/);
    expect(info.stdout).toContain(`pull:        \`groundwatch model pull ${TRANSFORMERS_JS.repo}\` fetches onnx/model_quantized.onnx: auto: int8 (generic quantised graph)`);
    expect(server.requests.filter((r) => r.path.includes("/resolve/"))).toEqual([]);
  });

  it("lists the variants of a repository pulled before its listing was saved, asking the hub", async () => {
    const server = await startHubServer({ files: OPTIMUM.files, repo: OPTIMUM.repo });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    expect((await model(["pull", OPTIMUM.repo, "--variant", "fp32"], env, CPUS.avx2)).code).toBe(0);
    const { rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    rmSync(join(env.HF_HOME, "hub", "models--test-org--minilm-nli-optimum", "snapshots", HUB_SHA, ".groundwatch-listing.json"));
    const info = await model(["info", OPTIMUM.repo, "--variant", "fp32"], env, CPUS.avx2);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(`variants:    offered by ${OPTIMUM.repo}@${HUB_SHA}:`);
    expect(info.stdout).toMatch(/ {2}model\.onnx +[\d.]+ MB {2}fp32 {2}\[pulled; chosen; --variant fp32 on this CPU\]/);
    expect(info.stdout).toMatch(/ {2}model_quantized\.onnx +[\d.]+ MB {2}int8 for any CPU \(quantized\)\n/);
  });

  it("still describes a cached repository when the hub cannot be reached, and says what is unknown", async () => {
    const server = await startHubServer({ files: OPTIMUM.files, repo: OPTIMUM.repo });
    const home = tempDir();
    expect((await model(["pull", OPTIMUM.repo], { HF_HOME: home, HF_ENDPOINT: server.url }, CPUS.avx2)).code).toBe(0);
    const { rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    rmSync(join(home, "hub", "models--test-org--minilm-nli-optimum", "snapshots", HUB_SHA, ".groundwatch-listing.json"));
    const info = await model(["info", OPTIMUM.repo], { HF_HOME: home, HF_ENDPOINT: "http://127.0.0.1:9" }, CPUS.avx2);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain("graph:       model_quantized.onnx (");
    expect(info.stderr).toMatch(/^groundwatch model info: the variants test-org\/minilm-nli-optimum offers are not known: cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it("a pull of a named variant prints the --variant to use it with", async () => {
    const server = await startHubServer({ files: CROSS_ENCODER.files, repo: CROSS_ENCODER.repo });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const pull = await model(["pull", CROSS_ENCODER.repo, "--variant", "int8"], env, CPUS.avx2);
    expect(pull.code, pull.stderr).toBe(0);
    expect(pull.stdout).toContain("variant    onnx/model_quint8_avx2.onnx (int8 for AVX2, ");
    expect(pull.stdout).toContain(`use it with: --backend onnx --model ${CROSS_ENCODER.repo} --variant onnx/model_quint8_avx2.onnx\n`);
  });

  it.each(LAYOUTS.map((l) => [l.repo, l] as const))("%s: every graph named exactly is the only one fetched", async (_repo, layout) => {
    const server = await startHubServer({ files: layout.files, repo: layout.repo });
    for (const path of layout.graphs.keys()) {
      const pull = await model(["pull", layout.repo, "--variant", path, "--dir", tempDir()], { HF_HOME: tempDir(), HF_ENDPOINT: server.url }, CPUS.none);
      expect(pull.code, pull.stderr).toBe(0);
      expect(pull.stdout.split("\n").filter((l) => /^(downloaded|resumed|present) .*\.onnx /.test(l))).toEqual([expect.stringContaining(` ${path} (`) as unknown]);
    }
    const asked = server.requests.filter((r) => r.path.endsWith(".onnx")).map((r) => r.path.split(`/resolve/${HUB_SHA}/`)[1]);
    expect(asked).toEqual([...layout.graphs.keys()]);
  });
});

describe("fp16 and 4-bit graphs on the CPU", () => {
  it("model pull --variant fp16 exits 2 naming the file to ask for, and fetches nothing", async () => {
    const server = await startHubServer({ files: TRANSFORMERS_JS.files, repo: TRANSFORMERS_JS.repo });
    const pull = await model(["pull", TRANSFORMERS_JS.repo, "--variant", "fp16"], { HF_HOME: tempDir(), HF_ENDPOINT: server.url }, CPUS.avx2);
    expect(pull.code).toBe(2);
    expect(pull.stderr).toMatch(/^groundwatch model pull: invalid variant: "fp16" \(fp16 graphs are not run on the CPU execution provider, the only one groundwatch uses/);
    expect(pull.stderr).toContain("to load one anyway, name the file: --variant onnx/model_fp16.onnx)");
    expect(server.requests.filter((r) => r.path.includes("/resolve/"))).toEqual([]);
  });

  it("an fp16 graph named exactly is pulled, refused by auto, and scores when named", async () => {
    const server = await startHubServer({ files: TRANSFORMERS_JS.files, repo: TRANSFORMERS_JS.repo });
    const home = tempDir();
    const pull = await model(["pull", TRANSFORMERS_JS.repo, "--variant", "onnx/model_fp16.onnx"], { HF_HOME: home, HF_ENDPOINT: server.url }, CPUS.avx2);
    expect(pull.code, pull.stderr).toBe(0);
    expect(pull.stdout).toContain("named with --variant (fp16 on the CPU execution provider: expect it to run slower than int8 or fp32)");
    const refused = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", TRANSFORMERS_JS.repo], { stdin: row(TRANSFORMERS_JS), env: { HF_HOME: home } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("its graphs (onnx/model_fp16.onnx) are fp16, 4-bit or of unknown kind, which groundwatch loads only when named: --variant onnx/model_fp16.onnx");
    const named = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", TRANSFORMERS_JS.repo, "--variant", "onnx/model_fp16.onnx"], { stdin: row(TRANSFORMERS_JS), env: { HF_HOME: home } });
    expect(named.code, named.stderr).toBe(0);
    const claim = (JSON.parse(named.stdout) as { claims: Array<{ score: number }> }).claims[0];
    expect(Math.abs((claim?.score ?? NaN) - expectedProbabilities(TRANSFORMERS_JS, "fp16").entailment)).toBeLessThan(TOLERANCE.fp16);
  });
});

describe("--variant is checked before anything else", () => {
  it("model pull and model info name a bad --variant, exit 2, asking the hub nothing", async () => {
    const server = await startHubServer({ files: OPTIMUM.files, repo: OPTIMUM.repo });
    for (const sub of ["pull", "info"]) {
      const run = await model([sub, OPTIMUM.repo, "--variant", "int4"], { HF_HOME: tempDir(), HF_ENDPOINT: server.url }, CPUS.avx2);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('groundwatch model: invalid --variant: "int4" (expected auto, fp32, int8, fp16, q4, quantized (the generic int8 graph), or a graph\'s file name such as onnx/model_quint8_avx2.onnx)\n');
    }
    expect(server.requests).toEqual([]);
  });

  it("score --variant and GROUNDWATCH_MODEL_VARIANT are checked the same way", async () => {
    const flag = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", "/nonexistent", "--variant", "../model.onnx"], { stdin: row(OPTIMUM) });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('invalid variant: "../model.onnx" (expected auto, fp32, int8, fp16, q4, quantized');
    const env = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", "/nonexistent"], { stdin: row(OPTIMUM), env: { GROUNDWATCH_MODEL_VARIANT: "int4" } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('invalid GROUNDWATCH_MODEL_VARIANT: "int4"');
  });
});
