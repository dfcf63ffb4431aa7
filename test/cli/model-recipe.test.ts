/**
 * `groundwatch model info` shows the recipe that reads a model and why (named by --recipe, or
 * recognised), its template escaped, its chunking, which column means supported and the maximum
 * length; a binary model no recipe fits is refused with the way to name one. `score` takes --recipe.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

const TWO_LABEL = fileURLToPath(new URL("../fixtures/models/two-label/", import.meta.url));

/** The two-label fixture (a BERT graph with two outputs) given a DeBERTa-v3 detector's config.json: generic labels, relative positions. */
function detector(): string {
  const dir = join(tempDir(), "my-detector");
  cpSync(TWO_LABEL, dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...config, architectures: ["DebertaV2ForSequenceClassification"], model_type: "deberta-v2", relative_attention: true, position_biased_input: false, id2label: { "0": "LABEL_0", "1": "LABEL_1" }, label2id: undefined }));
  // DeBERTa-v3's tokenizer_config.json names its eos_token, which MiniCheck's template puts between document and claim.
  const tc = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ ...tc, eos_token: "[SEP]" }));
  return dir;
}

describe("groundwatch model info with recipes", () => {
  it("shows the named recipe, why, its template escaped, chunking, the supported column and the recipe's maximum length", async () => {
    const run = await runCli(["model", "info", detector(), "--recipe", "factcg"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const line = (key: string): string => run.stdout.split("\n").find((l) => l.startsWith(`${key}:`)) ?? "";
    expect(line("recipe")).toMatch(/^recipe: +factcg \(named \(--recipe, GROUNDWATCH_RECIPE or the config file's recipe\)\): FactCG/);
    expect(line("template")).toBe('template:    "{premise}\\n\\nChoose your answer: based on the paragraph above can we conclude that \\"{hypothesis}\\"?\\n\\nOPTIONS:\\n- Yes\\n- No\\nI think the answer is ", read at pooled');
    expect(line("chunking")).toBe('chunking:    premise in chunks of at most 550 word-tokens, sentences joined by "\\n"; the pair\'s score is the largest over its chunks');
    expect(line("labels")).toBe("labels:      0:LABEL_0 1:LABEL_1");
    expect(line("mapping")).toMatch(/^mapping: +supported=1 \(LABEL_1\), not supported=0: entailment = P\(supported\), neutral = 1 − P, contradiction 0/);
    expect(line("max length")).toBe("max length:  2048 tokens");
    expect(line("reference")).toContain("derenlei/FactCG factcg/utils.py:1");
  });

  it("shows the NLI recipe recognised from an NLI model's labels, with the pair template", async () => {
    const run = await runCli(["model", "info", TWO_LABEL]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^recipe: +nli \(config\.json id2label names NLI labels\)/m);
    expect(run.stdout).toMatch(/^template: +the tokenizer's pair template, read at pooled$/m);
    expect(run.stdout).toMatch(/^chunking: +none: one pass, cut to fit$/m);
  });

  it("refuses a binary detector with generic labels and no recognisable name, naming --recipe", async () => {
    const run = await runCli(["model", "info", detector()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no recipe says how to read this model: config\.json's id2label \{"0":"LABEL_0","1":"LABEL_1"\}/);
    expect(run.stderr).toContain("--recipe factcg, GROUNDWATCH_RECIPE=factcg");
  });

  it("refuses an unknown --recipe as a bad value, exit 2, listing the recipes", async () => {
    const run = await runCli(["model", "info", detector(), "--recipe", "minicheck"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid recipe: "minicheck" (not an ONNX recipe; the recipes are nli, factcg, minicheck-roberta, minicheck-deberta, minicheck-flan-t5, hhem)');
  });
});

describe("groundwatch score --recipe", () => {
  it("scores with the recipe named by the flag or GROUNDWATCH_RECIPE, and refuses an unknown one by name", async () => {
    const dir = detector();
    const stdin = `${JSON.stringify({ id: "a", context: ["the museum is open at nine."], answer: "the tower is in paris." })}\n`;
    const flag = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", dir, "--recipe", "minicheck-deberta"], { stdin });
    expect(flag.stderr).not.toMatch(/error/i);
    expect(flag.code).toBe(0);
    const row = JSON.parse(flag.stdout.trim()) as { backend: { version: string }; claims: Array<{ score: number }> };
    expect(row.backend.version).toMatch(/ recipe minicheck-deberta$/);
    const env = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", dir], { stdin, env: { GROUNDWATCH_RECIPE: "minicheck-deberta" } });
    expect((JSON.parse(env.stdout.trim()) as typeof row).claims[0]?.score).toBe(row.claims[0]?.score);
    const bad = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", dir, "--recipe", "minicheck"], { stdin });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid recipe: "minicheck"');
  });
});
