"""Recipe fixtures: random-weight graphs of the sequence-classification detectors (FactCG-DeBERTa,
MiniCheck-DeBERTa, MiniCheck-RoBERTa) in the Hub export layout, and a numpy reference of each
whole recipe (input text, token ids, chunks, cut, logits, P(supported), max over chunks), written
from the agreed recipe semantics (issue 38), not from groundwatch's code:

  - input text: the recipe's template with {premise}, {hypothesis} and {eos} filled, tokenised
    whole with the single-text template;
  - chunking: the premise split into sentences (line breaks, and whitespace after . ! ?; each
    sentence trimmed, empty ones dropped), packed greedily in order while the chunk's size plus
    the sentence's stays <= size (a sentence larger than size is a chunk alone), joined with the
    recipe's joiner. Units: `tokens` (the tokenizer's ids without special tokens), `word-tokens`
    (matches of [\\p{L}\\p{N}_]+|[^\\p{L}\\p{N}_\\s]);
  - cut: a chunk whose input exceeds the maximum keeps its longest word prefix that fits (binary
    search on the word count; the kept text ends where its last word ends);
  - reading: softmax of the pooled logits, column 1 = supported; the pair's P = max over chunks.

The maximum lengths are the recipes' own (2048 for the DeBERTa families, 512 for RoBERTa). The
long premises reach them through the tiny vocabularies: a word the vocabulary lacks is spelt out
one character (DeBERTa) or about one byte (RoBERTa: words of rare letters that the fixture's 120
merges never join) per token, so a 400-word sentence is about 3,200 tokens.

  /usr/bin/python3 scripts/onnx_fixtures.py recipes test/fixtures/models/recipes
  /usr/bin/python3 scripts/onnx_fixtures.py shape-deberta CACHE_DIR [--int8] [--layers 24 ...]
"""
import json
import math
import os
import re

import numpy as np
import onnx

import onnx_encoders as enc
import onnx_fixtures as base
import onnx_tokenizers as tok

# derenlei/FactCG factcg/utils.py line 1 (INSTRUCTION_TEMPLATE), with {text_a}/{text_b} as {premise}/{hypothesis}.
FACTCG_TEMPLATE = '{premise}\n\nChoose your answer: based on the paragraph above can we conclude that "{hypothesis}"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is '
# Liyan06/MiniCheck minicheck/inference.py: self.tokenizer.eos_token.join([one_doc, one_claim]).
MINICHECK_TEMPLATE = "{premise}{eos}{hypothesis}"

ROOMS = " ".join(f"Room {i} opens at nine and closes at six." for i in range(1, 71))


def odd_words(count, seed=5):
    """Words of rare letters, absent from every vocabulary (spelt out piece by piece)."""
    rng = np.random.default_rng(seed)
    letters = "qxzjkvw"
    return " ".join("".join(letters[k] for k in rng.integers(0, len(letters), 6 + i % 3)) for i in range(count))


PAIRS = [
    ("The tower is in Paris.", "The tower is in Paris."),
    ("The tower was built in 1889 in Paris, the capital of France.", "The tower is in Berlin."),
    ("Refunds are issued within five business days.\nShipping is free!", "Refunds take five days."),
    (ROOMS, "Room 12 opens at nine."),  # long: two or more chunks
    ("The museum opens at nine. " + odd_words(400) + ".", "The museum opens at nine."),  # one sentence far over the maximum: cut
]
VOCAB_TEXTS = [t for a, b in PAIRS[:4] for t in (a, b)]

FAMILIES = {
    "factcg": {"recipe": "factcg", "arch": "deberta", "template": FACTCG_TEMPLATE, "max_length": 2048,
               "chunking": {"unit": "word-tokens", "size": 550, "joiner": "\n"}, "seed": 31, "int8": True},
    "minicheck-deberta": {"recipe": "minicheck-deberta", "arch": "deberta", "template": MINICHECK_TEMPLATE, "max_length": 2048,
                          "chunking": {"unit": "tokens", "size": 400, "joiner": " "}, "seed": 32},
    "minicheck-roberta": {"recipe": "minicheck-roberta", "arch": "roberta", "template": MINICHECK_TEMPLATE, "max_length": 512,
                          "chunking": {"unit": "tokens", "size": 400, "joiner": " "}, "seed": 33},
}


# ---------------------------------------------------------------- the recipe, in python

def sentences(premise):
    out = []
    for line in re.split(r"\r?\n", premise):
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]
    return out


def word_tokens(text):
    return len(re.findall(r"\w+|[^\w\s]", text))


def chunk_premise(premise, chunking, encode_plain):
    measure = word_tokens if chunking["unit"] == "word-tokens" else (lambda s: len(encode_plain(s)))
    chunks, current, size = [], [], 0
    for s in sentences(premise):
        n = measure(s)
        if current and size + n > chunking["size"]:
            chunks.append(chunking["joiner"].join(current))
            current, size = [], 0
        current.append(s)
        size += n
    if current:
        chunks.append(chunking["joiner"].join(current))
    return chunks


def fit(chunk, hypothesis, family, eos, encode):
    """The chunk's input text and ids, the premise cut to its longest word prefix that fits."""
    render = lambda p: family["template"].format(premise=p, hypothesis=hypothesis, eos=eos)  # noqa: E731
    ids = encode(render(chunk))
    if len(ids) <= family["max_length"]:
        return render(chunk), ids, 0
    ends = [m.end() for m in re.finditer(r"\S+", chunk)]
    lo, hi = 0, len(ends) - 1  # the most words that fit lies in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(encode(render(chunk[:ends[mid - 1]]))) <= family["max_length"]:
            lo = mid
        else:
            hi = mid - 1
    kept = chunk[:ends[lo - 1]] if lo > 0 else ""
    cut = encode(render(kept))
    assert len(cut) <= family["max_length"], "the hypothesis and template alone exceed the maximum"
    return render(kept), cut, len(ids) - len(cut)


def softmax(v):
    e = np.exp(np.asarray(v, dtype=np.float64) - np.max(v))
    return e / e.sum()


# ---------------------------------------------------------------- writing a family

def tokenizer_for(arch):
    """(tokenizer.json, tokenizer_config.json, encode with specials, encode without, eos, vocab size)."""
    if arch == "deberta":
        words = [re.sub(r"[^\w]", "", w) for t in VOCAB_TEXTS for w in t.split()]
        texts = [t for a, b in PAIRS for t in (a, b)] + [FACTCG_TEMPLATE]
        pieces = tok.deberta_vocab([w for w in words if w], texts)
        return (tok.deberta_tokenizer_json(pieces), tok.deberta_tokenizer_config(), lambda t: tok.deberta_encode(t, pieces),
                lambda t: tok.deberta_encode(t, pieces, special=False), "[SEP]", len(pieces) + 1)
    bpe = tok.roberta_bpe(VOCAB_TEXTS)
    return (tok.roberta_tokenizer_json(bpe), tok.roberta_tokenizer_config(), lambda t: tok.roberta_encode(bpe, t),
            lambda t: tok.roberta_encode(bpe, t, special=False), "</s>", len(bpe.vocab))


def write_json(path, obj, indent=None):
    with open(path, "w") as f:
        json.dump(obj, f, ensure_ascii=False, indent=indent)


def write_family(out, name, family):
    tok_json, tok_config, encode, encode_plain, eos, vocab = tokenizer_for(family["arch"])
    cfg = enc.deberta_config(vocab) if family["arch"] == "deberta" else enc.roberta_config(vocab)
    if family["arch"] == "deberta":
        enc.check_bucket_margin(cfg, family["max_length"])
    p = enc.make_weights(cfg, family["seed"])
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "onnx"), exist_ok=True)
    graph = os.path.join(d, "onnx", "model.onnx")
    onnx.save(enc.build_graph(cfg, p), graph)
    if family.get("int8"):
        onnx.save(base.quantize_dynamic(onnx.load(graph)), os.path.join(d, "onnx", "model_quantized.onnx"))
    write_json(os.path.join(d, "config.json"), enc.hf_config(cfg, ["LABEL_0", "LABEL_1"]), indent=2)
    write_json(os.path.join(d, "tokenizer.json"), tok_json)
    write_json(os.path.join(d, "tokenizer_config.json"), tok_config, indent=2)
    rows = []
    for premise, hypothesis in PAIRS:
        chunks, probs, probs8 = [], [], []
        for chunk in chunk_premise(premise, family["chunking"], encode_plain):
            text, ids, truncated = fit(chunk, hypothesis, family, eos, encode)
            logits = enc.reference_logits(cfg, p, ids)
            entry = {"text": text, "ids": ids, "truncated": truncated, "logits": [float(x) for x in logits]}
            probs.append(float(softmax(logits)[1]))
            if family.get("int8"):
                int8 = enc.reference_logits(cfg, p, ids, dtype=np.float32, matmul=base.int8_matmul(False))
                entry["logits_int8"] = [float(x) for x in int8]
                probs8.append(float(softmax(int8)[1]))
            chunks.append(entry)
        best = max(probs)
        row = {"premise": premise, "hypothesis": hypothesis, "chunks": chunks, "best_chunk": probs.index(best),
               "supported": best, "entailment": best, "neutral": 1 - best, "contradiction": 0}
        if probs8:
            row["supported_int8"] = max(probs8)
        rows.append(row)
        print(f"  {name}: {len(chunks)} chunk(s), lengths {[len(c['ids']) for c in chunks]}, cut {[c['truncated'] for c in chunks]}")
    graphs = {"fp32": "onnx/model.onnx", **({"int8": "onnx/model_quantized.onnx"} if family.get("int8") else {})}
    ref = {"recipe": family["recipe"], "template": family["template"], "eos": eos, "max_length": family["max_length"],
           "chunking": family["chunking"], "graphs": graphs, "rows": rows}
    write_json(os.path.join(d, "reference.json"), ref)
    print(f"wrote {d}")


def write_recipes(out):
    for name, family in FAMILIES.items():
        write_family(out, name, family)


def write_shape_deberta(out, args):
    """DeBERTa-v3-large's shape (24 layers, hidden 1024, 16 heads, 4096, vocab 128100, 256 buckets)
    with random weights, for bench:nli, with --int8 also onnx/model_int8.onnx; with the fixture's small
    tokenizer (ids stay under 128100). The full shape writes a 1.74 GB fp32 graph and a 0.83 GB
    int8 one, and needs about 10 GB of memory while building."""
    tok_json, tok_config, *_ = tokenizer_for("deberta")
    cfg = enc.deberta_config(args.vocab, hidden=args.hidden, heads=args.heads, intermediate=args.intermediate, layers=args.layers, buckets=args.buckets)
    p = enc.make_weights(cfg, 0)
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    graph = os.path.join(out, "onnx", "model.onnx")
    onnx.save(enc.build_graph(cfg, p), graph)
    del p
    if args.int8:
        # onnx/model_int8.onnx, as `shape --int8` names it for bench/models.ts.
        onnx.save(base.quantize_dynamic(onnx.load(graph), args.per_channel), os.path.join(out, "onnx", "model_int8.onnx"))
    write_json(os.path.join(out, "config.json"), enc.hf_config(cfg, ["LABEL_0", "LABEL_1"]), indent=2)
    write_json(os.path.join(out, "tokenizer.json"), tok_json)
    write_json(os.path.join(out, "tokenizer_config.json"), tok_config, indent=2)
    print(f"wrote {out}")


def write_byte_level_checks(out):
    """test/fixtures/tokenizers/: a ModernBERT-style tokenizer.json, and the python encoder's ids
    for texts (non-ASCII, emoji, special tokens inside the text, pairs) under both byte-level
    tokenizers, for test/nli/byte-level-bpe.test.ts to hold @huggingface/tokenizers to."""
    texts = ["The tower is in Paris.", "doc</s>claim", "Refunds take five days.</s>Shipping is free!", "café naïve résumé — “quoted” ‘ok’",
             "Zürich 3°C, 10 €; 東京タワー", "emoji 🙂 and 👍🏽 and 🇫🇷!", "  leading and   inner  spaces \n\n new\tlines  ",
             "don't we'll it's THEY'RE", "numbers 1889 12,345.67 and 1/2", "e\u0301 composed later", "tabs\tand\u00a0nbsp", "[CLS] inside [SEP] text"]
    pairs = [("The tower was built in 1889.", "The tower is in Berlin."), ("café 🙂", "naïve")]
    corpus = VOCAB_TEXTS + texts
    roberta = tok.roberta_bpe(corpus)
    modern = tok.modernbert_bpe(corpus)
    d = os.path.join(out, "modernbert-bpe")
    os.makedirs(d, exist_ok=True)
    write_json(os.path.join(d, "tokenizer.json"), tok.modernbert_tokenizer_json(modern))
    write_json(os.path.join(d, "tokenizer_config.json"), {"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]", "unk_token": "[UNK]", "model_max_length": 8192, "tokenizer_class": "PreTrainedTokenizerFast"}, indent=2)
    d = os.path.join(out, "roberta-bpe")
    os.makedirs(d, exist_ok=True)
    write_json(os.path.join(d, "tokenizer.json"), tok.roberta_tokenizer_json(roberta))
    write_json(os.path.join(d, "tokenizer_config.json"), tok.roberta_tokenizer_config(), indent=2)

    def cases(encode):
        return ([{"text": t, "ids": encode(t)} for t in texts] +
                [{"text": a, "pair": b, "ids": encode(a, b)} for a, b in pairs])
    write_json(os.path.join(out, "byte-level-reference.json"), {
        "roberta-bpe": cases(lambda a, b=None: tok.roberta_encode(roberta, a, b)),
        "modernbert-bpe": cases(lambda a, b=None: tok.modernbert_encode(modern, a, b)),
    }, indent=1)
    print(f"wrote {out}")
