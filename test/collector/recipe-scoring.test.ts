/**
 * The collector scoring with a detector recipe: its monitor's onnx backend reads the
 * MiniCheck-RoBERTa fixture (test/fixtures/models/recipes/minicheck-roberta, a random-weight graph
 * with a numpy reference of the whole recipe) as `scoring.recipe` says, and an answer it flags
 * carries the reference's P(supported).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COLLECTOR_TEST_ENV, postJson, startTestCollector } from "../helpers/collector.ts";

const DIR = fileURLToPath(new URL("../fixtures/models/recipes/minicheck-roberta/", import.meta.url));

interface Reference {
  readonly recipe: string;
  readonly rows: ReadonlyArray<{ readonly premise: string; readonly hypothesis: string; readonly chunks: readonly unknown[]; readonly supported: number }>;
}

describe("collector: scoring with a recipe", () => {
  it("scores an observation through the onnx backend under scoring.recipe, with the numpy reference's P(supported)", async () => {
    const ref = JSON.parse(readFileSync(join(DIR, "reference.json"), "utf8")) as Reference;
    // A one-window document and a claim it does not hold word for word, which the random graph does not support.
    const row = ref.rows.find((r) => r.chunks.length === 1 && r.premise.length < 200 && !r.premise.includes(r.hypothesis) && r.supported < 0.5);
    expect(row).toBeDefined();
    const c = await startTestCollector({ env: COLLECTOR_TEST_ENV, monitor: { scoring: { backend: "onnx", model: DIR, recipe: ref.recipe, variant: "fp32" } } });
    const res = await postJson(`${c.url}/v1/observations`, [{ route: "/ask", context: [row?.premise], answer: row?.hypothesis }]);
    expect(res.status).toBe(202);
    await c.monitor.flush();
    await expect.poll(() => c.monitor.flagged().length, { timeout: 15_000 }).toBe(1);
    const [flagged] = c.monitor.flagged();
    expect(flagged?.verdict).toBe("ungrounded");
    expect(Math.abs((flagged?.score ?? NaN) - (row?.supported ?? NaN))).toBeLessThan(1e-4);
  });
});
