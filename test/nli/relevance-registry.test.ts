import { fileURLToPath } from "node:url";
import { OFFLINE_RELEVANCE_THRESHOLDS } from "../../src/nli/offline/backend.ts";
import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { resolveBackendSettings } from "../../src/config/hub.ts";
import { SCORE_ENV, resolveScoreOptions } from "../../src/config/score-options.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { createBackend } from "../../src/nli/registry.ts";
import { createMonitor } from "../../src/sdk/index.ts";

const MODEL = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const RELEVANCE = fileURLToPath(new URL("../fixtures/models/relevance-bert/", import.meta.url));
const NO_CACHE = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const analyzer = createTextAnalyzer();
const deps = { analyzer, settings: resolveBackendSettings(NO_CACHE) };

describe("relevanceModel", () => {
  it("is read from the option, GROUNDWATCH_RELEVANCE_MODEL or the config file, in that order", () => {
    expect(SCORE_ENV.relevanceModel).toBe("GROUNDWATCH_RELEVANCE_MODEL");
    expect(resolveScoreOptions({}).relevanceModel).toBeUndefined();
    expect(resolveScoreOptions({}, { env: { GROUNDWATCH_RELEVANCE_MODEL: "cross-encoder/ms-marco-MiniLM-L-6-v2" } }).relevanceModel).toBe("cross-encoder/ms-marco-MiniLM-L-6-v2");
    expect(resolveScoreOptions({}, { file: { relevanceModel: "/models/rerank" } }).relevanceModel).toBe("/models/rerank");
    expect(resolveScoreOptions({ relevanceModel: "/a" }, { env: { GROUNDWATCH_RELEVANCE_MODEL: "/b" } }).relevanceModel).toBe("/a");
  });

  it.each([
    ["a directory that does not exist", "/nonexistent/relevance-model", /invalid relevanceModel: "\/nonexistent\/relevance-model" \(no such directory, and not a Hugging Face repo id/],
    ["a repo that was not pulled", "cross-encoder/ms-marco-MiniLM-L-6-v2", /invalid relevanceModel: "cross-encoder\/ms-marco-MiniLM-L-6-v2" \(not in the model cache .*; run `groundwatch model pull cross-encoder\/ms-marco-MiniLM-L-6-v2`\)/],
  ])("refuses %s at start with a ConfigError naming relevanceModel", async (_name, relevanceModel, message) => {
    const failure = await createBackend(resolveScoreOptions({ backend: "onnx", model: MODEL, relevanceModel }), deps).catch((e: unknown) => e);
    expect(isConfigError(failure) && failure.field).toBe("relevanceModel");
    expect((failure as Error).message).toMatch(message);
  });

  it("loads the cross-encoder into the onnx backend, which says it scores relevance with it", async () => {
    const { backend, warnings } = await createBackend(resolveScoreOptions({ backend: "onnx", model: MODEL, relevanceModel: RELEVANCE }), deps);
    try {
      expect(warnings).toEqual([]);
      expect(backend.relevanceScorer).toMatchObject({ name: "onnx", model: expect.stringMatching(/relevance-bert:onnx\/model\.onnx@/) as unknown });
      // A cross-encoder's sigmoid is read against the default thresholds, not the lexical scorer's fitted ones.
      expect(backend.recommendedRelevanceThresholds).toBeUndefined();
      const [score] = (await backend.relevance?.([{ query: "where is the tower", passage: "the tower is in paris." }])) ?? [];
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThan(1);
    } finally {
      await backend.close();
    }
  });

  it("without it, the onnx backend measures relevance lexically and says so", async () => {
    const { backend } = await createBackend(resolveScoreOptions({ backend: "onnx", model: MODEL }), deps);
    try {
      expect(backend.relevanceScorer).toEqual({ name: "offline-lexical" });
      // Lexical relevance is read against the thresholds fitted for it.
      expect(backend.recommendedRelevanceThresholds).toEqual(OFFLINE_RELEVANCE_THRESHOLDS);
      const [on, off] = (await backend.relevance?.([
        { query: "When does the museum open?", passage: "The museum opens at nine." },
        { query: "When does the museum open?", passage: "Refunds take five business days." },
      ])) ?? [];
      expect(on).toBeGreaterThan(off ?? 1);
    } finally {
      await backend.close();
    }
  });

  it("is not read by the offline and judge backends, which warn that they use their own scorer", async () => {
    const offline = await createBackend(resolveScoreOptions({ backend: "offline", relevanceModel: RELEVANCE }), deps);
    await offline.backend.close();
    expect(offline.warnings).toEqual([`relevanceModel ${RELEVANCE} is read by the onnx backend only: the offline backend measures relevance with its own scorer (lexical)`]);
    expect(offline.backend.relevanceScorer).toEqual({ name: "offline-lexical" });
    const judge = await createBackend(resolveScoreOptions({ backend: "judge", judgeUrl: "http://127.0.0.1:9/v1", judgeModel: "m", relevanceModel: RELEVANCE }), deps);
    await judge.backend.close();
    expect(judge.warnings).toContain(`relevanceModel ${RELEVANCE} is read by the onnx backend only: the judge backend measures relevance with its own scorer (the judge)`);
    expect(judge.backend.relevanceScorer).toEqual({ name: "judge", model: "m" });
  });

  it("is checked by createMonitor at construction, before any worker starts", () => {
    expect(() => createMonitor({ env: NO_CACHE, scoring: { backend: "onnx", model: MODEL, relevanceModel: "/nonexistent/relevance-model" } })).toThrow('invalid relevanceModel: "/nonexistent/relevance-model"');
  });
});
