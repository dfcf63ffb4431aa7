import { PassThrough, Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { runModel } from "../../src/cli/model.ts";
import { importOnnxRuntime } from "../../src/nli/onnx/import-runtime.ts";
import { cacheWithDefaultModel, runCli, tempDir } from "../helpers/cli.ts";
import { startHubServer } from "../helpers/hub-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const PAIRS = [
  { id: 1, premise: "the tower is in paris.", hypothesis: "the tower is in paris." },
  { id: "b", premise: "refunds are issued within five business days.", hypothesis: "refunds take five days." },
];
const jsonl = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

// The commands import onnxruntime-node through this module; a test can make it fail the way a
// missing package does. Inference workers load their own copy and are never affected.
vi.mock("../../src/nli/onnx/import-runtime.ts", async (importOriginal) => {
  const real = await importOriginal<{ importOnnxRuntime: typeof importOnnxRuntime }>();
  return { importOnnxRuntime: vi.fn(real.importOnnxRuntime) };
});

/** What Node's ESM loader throws when onnxruntime-node is not in node_modules. */
function missingRuntime(): Error {
  return Object.assign(new Error("Cannot find package 'onnxruntime-node' imported from /srv/app/node_modules/groundwatch/dist/nli/onnx/import-runtime.js"), { code: "ERR_MODULE_NOT_FOUND" });
}

/** Makes the runtime import fail as if onnxruntime-node were not installed, for this test only. */
function withoutRuntime(): ReturnType<typeof vi.mocked<typeof importOnnxRuntime>> {
  const mock = vi.mocked(importOnnxRuntime);
  mock.mockClear();
  mock.mockImplementation(() => Promise.reject(missingRuntime()));
  onTestFinished(async () => {
    const real = await vi.importActual<{ importOnnxRuntime: typeof importOnnxRuntime }>("../../src/nli/onnx/import-runtime.ts");
    mock.mockImplementation(real.importOnnxRuntime);
  });
  return mock;
}

const INSTALL = "`npm install onnxruntime-node`";
const INSTALL_CPU = "`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`";


describe("groundwatch nli", () => {
  it("classifies pairs with the onnx backend from a model directory", async () => {
    const run = await runCli(["nli", "--input", "-", "--backend", "onnx", "--model", FIXTURE], { stdin: jsonl(PAIRS) });
    expect(run.code).toBe(0);
    const rows = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => r.id)).toEqual([1, "b"]);
    for (const r of rows) {
      expect((r.entailment as number) + (r.neutral as number) + (r.contradiction as number)).toBeCloseTo(1, 6);
      expect(["entailment", "neutral", "contradiction"]).toContain(r.label);
    }
    expect(run.stderr).toContain("backend onnx");
    expect(run.stderr).toContain("2 classified, 0 failed, 0 invalid");
  });

  it("writes an error row, never a label, for a pair the judge cannot classify, and exits 1", async () => {
    const server = await startJudgeServer((req) => ({ body: chat(req.messages[1]?.content.includes("five") ? "Probably entailment" : "ENTAILMENT") }));
    const run = await runCli(["nli", "--input", "-", "--backend", "judge", "--judge-url", server.url, "--judge-model", "m"], { stdin: jsonl(PAIRS) });
    expect(run.code).toBe(1);
    const rows = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows[0]).toMatchObject({ id: 1, label: "entailment" });
    expect(rows[1]).toMatchObject({ id: "b" });
    expect(rows[1]?.error).toMatch(/not one label/);
    expect(rows[1]).not.toHaveProperty("label");
    expect(run.stderr).toMatch(/judge usage: \d+ calls/);
    expect(run.stderr).toContain("1 classified, 1 failed");
  });

  it("stops at a malformed row with its line number", async () => {
    const run = await runCli(["nli", "--input", "-", "--backend", "offline"], { stdin: '{"id": 1, "premise": "a"}\n' });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('line 1: "hypothesis" must be a string');
  });
});

describe("auto backend selection", () => {
  it("uses the onnx backend when the default model is cached", async () => {
    const home = cacheWithDefaultModel(FIXTURE);
    const run = await runCli(["score", "--input", "-"], { stdin: jsonl([{ id: 1, context: "the tower is in paris.", answer: "the tower is in paris." }]), env: { HF_HOME: home } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backend: { name: "onnx", tier: "production" } });
    expect(run.stderr).not.toContain("WARNING");
  });

  it("uses a cached repo named with --model", async () => {
    const home = cacheWithDefaultModel(FIXTURE);
    const run = await runCli(["nli", "--input", "-", "--model", "Xenova/nli-deberta-v3-xsmall"], { stdin: jsonl(PAIRS), env: { HF_HOME: home } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("backend onnx");
  });
});

describe("groundwatch model", () => {
  it("pulls from HF_ENDPOINT, lists, and shows info with the label mapping", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: "test-org/tiny-nli" });
    const home = tempDir();
    const env = { HF_HOME: home, HF_ENDPOINT: server.url };
    const pull = await runCli(["model", "pull", "test-org/tiny-nli"], { env });
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain("downloaded onnx/model_quantized.onnx");
    expect(pull.stdout).toContain("--backend onnx --model test-org/tiny-nli");
    const list = await runCli(["model", "list"], { env });
    expect(list.stdout).toContain("test-org/tiny-nli@main");
    const info = await runCli(["model", "info", "test-org/tiny-nli"], { env });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain("labels:      0:contradiction 1:entailment 2:neutral");
    expect(info.stdout).toContain("mapping:     entailment=1, neutral=2, contradiction=0");
    expect(info.stdout).toContain("inputs:      input_ids, attention_mask, token_type_ids");
    expect(info.stdout).toContain("max length:  32 tokens");
  });

  it("fails with the manual steps when offline and not cached", async () => {
    const run = await runCli(["model", "pull"], { env: { HF_HOME: tempDir(), HF_HUB_OFFLINE: "1" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("To install Xenova/nli-deberta-v3-xsmall by hand");
    expect(run.stderr).toContain("onnx/model_quantized.onnx");
  });

  it("prints the labels of a model it refuses", async () => {
    const run = await runCli(["model", "info", fileURLToPath(new URL("../fixtures/models/bad-labels/", import.meta.url))]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot map the labels.*LABEL_0/);
  });
});

describe("without onnxruntime-node installed", () => {
  it("nli --backend onnx exits 2 with the install commands and no stack trace", async () => {
    withoutRuntime();
    const run = await runCli(["nli", "--input", "-", "--backend", "onnx", "--model", FIXTURE], { stdin: jsonl(PAIRS) });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      'groundwatch nli: invalid backend: "onnx" (the onnx backend needs onnxruntime-node, an optional peer dependency that is not installed: install it with `npm install onnxruntime-node`, or on CPU-only machines and where only the npm registry is reachable, `ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`)\n',
    );
  });

  it("score --backend onnx exits 2 with the install commands", async () => {
    withoutRuntime();
    const run = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", FIXTURE], { stdin: jsonl([{ id: 1, context: "a.", answer: "a." }]) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(INSTALL);
    expect(run.stderr).toContain(INSTALL_CPU);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("auto with --model exits 2 naming the model setting", async () => {
    withoutRuntime();
    const run = await runCli(["nli", "--input", "-", "--model", FIXTURE], { stdin: jsonl(PAIRS) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`groundwatch nli: invalid model: ${JSON.stringify(FIXTURE)} (the onnx backend needs onnxruntime-node`);
    expect(run.stderr).toContain(INSTALL_CPU);
  });

  it("auto with only the default model cached scores with the offline backend and says why", async () => {
    withoutRuntime();
    const home = cacheWithDefaultModel(FIXTURE);
    const run = await runCli(["score", "--input", "-"], { stdin: jsonl([{ id: 1, context: "the tower is in paris.", answer: "the tower is in paris." }]), env: { HF_HOME: home } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backend: { name: "offline", tier: "triage" } });
    expect(run.stderr).toContain("WARNING: the ONNX runtime (onnxruntime-node) is not installed");
    expect(run.stderr).toContain(INSTALL);
    expect(run.stderr).toContain(INSTALL_CPU);
  });

  it("model pull and model list never import the runtime", async () => {
    const importer = withoutRuntime();
    const server = await startHubServer({ dir: FIXTURE, repo: "test-org/tiny-nli" });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    expect((await runCli(["model", "pull", "test-org/tiny-nli"], { env })).code).toBe(0);
    const list = await runCli(["model", "list"], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("test-org/tiny-nli@main");
    expect(importer).not.toHaveBeenCalled();
  });

  it("model info prints what the files say and that the inputs need the runtime", async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const read = (s: PassThrough): string => (s.read() as Buffer | null)?.toString("utf8") ?? "";
    const io = { stdin: Readable.from([]), stdout, stderr, env: {}, cwd: process.cwd() };
    const code = await runModel(["info", FIXTURE], io, { importOnnxRuntime: () => Promise.reject(missingRuntime()) });
    const out = read(stdout);
    const err = read(stderr);
    expect(code).toBe(0);
    expect(out).toContain("labels:      0:contradiction 1:entailment 2:neutral");
    expect(out).toContain("mapping:     entailment=1, neutral=2, contradiction=0");
    expect(out).toMatch(/graph: {7}onnx\/model\.onnx \([\d.]+ MB, sha256 [0-9a-f]{12}…\)/);
    expect(out).toContain("inputs:      unknown: reading them needs onnxruntime-node, which is not installed");
    expect(out).toContain("max length:  32 tokens");
    expect(err).toContain(INSTALL);
    expect(err).toContain(INSTALL_CPU);
  });

  it("leaves the real runtime in place for the next test", async () => {
    const run = await runCli(["nli", "--input", "-", "--backend", "onnx", "--model", FIXTURE], { stdin: jsonl(PAIRS) });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("backend onnx");
  });

  it("model info still refuses a model whose labels cannot be mapped", async () => {
    const stderr = new PassThrough();
    const io = { stdin: Readable.from([]), stdout: new PassThrough(), stderr, env: {}, cwd: process.cwd() };
    const code = await runModel(["info", fileURLToPath(new URL("../fixtures/models/bad-labels/", import.meta.url))], io, { importOnnxRuntime: () => Promise.reject(missingRuntime()) });
    expect(code).toBe(1);
    expect((stderr.read() as Buffer).toString("utf8")).toMatch(/cannot map the labels.*LABEL_0/);
  });
});
