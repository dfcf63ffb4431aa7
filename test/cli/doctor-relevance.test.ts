import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";

const MODEL = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const RELEVANCE = fileURLToPath(new URL("../fixtures/models/relevance-bert/", import.meta.url));
const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };

describe("doctor's relevance line", () => {
  it("names the relevance cross-encoder the onnx backend loaded", async () => {
    const run = await runCli(["doctor", "--backend", "onnx", "--model", MODEL], { env: { ...ENV, GROUNDWATCH_RELEVANCE_MODEL: RELEVANCE } });
    expect(run.stdout).toMatch(/\[PASS\] relevance +onnx .*relevance-bert:onnx\/model\.onnx@[0-9a-f]{12}\n/);
  });

  it("says the onnx backend measures relevance lexically without one, and how to add one", async () => {
    const run = await runCli(["doctor", "--backend", "onnx", "--model", MODEL], { env: ENV });
    expect(run.stdout).toMatch(/\[INFO\] relevance +offline-lexical \(word coverage of the question\); no relevance cross-encoder configured \(relevanceModel\)\n +-> pull a relevance cross-encoder \(groundwatch model pull cross-encoder\/ms-marco-MiniLM-L-6-v2\)/);
  });

  it("says the offline backend's relevance is lexical, with nothing to fix", async () => {
    const run = await runCli(["doctor", "--backend", "offline"], { env: ENV });
    expect(run.stdout).toMatch(/\[INFO\] relevance +offline-lexical \(word coverage of the question\)\n/);
  });

  it("fails on a relevance model that is missing, naming it and the fix", async () => {
    const run = await runCli(["doctor", "--backend", "onnx", "--model", MODEL], { env: { ...ENV, GROUNDWATCH_RELEVANCE_MODEL: "cross-encoder/ms-marco-MiniLM-L-6-v2" } });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\[FAIL\] relevance model +"cross-encoder\/ms-marco-MiniLM-L-6-v2": not in the model cache .*groundwatch model pull cross-encoder\/ms-marco-MiniLM-L-6-v2/);
  });

  it("fails on an NLI model given as the relevance model, naming it and the labels it has", async () => {
    const nli = fileURLToPath(new URL("../fixtures/models/bert-permuted/", import.meta.url));
    const run = await runCli(["doctor", "--backend", "onnx", "--model", MODEL], { env: { ...ENV, GROUNDWATCH_RELEVANCE_MODEL: nli } });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\[FAIL\] relevance model +".*bert-permuted\/?": relevance model .*: config\.json declares 3 labels/);
  });
});
