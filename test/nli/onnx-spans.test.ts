/**
 * The ONNX tier's span detector held to scripts/onnx_spans.py: a random-weight token classifier in
 * LettuceDetect's layout (ModernBERT byte-level BPE, [CLS] prompt [SEP] answer [SEP], 8,192
 * positions, LABEL_0/LABEL_1) whose per-token probabilities numpy computed and whose offsets the
 * python tokenizer computed from their definition, for QA and summary prompts, accents, decomposed
 * characters, CJK, emoji, odd spacing, a three-group input and a cut one.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";
import { afterAll, describe, expect, it } from "vitest";
import type { SpanInput } from "../../src/core/backend.ts";
import { isConfigError } from "../../src/config/errors.ts";
import type { OnnxSpanDetector } from "../../src/nli/onnx/span-detector.ts";
import { createOnnxSpanDetector, describeSpanModel, isSpanModelDir } from "../../src/nli/onnx/span-detector.ts";
import { spanLabels } from "../../src/nli/onnx/span-labels.ts";
import { SPAN_PROMPTS, spanPrompt, spanPromptLanguage } from "../../src/nli/onnx/span-prompt.ts";
import { loadOnnxRuntime } from "../../src/nli/onnx/runtime.ts";
import { CPUS } from "../helpers/hub-layouts.ts";

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));
const DIR = join(MODELS, "spans", "lettucedetect-modernbert");
const TOLERANCE = 1e-4;

interface Case {
  name: string;
  question: string | null;
  passages: string[];
  answer: string;
  max_length: number;
  groups: number[];
  runs: number;
  truncated_tokens: number;
  input_ids: number[][];
  answer_ids: number[];
  offsets: Array<[number, number]>;
  tokens: Array<{ start: number; end: number; probability: { fp32: number; int8: number } }>;
}
const REFERENCE = JSON.parse(readFileSync(join(DIR, "reference.json"), "utf8")) as { default_max_length: number; cases: Case[] };
const inputOf = (c: Case): SpanInput => ({ answer: c.answer, passages: c.passages, ...(c.question === null ? {} : { question: c.question }) });
const byMaxLength = (): Map<number, Case[]> => {
  const out = new Map<number, Case[]>();
  for (const c of REFERENCE.cases) out.set(c.max_length, [...(out.get(c.max_length) ?? []), c]);
  return out;
};

const detectors: OnnxSpanDetector[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(detectors.map((d) => d.close()));
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
async function detector(options: Partial<Parameters<typeof createOnnxSpanDetector>[0]> = {}, inThread = false): Promise<OnnxSpanDetector> {
  const deps = inThread ? { runtime: await loadOnnxRuntime() } : {};
  const d = await createOnnxSpanDetector({ dir: DIR, threads: 1, cpu: CPUS.avx2, variant: "fp32", ...options }, deps);
  detectors.push(d);
  return d;
}

function expectMatches(got: Awaited<ReturnType<OnnxSpanDetector["detect"]>>[number], c: Case, variant: "fp32" | "int8"): void {
  expect(got.runs).toBe(c.runs);
  expect(got.truncatedTokens ?? 0).toBe(c.truncated_tokens);
  expect(got.tokens.map((t) => [t.start, t.end])).toEqual(c.tokens.map((t) => [t.start, t.end]));
  got.tokens.forEach((t, i) => expect(Math.abs(t.probability - (c.tokens[i]?.probability[variant] ?? NaN))).toBeLessThan(TOLERANCE));
}

describe("the span detector's prompt", () => {
  it("is the model input the reference builds: [CLS] prompt [SEP] answer [SEP], QA and summary templates, each group numbered", () => {
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(DIR, "tokenizer.json"), "utf8")), JSON.parse(readFileSync(join(DIR, "tokenizer_config.json"), "utf8")));
    const lang = spanPromptLanguage("en");
    for (const c of REFERENCE.cases.filter((x) => x.truncated_tokens === 0)) {
      let from = 0;
      c.groups.forEach((size, g) => {
        const prompt = spanPrompt(lang, c.passages.slice(from, from + size), c.question ?? undefined);
        from += size;
        expect([...tokenizer.encode(prompt, { text_pair: c.answer }).ids], `${c.name} group ${g}`).toEqual(c.input_ids[g]);
      });
    }
  });

  it("fills the slots in one pass: a passage holding ${question} stays as written", () => {
    const prompt = spanPrompt(spanPromptLanguage("en"), ["costs ${question} and $num_passages"], "Q?");
    expect(prompt).toContain("passage 1: costs ${question} and $num_passages");
    expect(prompt.startsWith("Briefly answer the following question:\nQ?\nBear in mind")).toBe(true);
    expect(prompt.endsWith('"Unable to answer based on given passages."\noutput:')).toBe(true);
  });

  it("has each language's passage word and the summary prompt without a question", () => {
    expect(Object.keys(SPAN_PROMPTS).sort()).toEqual(["cn", "de", "en", "es", "fr", "hu", "it", "pl"]);
    expect(spanPrompt(spanPromptLanguage("de"), ["a", "b"], undefined)).toBe("Fasse den folgenden Text zusammen:\nPassage 1: a\nPassage 2: b\nAusgabe:\n");
    expect(spanPrompt(spanPromptLanguage("cn"), ["甲"], "问?")).toContain("以下1段落：\n段落 1: 甲\n");
    expect(() => spanPromptLanguage("xx")).toThrow(/en, de, fr, es, it, pl, cn, hu/);
  });
});

describe("the onnx span detector", () => {
  it("scores every answer token as numpy does, at the offsets python computed, in worker threads with answers batched and padded", async () => {
    for (const [maxLength, cases] of byMaxLength()) {
      const d = await detector(maxLength === REFERENCE.default_max_length ? {} : { maxLength });
      const before = await d.stats();
      const got = await d.detect(cases.map(inputOf));
      cases.forEach((c, i) => expectMatches(got[i] as (typeof got)[number], c, "fp32"));
      // Every answer's every group in one padded session.run (at most maxBatch, 8, rows).
      const after = await d.stats();
      expect([after.runs - before.runs, after.pairs - before.pairs]).toEqual([1, cases.reduce((n, c) => n + c.runs, 0)]);
    }
  });

  it("reads the int8 graph as numpy's int8 reference does (batch of one)", async () => {
    for (const [maxLength, cases] of byMaxLength()) {
      const d = await detector({ variant: "int8", maxBatch: 1, ...(maxLength === REFERENCE.default_max_length ? {} : { maxLength }) }, true);
      expect(d.info.graph).toBe("onnx/model_int8.onnx");
      const got = await d.detect(cases.map(inputOf));
      cases.forEach((c, i) => expectMatches(got[i] as (typeof got)[number], c, "int8"));
    }
  });

  it("splits passages that do not fit together into groups, one run each, and keeps each token's highest probability", async () => {
    const c = REFERENCE.cases.find((x) => x.name === "groups") as Case;
    expect(c.groups).toEqual([1, 2, 1]);
    const d = await detector({ maxLength: c.max_length }, true);
    const before = (await d.stats()).pairs;
    const [got] = await d.detect([inputOf(c)]);
    expect(got?.runs).toBe(3);
    expect((await d.stats()).pairs - before).toBe(3);
    // The max over groups: a token no lower than in any one group (each group alone is a one-passage input).
    expectMatches(got as NonNullable<typeof got>, c, "fp32");
  });

  it("describes itself: onnx-spans, production, the graph's hash in its version, threshold 0.5, the reference's 4,096 tokens unless told", async () => {
    const d = await detector({}, true);
    expect(d.name).toBe("onnx-spans");
    expect(d.tier).toBe("production");
    expect(d.recommendedSpanThreshold).toBe(0.5);
    expect(d.version).toMatch(/^spans\/lettucedetect-modernbert:onnx\/model\.onnx@[0-9a-f]{12}$/);
    expect(d.info.maxLength).toBe(4096);
    expect(d.info.labels).toEqual({ unsupported: 1, names: ["LABEL_0", "LABEL_1"] });
    expect(await d.detect([])).toEqual([]);
    expect(await d.detect([{ answer: "", passages: ["The museum opens at nine."] }, { answer: "   ", passages: [] }])).toEqual([
      { tokens: [], runs: 1 },
      { tokens: [], runs: 1 },
    ]);
    // Read from the files alone, for `model info`: the same graph, labels and length.
    const described = describeSpanModel({ dir: DIR, variant: "fp32", cpu: CPUS.avx2 });
    expect([described.graph, described.graphSha256, described.maxLength]).toEqual([d.info.graph, d.info.graphSha256, 4096]);
    expect(described.labels.unsupported).toBe(1);
    expect(describeSpanModel({ dir: DIR, variant: "int8", cpu: CPUS.avx2, maxLength: 8192 })).toMatchObject({ graph: "onnx/model_int8.onnx", maxLength: 8192 });
  });

  it("reads ModernBERT's 8,192-token context whole: an input just under it runs once, uncut, and one past it is cut to 8,192", async () => {
    const d = await detector({ maxLength: 8192 }, true);
    expect(d.info.maxLength).toBe(8192);
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(DIR, "tokenizer.json"), "utf8")), {});
    const count = (t: string): number => tokenizer.encode(t, { add_special_tokens: false }).ids.length;
    const answer = "The museum opens at ten.";
    const unit = " The museum opens at nine.";
    const overhead = count(spanPrompt(spanPromptLanguage("en"), [""], "When?")) + count(answer) + 3;
    const perUnit = count(unit.repeat(10)) / 10;
    const passage = unit.repeat(Math.floor((8192 - overhead - 8) / perUnit)).trim();
    const total = count(spanPrompt(spanPromptLanguage("en"), [passage], "When?")) + count(answer) + 3;
    expect(total).toBeGreaterThan(8100);
    expect(total).toBeLessThanOrEqual(8192);
    const [whole, cut] = await d.detect([
      { answer, passages: [passage], question: "When?" },
      { answer, passages: [`${passage}${unit.repeat(20)}`], question: "When?" },
    ]);
    expect(whole?.runs).toBe(1);
    expect(whole?.truncatedTokens).toBeUndefined();
    expect(whole?.tokens.map((t) => answer.slice(t.start, t.end))).toEqual(["The", "museum", "opens", "at", "ten", "."]);
    expect(cut?.runs).toBe(1);
    expect(cut?.truncatedTokens).toBe(total + count(unit.repeat(20)) - 8192);
    expect(cut?.tokens).toHaveLength(6);
  });

  it("withdraws an aborted call: rejects with the signal's reason, never a made-up probability", async () => {
    const d = await detector();
    const controller = new AbortController();
    controller.abort(new Error("observation cancelled"));
    await expect(d.detect([inputOf(REFERENCE.cases[0] as Case)], { signal: controller.signal })).rejects.toThrow("observation cancelled");
  });
});

describe("what is a span model", () => {
  it("names the unsupported class from id2label: hallucinated by name, generic LABEL_1 as class 1, anything else refused", () => {
    expect(spanLabels({ id2label: { 0: "hallucinated", 1: "supported" } }, "m").unsupported).toBe(0);
    expect(spanLabels({ id2label: { 1: "LABEL_1", 0: "LABEL_0" } }, "m").unsupported).toBe(1);
    expect(spanLabels({ label2id: { ok: 0, unsupported: 1 } }, "m").unsupported).toBe(1);
    expect(spanLabels({}, "m").unsupported).toBe(1);
    expect(() => spanLabels({ id2label: { 0: "entailment", 1: "neutral", 2: "contradiction" } }, "m")).toThrow(/name no unsupported class/);
    expect(() => spanLabels({ id2label: { 0: "LABEL_0" } }, "m")).toThrow(/1 label/);
  });

  it("is a directory whose config.json names a token classifier, or whose repository is LettuceDetect's or TinyLettuce's", () => {
    expect(isSpanModelDir(DIR)).toBe(true);
    expect(isSpanModelDir(join(MODELS, "bert-wordpiece"))).toBe(false);
    expect(isSpanModelDir(join(MODELS, "no-such-model"))).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), "gw-spans-"));
    dirs.push(dir);
    const named = join(dir, "models--KRLabsOrg--tinylettuce-ettin-17m-en", "snapshots", "abc");
    cpSync(join(MODELS, "bert-wordpiece"), named, { recursive: true });
    expect(isSpanModelDir(named)).toBe(true);
    // The Hub spells LettuceDetect's repositories "lettucedect".
    const hub = join(dir, "models--KRLabsOrg--lettucedect-base-modernbert-en-v1", "snapshots", "abc");
    cpSync(join(MODELS, "bert-wordpiece"), hub, { recursive: true });
    expect(isSpanModelDir(hub)).toBe(true);
  });

  it("refuses a sequence classifier and an unknown language as ConfigErrors naming the field", async () => {
    const nli = await createOnnxSpanDetector({ dir: join(MODELS, "bert-wordpiece"), cpu: CPUS.avx2 }).catch((e: unknown) => e);
    expect(isConfigError(nli) && nli.field).toBe("spanModel");
    const lang = await createOnnxSpanDetector({ dir: DIR, language: "xx", cpu: CPUS.avx2 }).catch((e: unknown) => e);
    expect(isConfigError(lang) && lang.field).toBe("spanLanguage");
    const workers = await createOnnxSpanDetector({ dir: DIR, workers: 0, cpu: CPUS.avx2 }).catch((e: unknown) => e);
    expect(isConfigError(workers) && workers.field).toBe("spanWorkers");
  });

  it("refuses a graph that answers with one row of logits per input (a sequence classifier without architectures)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-spans-"));
    dirs.push(dir);
    cpSync(join(MODELS, "two-label"), dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(dir, "config.json"), JSON.stringify({ ...config, architectures: undefined, id2label: { 0: "LABEL_0", 1: "LABEL_1" } }));
    await expect(createOnnxSpanDetector({ dir, cpu: CPUS.avx2 }, { runtime: await loadOnnxRuntime() })).rejects.toThrow(/a sequence classifier is not a span detector/);
  });
});
