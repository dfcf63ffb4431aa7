/**
 * The collector scoring with each detector recipe: its monitor's onnx backend reads each family's
 * fixture (test/fixtures/models/recipes/<family>: a random-weight graph of the real architecture in
 * the public repository's layout, with a numpy reference of the whole recipe) as `scoring.recipe`
 * says, and the answer carries the reference's P(supported). The threshold is set above every row's
 * P(supported), so the answer is flagged and its score can be read from the flagged ring.
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { COLLECTOR_TEST_ENV, postJson, startTestCollector } from "../helpers/collector.ts";

const RECIPES = fileURLToPath(new URL("../fixtures/models/recipes/", import.meta.url));
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

interface Reference {
  readonly recipe: string;
  readonly rows: ReadonlyArray<{ readonly premise: string; readonly hypothesis: string; readonly chunks: readonly unknown[]; readonly supported: number }>;
}

/** The family's model directory; HHEM's with the tokenizer `model pull` borrows from google/flan-t5-base copied beside its graph. */
function modelDir(family: string): string {
  const dir = join(RECIPES, family);
  if (family !== "hhem") return dir;
  const copy = mkdtempSync(join(tmpdir(), "gw-hhem-"));
  temps.push(copy);
  cpSync(dir, copy, { recursive: true });
  for (const f of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]) copyFileSync(join(RECIPES, "flan-t5-base-tokenizer", f), join(copy, f));
  return copy;
}

describe("collector: scoring with a detector recipe", () => {
  it.each(["factcg", "minicheck-deberta", "minicheck-roberta", "minicheck-flan-t5", "hhem"])("scores an observation under scoring.recipe %s with the numpy reference's P(supported)", async (family) => {
    const dir = modelDir(family);
    const ref = JSON.parse(readFileSync(join(RECIPES, family, "reference.json"), "utf8")) as Reference;
    expect(ref.recipe).toBe(family);
    // A one-window document and a claim it does not hold word for word (a verbatim claim is supported without a model call).
    const row = ref.rows.find((r) => r.chunks.length === 1 && r.premise.length < 200 && !r.premise.includes(r.hypothesis));
    expect(row).toBeDefined();
    const c = await startTestCollector({ env: COLLECTOR_TEST_ENV, monitor: { scoring: { backend: "onnx", model: dir, recipe: ref.recipe, variant: "fp32", threshold: 0.999 } } });
    const res = await postJson(`${c.url}/v1/observations`, [{ route: "/ask", context: [row?.premise], answer: row?.hypothesis }]);
    expect(res.status).toBe(202);
    await c.monitor.flush();
    await expect.poll(() => c.monitor.flagged().length, { timeout: 30_000 }).toBe(1);
    const [flagged] = c.monitor.flagged();
    expect(flagged?.verdict).toBe("ungrounded");
    expect(Math.abs((flagged?.score ?? NaN) - (row?.supported ?? NaN))).toBeLessThan(1e-4);
  });
});
