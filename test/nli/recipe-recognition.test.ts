/**
 * Choosing a recipe without editing files: from a name the user gives, the repository name (hub
 * cache path, config.json's _name_or_path), config.json's architectures, or NLI labels; a binary
 * model with generic labels and nothing naming its family is refused, saying how to name a recipe.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { ONNX_RECIPES, recogniseRecipe, repoNamesOf } from "../../src/nli/recipes/index.ts";

const GENERIC = { "0": "LABEL_0", "1": "LABEL_1" };
const DEBERTA = { architectures: ["DebertaV2ForSequenceClassification"], model_type: "deberta-v2", id2label: GENERIC };
const ROBERTA = { architectures: ["RobertaForSequenceClassification"], model_type: "roberta", id2label: GENERIC };
const T5 = { architectures: ["T5ForConditionalGeneration"], model_type: "t5" };
const NLI = { architectures: ["DebertaV2ForSequenceClassification"], model_type: "deberta-v2", id2label: { "0": "contradiction", "1": "entailment", "2": "neutral" } };

const cachePath = (repo: string): string => `/home/u/.cache/huggingface/hub/models--${repo.replace("/", "--")}/snapshots/0123abcd`;
const recognise = (dir: string, config: Record<string, unknown>, name?: string): ReturnType<typeof recogniseRecipe> => recogniseRecipe({ dir, config, source: `${dir}/config.json`, name });

describe("recipe recognition", () => {
  it.each([
    ["yaxili96/FactCG-DeBERTa-v3-Large", DEBERTA, "factcg"],
    ["lytang/MiniCheck-RoBERTa-Large", ROBERTA, "minicheck-roberta"],
    ["lytang/MiniCheck-DeBERTa-v3-Large", DEBERTA, "minicheck-deberta"],
    ["lytang/MiniCheck-Flan-T5-Large", T5, "minicheck-flan-t5"],
    ["FamiliarTools/MiniCheck-Flan-T5-Large-onnx", T5, "minicheck-flan-t5"],
    ["vectara/hallucination_evaluation_model", { model_type: "HHEMv2Config" }, "hhem"],
    ["FamiliarTools/HHEM-2.1-Open-onnx", { model_type: "t5", id2label: GENERIC }, "hhem"],
  ])("recognises %s from its hub cache path", (repo, config, recipe) => {
    const choice = recognise(cachePath(repo), config);
    expect(choice.recipe.name).toBe(recipe);
    expect(choice.why).toBe(`hub cache path ${repo}`);
  });

  it("reads the repository name from config.json's _name_or_path when the directory is the user's own", () => {
    const choice = recognise("/srv/models/my-export", { ...DEBERTA, _name_or_path: "yaxili96/FactCG-DeBERTa-v3-Large" });
    expect(choice.recipe.name).toBe("factcg");
    expect(choice.why).toBe("config.json _name_or_path yaxili96/FactCG-DeBERTa-v3-Large");
  });

  it("reads the repository a directory was pulled from (model pull --dir), and ignores a record that names no repo id", () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-pulled-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, ".groundwatch-listing.json"), JSON.stringify({ repo: "lytang/MiniCheck-DeBERTa-v3-Large", revision: "main", sha: "a".repeat(40), graphs: [] }));
    expect(recognise(dir, DEBERTA)).toEqual(expect.objectContaining({ why: "pulled from lytang/MiniCheck-DeBERTa-v3-Large" }));
    expect(recognise(dir, DEBERTA).recipe.name).toBe("minicheck-deberta");
    writeFileSync(join(dir, ".groundwatch-listing.json"), JSON.stringify({ repo: "../factcg" }));
    expect(() => recognise(dir, DEBERTA)).toThrow(/repository name: none/);
  });

  it("does not take a name whose family's model type config.json contradicts (a MiniCheck-RoBERTa name on a DeBERTa config)", () => {
    expect(() => recognise(cachePath("someone/MiniCheck-RoBERTa-Large-retrained"), DEBERTA)).toThrow(/no recipe says how to read this model/);
  });

  it("recognises HHEM from config.json's architectures alone", () => {
    const choice = recognise("/srv/models/x", { architectures: ["HHEMv2ForSequenceClassification"], model_type: "unknown" });
    expect(choice.recipe.name).toBe("hhem");
    expect(choice.why).toBe("config.json architectures HHEMv2ForSequenceClassification");
  });

  it("falls back to the NLI recipe only when config.json's labels map as NLI labels", () => {
    const choice = recognise("/srv/models/nli", NLI);
    expect(choice.recipe.name).toBe("nli");
    expect(choice.why).toMatch(/NLI labels/);
  });

  it("takes a named recipe over everything the files say", () => {
    const choice = recognise(cachePath("lytang/MiniCheck-RoBERTa-Large"), NLI, "factcg");
    expect(choice.recipe.name).toBe("factcg");
    expect(choice.why).toMatch(/named/);
  });

  it("refuses an unknown recipe name with a ConfigError on recipe listing the recipes", () => {
    let error: unknown;
    try {
      recognise("/srv/models/nli", NLI, "minicheck");
    } catch (e) {
      error = e;
    }
    expect(isConfigError(error)).toBe(true);
    expect(isConfigError(error) && error.field).toBe("recipe");
    expect((error as Error).message).toContain("nli, factcg, minicheck-roberta, minicheck-deberta, minicheck-flan-t5, hhem");
  });

  it("refuses a binary model with generic LABEL_0/LABEL_1 and no recognisable name, naming what is missing and how to name a recipe", () => {
    const run = (): unknown => recognise("/srv/models/my-detector", DEBERTA);
    expect(run).toThrow(/id2label \{"0":"LABEL_0","1":"LABEL_1"\}/);
    expect(run).toThrow(/do not say which column means supported/);
    expect(run).toThrow(/repository name: none/);
    expect(run).toThrow(/architectures DebertaV2ForSequenceClassification, model_type deberta-v2/);
    expect(run).toThrow(/--recipe factcg, GROUNDWATCH_RECIPE=factcg, or "recipe": "factcg" in the config file's scoring section \(for model_type deberta-v2: factcg, minicheck-deberta\)/);
  });

  it("suggests a recipe of the model's own type: a RoBERTa binary model is pointed at minicheck-roberta, not FactCG", () => {
    const run = (): unknown => recognise("/srv/models/my-roberta", { architectures: ["RobertaForSequenceClassification"], model_type: "roberta", id2label: { "0": "LABEL_0", "1": "LABEL_1" } });
    expect(run).toThrow(/--recipe minicheck-roberta, GROUNDWATCH_RECIPE=minicheck-roberta/);
    expect(run).not.toThrow(/--recipe factcg/);
  });

  it("names a placeholder where the model's type fits no recipe", () => {
    const run = (): unknown => recognise("/srv/models/my-bert", { model_type: "bert", id2label: { "0": "LABEL_0", "1": "LABEL_1" } });
    expect(run).toThrow(/--recipe NAME, GROUNDWATCH_RECIPE=NAME/);
  });

  it("refuses labels that are neither NLI nor generic with the label error and the way to name a recipe", () => {
    expect(() => recognise("/srv/models/odd", { id2label: { "0": "spam", "1": "ham", "2": "eggs" } })).toThrow(/cannot map the labels .* If this is a detector groundwatch has a recipe for \(factcg, .*\), name it: --recipe NAME/);
  });

  it("reads repository names from a repo id, a hub cache path and _name_or_path, in that order", () => {
    expect(repoNamesOf(cachePath("a/b"), { _name_or_path: "c/d" }, "e/f")).toEqual([
      { name: "e/f", from: "repository" },
      { name: "a/b", from: "hub cache path" },
      { name: "c/d", from: "config.json _name_or_path" },
    ]);
  });

  it("lists every recipe under a distinct name", () => {
    const names = ONNX_RECIPES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
