/**
 * Token offsets found by walking the text (token-offsets.ts), since @huggingface/tokenizers gives
 * none: held to the offsets scripts/onnx_tokenizers.py computes from their definition for the span
 * fixture's ModernBERT tokenizer, checked on the WordPiece and Metaspace fixtures by reading each
 * token back out of the text, and linear in the text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";
import { describe, expect, it } from "vitest";
import type { TokenOffset } from "../../src/nli/onnx/token-offsets.ts";
import { createTokenAligner } from "../../src/nli/onnx/token-offsets.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

function load(dir: string): { tokenizer: Tokenizer; offsets: (text: string) => { tokens: string[]; offsets: TokenOffset[] } } {
  const json = readJson(join(dir, "tokenizer.json"));
  const tokenizer = new Tokenizer(json, readJson(join(dir, "tokenizer_config.json")));
  const aligner = createTokenAligner(json);
  return {
    tokenizer,
    offsets: (text) => {
      const tokens = [...tokenizer.encode(text, { add_special_tokens: false }).tokens];
      return { tokens, offsets: aligner.offsets(text, tokens) };
    },
  };
}

describe("byte-level BPE offsets (ModernBERT)", () => {
  const dir = join(MODELS, "spans", "lettucedetect-modernbert");
  const { offsets } = load(dir);
  const cases = (readJson(join(dir, "reference.json")).cases as Array<{ name: string; answer: string; offsets: Array<[number, number]> }>);

  it.each(cases.map((c) => [c.name, c] as const))("are python's for the %s answer (tokens of whitespace alone cover nothing)", (_, c) => {
    const got = offsets(c.answer).offsets.map((o) => o ?? null);
    expect(got).toEqual(c.offsets.map(([s, e]) => (s === e ? null : [s, e])));
  });

  it("gives each byte piece of one character the whole character, in UTF-16 units (emoji, flags, a decomposed é)", () => {
    const text = "e\u0301 🙂 🇫🇷";
    const got = offsets(text).offsets.filter((o): o is readonly [number, number] => o !== null).map(([s, e]) => text.slice(s, e));
    expect(new Set(got)).toEqual(new Set(["e\u0301", "🙂", "🇫", "🇷"]));
  });

  it("keeps Hangul jamo the normaliser composes together, and finds the words after them", () => {
    // ᄀ + ᅡ (two code points) is 가 after NFC: one unit of the original text, the text after it still found.
    const text = "\u1100\u1161 opens at nine";
    const got = offsets(text).offsets.filter((o): o is readonly [number, number] => o !== null).map(([s, e]) => text.slice(s, e));
    expect(got[0]).toBe("\u1100\u1161");
    expect(got.slice(1).join(" ")).toMatch(/opens.*at.*nine/);
    expect(got.at(-1)?.endsWith("nine") || got.at(-1) === "e").toBe(true);
  });

  it("finds a special token written inside the answer as its own text", () => {
    const text = "before [SEP] after";
    const { tokens, offsets: got } = offsets(text);
    const at = tokens.indexOf("[SEP]");
    expect(at).toBeGreaterThan(0);
    const o = got[at] as readonly [number, number];
    expect(text.slice(o[0], o[1])).toBe("[SEP]");
    const after = got.slice(at + 1).filter((x): x is readonly [number, number] => x !== null);
    expect(after.map(([s, e]) => text.slice(s, e)).join("")).toBe("after");
  });

  it("walks the answer in linear time", () => {
    const unit = "Café e\u0301 東京タワー 🙂👍🏽 opens at nine.  ";
    const growth = measureGrowth((n) => unit.repeat(n), (text) => offsets(text), { n: 8 });
    expectLinear("offsets of N mixed-script units", growth);
  });
});

describe("cursor offsets (WordPiece, Metaspace)", () => {
  it.each([
    ["bert-wordpiece", "The Tower was built in 1889, in PARIS; refunds jumped quickly."],
    ["deberta-unigram", "  The tower was built in 1889 in Paris.  Refunds take five days. "],
  ])("read each %s token back out of the text at its offsets", (name, text) => {
    const { tokens, offsets: got } = load(join(MODELS, name)).offsets(text);
    expect(got.every((o) => o !== null || /^[\u2581 ]*$/.test(tokens[got.indexOf(o)] ?? ""))).toBe(true);
    tokens.forEach((t, i) => {
      const o = got[i];
      if (!o || t === "[UNK]" || t === "<unk>") return;
      expect(text.slice(o[0], o[1]).toLowerCase()).toBe(t.replace(/^##/, "").replace(/^\u2581/, "").toLowerCase());
    });
    const covered = got.filter((o): o is readonly [number, number] => o !== null);
    covered.forEach((o, i) => expect(o[0]).toBeGreaterThanOrEqual(i === 0 ? 0 : (covered[i - 1] as readonly [number, number])[1]));
  });
});
