import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { NliPair, NliResult } from "../../src/core/backend.ts";
import type { OnnxBackend } from "../../src/nli/onnx/backend.ts";
import { createOnnxBackend } from "../../src/nli/onnx/backend.ts";
import { resolveBackendSettings } from "../../src/config/hub.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { createBackend } from "../../src/nli/registry.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));

interface Reference {
  min_hypothesis: number;
  pairs: Array<{ premise: string; hypothesis: string }>;
}
const reference = (name: string): Reference => JSON.parse(readFileSync(join(MODELS, name, "reference.json"), "utf8")) as Reference;

/** Observations of a few pairs each, drawn from the reference pairs (texts varied so no two pairs are identical). */
function observations(ref: Reference, count: number): NliPair[][] {
  return Array.from({ length: count }, (_, o) =>
    Array.from({ length: 1 + (o % 3) }, (_, k) => {
      const p = ref.pairs[(o + k) % ref.pairs.length] as NliPair;
      return { premise: `${p.premise} (${o})`, hypothesis: p.hypothesis };
    }),
  );
}

const argmax = (r: NliResult): number => [r.entailment, r.neutral, r.contradiction].reduce((best, v, i, all) => (v > (all[best] ?? -Infinity) ? i : best), 0);

async function withBackend(name: string, options: { batchWaitMs: number; workers?: number }, body: (b: OnnxBackend) => Promise<void>): Promise<void> {
  const ref = reference(name);
  const backend = await createOnnxBackend({ dir: join(MODELS, name), workers: options.workers ?? 1, maxBatch: 32, batchWaitMs: options.batchWaitMs, minHypothesisTokens: ref.min_hypothesis, threads: 1 });
  try {
    await body(backend);
  } finally {
    await backend.close();
  }
}

describe.each(["bert-wordpiece", "deberta-unigram"])("batching across observations on %s", (name) => {
  it("runs the pairs of concurrent observations in shared batches, with the results each gets alone", async () => {
    const obs = observations(reference(name), 8);
    // Alone: one observation at a time, so no batch holds pairs of two.
    const alone: NliResult[][] = [];
    await withBackend(name, { batchWaitMs: 0 }, async (backend) => {
      for (const o of obs) alone.push(await backend.classify(o));
      expect((await backend.inferenceStats()).runs).toBe(obs.length);
    });
    await withBackend(name, { batchWaitMs: 50, workers: 2 }, async (backend) => {
      const together = await Promise.all(obs.map((o) => backend.classify(o)));
      const stats = await backend.inferenceStats();
      expect(stats.runs).toBeLessThan(obs.length);
      expect(stats.pairs).toBe(obs.flat().length);
      together.forEach((results, o) => {
        expect(results).toHaveLength(obs[o]?.length ?? -1);
        results.forEach((r, k) => {
          const a = alone[o]?.[k] as NliResult;
          expect(Math.abs(r.entailment - a.entailment)).toBeLessThan(1e-5);
          expect(Math.abs(r.neutral - a.neutral)).toBeLessThan(1e-5);
          expect(Math.abs(r.contradiction - a.contradiction)).toBeLessThan(1e-5);
          expect(argmax(r)).toBe(argmax(a));
        });
      });
    });
  });

  it("answers a lone observation once its wait bound has passed", async () => {
    await withBackend(name, { batchWaitMs: 5 }, async (backend) => {
      const [pair] = observations(reference(name), 1);
      const results = await backend.classify(pair ?? []);
      expect(results).toHaveLength(1);
      expect((await backend.inferenceStats()).runs).toBe(1);
    });
  });

  it("runs identical pairs of concurrent observations once", async () => {
    await withBackend(name, { batchWaitMs: 50 }, async (backend) => {
      const pair = reference(name).pairs[0] as NliPair;
      const [a, b] = await Promise.all([backend.classify([pair]), backend.classify([pair])]);
      expect(a).toEqual(b);
      expect(await backend.inferenceStats()).toEqual({ runs: 1, pairs: 1 });
    });
  });
});

describe("the registry's onnx backend", () => {
  it("batches at most onnxMaxBatch pairs a run", async () => {
    const settings = resolveBackendSettings({ HF_HOME: "/nonexistent/groundwatch-test-hf-home" });
    const options = resolveScoreOptions({ backend: "onnx", model: join(MODELS, "bert-wordpiece"), onnxMaxBatch: 2, onnxBatchWaitMs: 0 });
    const { backend } = await createBackend(options, { analyzer: createTextAnalyzer(), settings });
    try {
      const pairs = observations(reference("bert-wordpiece"), 5).map((o) => o[0] as NliPair);
      expect(await backend.classify(pairs)).toHaveLength(5);
      expect(await (backend as OnnxBackend).inferenceStats()).toEqual({ runs: 3, pairs: 5 });
    } finally {
      await backend.close();
    }
  });
});

describe("per-observation budgets with several observations in flight on one scorer", () => {
  it("cap each observation's entailment calls, with the results each gets alone", async () => {
    const context = ["The museum opens at nine. Tickets cost ten euros. The cafe closes at five. Guided tours start at noon."];
    const answers = Array.from({ length: 6 }, (_, i) => `The museum opens at nine each day. Tickets cost ${i + 2} euros. The cafe closes at five daily. Tours begin at noon.`);
    // No judgement cache: the answers share claims, and the sequential scorer would find the later ones' pairs cached.
    const options = { backend: "onnx", model: join(MODELS, "bert-wordpiece"), maxEntailmentCalls: 2, relevance: false, onnxBatchWaitMs: 20, nliCacheBytes: 0 };
    const env = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
    const alone = await createScorer(options, { env });
    const together = await createScorer(options, { env });
    try {
      const one: Array<Awaited<ReturnType<typeof alone.score>>> = [];
      for (const answer of answers) one.push(await alone.score({ answer, context }));
      const many = await Promise.all(answers.map((answer) => together.score({ answer, context })));
      // Their pairs shared batches: fewer runs than pairs sent.
      const sent = many.reduce((n, r) => n + r.entailmentCalls, 0);
      expect((await (together.entailment as OnnxBackend).inferenceStats()).runs).toBeLessThan(sent);
      many.forEach((r, i) => {
        expect(r.entailmentCalls).toBeLessThanOrEqual(2);
        expect(r.limits).toContain("entailment_calls");
        expect(r.entailmentCalls).toBe(one[i]?.entailmentCalls);
        expect(r.score).toBeCloseTo(one[i]?.score ?? NaN, 5);
        expect(r.verdict).toBe(one[i]?.verdict);
      });
    } finally {
      await Promise.all([alone.close(), together.close()]);
    }
  });
});
