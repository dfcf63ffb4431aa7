/**
 * The recipe engine end to end against the recipe fixtures' numpy references
 * (scripts/onnx_recipe_fixtures.py): from a (premise, hypothesis) pair, the engine must build the
 * same input text, token ids and chunks, get the same logits, and give the same P(supported) as
 * the max over chunks, read as { entailment: P, neutral: 1 − P, contradiction: 0 }.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { OnnxEngine } from "../../src/nli/onnx/engine.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import type { RecipeFixture } from "../helpers/recipe-fixtures.ts";
import { RECIPE_FIXTURES, RECIPE_TOLERANCE, readRecipeReference, recipeFixtureDir } from "../helpers/recipe-fixtures.ts";

const engines: OnnxEngine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

/** The public repositories the fixtures stand in for. */
const REPOS: Record<RecipeFixture, string> = {
  factcg: "yaxili96/FactCG-DeBERTa-v3-Large",
  "minicheck-deberta": "lytang/MiniCheck-DeBERTa-v3-Large",
  "minicheck-roberta": "lytang/MiniCheck-RoBERTa-Large",
};

/** The fixture as `groundwatch model pull` leaves its repository in a hub cache: the snapshot directory. */
function pulled(name: RecipeFixture): string {
  const snapshot = join(tempDir(), "hub", `models--${REPOS[name].replace("/", "--")}`, "snapshots", "abc");
  cpSync(recipeFixtureDir(name), snapshot, { recursive: true });
  return snapshot;
}

async function engineFor(name: RecipeFixture, options: { recipe?: string; variant?: "fp32" | "int8"; dir?: string; maxBatch?: number } = {}): Promise<OnnxEngine> {
  const { recipe, maxBatch } = options;
  const engine = await createOnnxEngine({ dir: options.dir ?? recipeFixtureDir(name), variant: options.variant ?? "fp32", ...(recipe ? { recipe } : {}), ...(maxBatch ? { maxBatch } : {}) });
  engines.push(engine);
  return engine;
}

function expectClose(got: readonly number[], want: readonly number[], what: string): void {
  expect(got.length, what).toBe(want.length);
  got.forEach((v, i) => expect(Math.abs(v - (want[i] as number)), `${what}[${i}]: ${v} against ${want[i]}`).toBeLessThanOrEqual(RECIPE_TOLERANCE));
}

describe.each(RECIPE_FIXTURES)("the %s recipe on its fixture", (name) => {
  const ref = readRecipeReference(name);
  const pairs = ref.rows.map((r) => ({ premise: r.premise, hypothesis: r.hypothesis }));

  // The DeBERTa fixtures' 2,048-token chunks take seconds each on a busy shared CPU.
  it("builds numpy's chunks, input texts and token ids, and gets its logits chunk by chunk", { timeout: 120_000 }, async () => {
    const engine = await engineFor(name, { recipe: ref.recipe });
    expect(engine.info.recipe.name).toBe(ref.recipe);
    expect(engine.info.maxLength).toBe(ref.max_length);
    const inspected = await engine.inspect(pairs);
    inspected.forEach((pair, p) => {
      const want = ref.rows[p]?.chunks ?? [];
      expect(pair.chunks.length, `pair ${p}: chunks`).toBe(want.length);
      pair.chunks.forEach((chunk, c) => {
        const w = want[c];
        expect(chunk.text, `pair ${p} chunk ${c}: text`).toBe(w?.text);
        expect(chunk.ids, `pair ${p} chunk ${c}: ids`).toEqual(w?.ids);
        expectClose(chunk.logits, w?.logits ?? [], `pair ${p} chunk ${c}: logits`);
      });
    });
  });

  it("classifies each pair as the max over its chunks of P(supported), never a contradiction", { timeout: 120_000 }, async () => {
    const engine = await engineFor(name, { recipe: ref.recipe });
    const results = await engine.classify(pairs);
    results.forEach((result, p) => {
      const row = ref.rows[p];
      expect(Math.abs(result.entailment - (row?.entailment ?? NaN)), `pair ${p}: entailment`).toBeLessThanOrEqual(RECIPE_TOLERANCE);
      expect(Math.abs(result.neutral - (row?.neutral ?? NaN)), `pair ${p}: neutral`).toBeLessThanOrEqual(RECIPE_TOLERANCE);
      expect(result.contradiction).toBe(0);
    });
  });

  it("is recognised, unnamed, from the hub repository it was pulled from", async () => {
    const engine = await engineFor(name, { dir: pulled(name) });
    expect(engine.info.recipe.name).toBe(ref.recipe);
  });

  it("is refused, unnamed, where nothing names its family (generic labels are never read by position)", async () => {
    await expect(engineFor(name)).rejects.toThrow(/generic labels[\s\S]*--recipe/);
  });
});

describe("the factcg recipe on the fixture's int8 graph", () => {
  // Dynamic quantisation scales activations over the whole batch, so the reference (and this run) is one chunk at a time.
  it("gets numpy's int8 logits, one chunk a run", { timeout: 120_000 }, async () => {
    const ref = readRecipeReference("factcg");
    const engine = await engineFor("factcg", { recipe: "factcg", variant: "int8", maxBatch: 1 });
    expect(engine.info.graph).toContain("model_quantized.onnx");
    const inspected = await engine.inspect(ref.rows.map((r) => ({ premise: r.premise, hypothesis: r.hypothesis })));
    inspected.forEach((pair, p) => pair.chunks.forEach((chunk, c) => expectClose(chunk.logits, ref.rows[p]?.chunks[c]?.logits_int8 ?? [], `pair ${p} chunk ${c}: int8 logits`)));
  });
});

describe("groundwatch score --backend onnx on a recipe fixture pulled from its hub repository", () => {
  it.each(RECIPE_FIXTURES)("scores %s's one-sentence answer as the reference's P(supported), with no contradiction", { timeout: 120_000 }, async (name) => {
    const row = readRecipeReference(name).rows[1];
    const stdin = `${JSON.stringify({ id: 1, context: row?.premise, answer: row?.hypothesis })}\n`;
    const run = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", pulled(name), "--variant", "fp32"], { stdin });
    expect(run.code, run.stderr).toBe(0);
    const claim = (JSON.parse(run.stdout) as { claims: Array<{ score: number; contradiction: number }> }).claims[0];
    expect(Math.abs((claim?.score ?? NaN) - (row?.supported ?? NaN))).toBeLessThanOrEqual(RECIPE_TOLERANCE);
    expect(claim?.contradiction).toBe(0);
  });
});

describe("groundwatch score --backend onnx --model DIR --recipe NAME on a recipe fixture's own directory", () => {
  // The short pairs whose claim is not written verbatim in the context: score windows a long
  // context (top_k) before the recipe sees it and marks a verbatim claim supported outright, so
  // the long and verbatim rows are the engine's to compare (above), not score's.
  it.each(RECIPE_FIXTURES)("scores %s's short pairs as the reference's P(supported), with no contradiction", { timeout: 120_000 }, async (name) => {
    const ref = readRecipeReference(name);
    const rows = ref.rows.filter((r) => r.chunks.length === 1 && r.chunks[0]?.truncated === 0 && !r.premise.includes(r.hypothesis));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const stdin = rows.map((r, i) => JSON.stringify({ id: i, context: r.premise, answer: r.hypothesis })).join("\n") + "\n";
    const run = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", recipeFixtureDir(name), "--recipe", ref.recipe, "--variant", "fp32"], { stdin });
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { claims: Array<{ score: number; contradiction: number }> });
    expect(out).toHaveLength(rows.length);
    out.forEach((row, i) => {
      expect(row.claims, `row ${i}`).toHaveLength(1);
      expect(Math.abs((row.claims[0]?.score ?? NaN) - (rows[i]?.supported ?? NaN)), `row ${i}`).toBeLessThanOrEqual(RECIPE_TOLERANCE);
      expect(row.claims[0]?.contradiction).toBe(0);
    });
  });
});
