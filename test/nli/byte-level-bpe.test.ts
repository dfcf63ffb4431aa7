/**
 * Byte-level BPE verified, not assumed: @huggingface/tokenizers encodes RoBERTa-style and
 * ModernBERT-style tokenizer.json files exactly as scripts/onnx_tokenizers.py does from the
 * format's definition (GPT-2's byte table and split pattern, merges by rank), on text with
 * accents, decomposed characters, CJK, emoji with modifiers and flags, odd spacing and special
 * tokens written inside the text.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";
import { describe, expect, it } from "vitest";

const DIR = fileURLToPath(new URL("../fixtures/tokenizers/", import.meta.url));
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(`${DIR}${path}`, "utf8")) as Record<string, unknown>;

interface Case {
  readonly text: string;
  readonly pair?: string;
  readonly ids: readonly number[];
}

const REFERENCE = readJson("byte-level-reference.json") as unknown as Record<"roberta-bpe" | "modernbert-bpe", readonly Case[]>;
const tokenizerOf = (name: string): Tokenizer => new Tokenizer(readJson(`${name}/tokenizer.json`), readJson(`${name}/tokenizer_config.json`));

describe.each(["roberta-bpe", "modernbert-bpe"] as const)("%s tokenizer.json", (name) => {
  const tokenizer = tokenizerOf(name);

  it.each(REFERENCE[name].map((c) => [c.pair === undefined ? JSON.stringify(c.text) : `${JSON.stringify(c.text)} + ${JSON.stringify(c.pair)}`, c] as const))(
    "encodes %s as the python reference does",
    (_, c) => {
      const encoding = c.pair === undefined ? tokenizer.encode(c.text) : tokenizer.encode(c.text, { text_pair: c.pair });
      expect(encoding.ids).toEqual(c.ids);
    },
  );

  it("spells an emoji out as its UTF-8 bytes where no merge joins them", () => {
    // 🙂 is F0 9F 99 82: without merges, four byte tokens (the byte characters of GPT-2's table).
    const ids = tokenizer.encode("🙂", { add_special_tokens: false }).ids;
    expect(ids.length).toBeGreaterThan(1);
    expect(ids.length).toBeLessThanOrEqual(4);
    expect(tokenizer.decode(ids)).toBe("🙂");
  });
});

describe("byte-level special tokens", () => {
  it("splits RoBERTa's </s> written inside a text out as the special token (MiniCheck's doc</s>claim)", () => {
    const tokenizer = tokenizerOf("roberta-bpe");
    const eos = tokenizer.token_to_id("</s>");
    const ids = tokenizer.encode("doc</s>claim").ids;
    expect(ids[0]).toBe(tokenizer.token_to_id("<s>"));
    expect(ids.filter((id: number) => id === eos)).toHaveLength(2);
    expect(ids.at(-1)).toBe(eos);
    expect(tokenizer.decode(ids, { skip_special_tokens: true })).toBe("docclaim");
  });

  it("wraps ModernBERT's single text in [CLS] … [SEP] and a pair in [CLS] A [SEP] B [SEP]", () => {
    const tokenizer = tokenizerOf("modernbert-bpe");
    const [cls, sep] = [tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")];
    const single = tokenizer.encode("a b").ids;
    expect([single[0], single.at(-1)]).toEqual([cls, sep]);
    const pair = tokenizer.encode("a", { text_pair: "b" }).ids;
    expect(pair.filter((id: number) => id === sep)).toHaveLength(2);
    expect(pair[0]).toBe(cls);
  });
});
