"""The T5 detector fixtures: a tiny T5-style tokenizer (Unigram, Metaspace, `$A </s>` template)
with a python mirror of it, the HHEM-2.1-Open and MiniCheck-Flan-T5 recipes computed whole in
numpy (template -> ids, chunking, cut to fit, head position, label mapping, max over chunks), and
the benchmark shapes (t5-base and flan-t5-base encoders, flan-t5-large encoder + decoder).

  /usr/bin/python3 scripts/onnx_fixtures.py t5 OUT_DIR          # recipes/hhem, recipes/minicheck-flan-t5, recipes/flan-t5-base-tokenizer
  /usr/bin/python3 scripts/onnx_fixtures.py shape-t5 OUT_DIR --preset flan-t5-large [--int8]

The recipe semantics mirrored here are the ones agreed for issue 38 (one text from the template with
{premise}, {hypothesis} and {eos}; sentences split at line breaks and at whitespace after . ! ?;
chunks packed greedily up to `size` words and joined with " "; a chunk too long for the maximum
length loses its trailing words, as many as needed and no more, found by binary search; the
pair's P(supported) is the max over its chunks).
"""
import json
import math
import os
import re

import numpy as np
import onnx

import onnx_t5 as t5

SPM = "\u2581"
SPECIALS = ["<pad>", "</s>", "<unk>"]
VOCAB_SIZE = 300

# HHEM-2.1-Open's prompt (vectara/hallucination_evaluation_model, HHEMv2Config.prompt; the model card's usage).
HHEM_TEMPLATE = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {premise}\n\nHypothesis: {hypothesis}"
# MiniCheck-Flan-T5 (Liyan06/MiniCheck minicheck/inference.py: 'predict: ' + eos_token.join([doc, claim])).
MINICHECK_TEMPLATE = "predict: {premise}{eos}{hypothesis}"
MINICHECK_LABEL_IDS = (3, 209)  # inference.py: "3 for no support and 209 for support"
MINICHECK_MAX_LENGTH = 2048
MINICHECK_CHUNK_WORDS = 500

SENTENCES = [
    "The museum opens at nine and entry costs ten euros for adults.",
    "Children under twelve enter free with a paying adult on weekdays!",
    "The tower was built in 1889 in Paris, the capital of France.",
    "Refunds are issued within five business days after the request.",
    "Is the garden open in winter? It closes in December and January.",
]
HHEM_PAIRS = [
    ("The capital of France is Berlin.", "The capital of France is Paris."),
    ("I am in California", "I am in United States."),
    ("The museum opens at nine.\nEntry costs ten euros.", "The museum opens at nine in the morning."),
    ("Refunds are issued within five business days.", "Refunds take five days."),
]
# 62 sentences (about 720 words): two chunks of at most 500 words. The run-on sentence (2,100 words,
# no sentence end) is one chunk longer than 2,048 tokens: its trailing words are cut.
LONG_DOC = " ".join(SENTENCES[i % len(SENTENCES)] for i in range(62))
RUN_ON = " ".join(["the tower was built in paris and"] * 300) + " it is tall."
MINICHECK_PAIRS = [
    ("The tower is in Paris.", "The tower is in Paris."),
    ("The tower was built in 1889 in Paris, the capital of France.", "The tower is in Berlin."),
    (LONG_DOC, "Refunds take five business days."),
    ("Is the garden open in winter?\nIt closes in December and January.", "The garden is closed in January."),
    (RUN_ON, "The tower is tall."),
]


# ---------------------------------------------------------------- tokenizer

def words_of(text):
    return re.findall(r"[A-Za-z0-9]+", text)


def t5_pieces():
    """<pad> </s> <unk>, "▁" at id 3, whole-word pieces, a few sub-word pieces, every character, fillers to VOCAB_SIZE."""
    texts = [HHEM_TEMPLATE, MINICHECK_TEMPLATE] + [t for pair in HHEM_PAIRS + MINICHECK_PAIRS for t in pair] + SENTENCES
    words = sorted({w for t in texts for w in words_of(t)})
    left_out = {"Determine", "hypothesis", "Hypothesis", "business", "December"}  # segment into smaller pieces
    pieces = [[s, 0.0] for s in SPECIALS] + [[SPM, -3.0]]
    for i, w in enumerate(words):
        if w not in left_out:
            pieces.append([SPM + w, -5.0 - 0.0137 * i])
    for i, extra in enumerate([SPM + "Deter", "mine", SPM + "hypo", SPM + "Hypo", "thesis", SPM + "busi", "ness", SPM + "Decem", "ber"]):
        pieces.append([extra, -7.0 - 0.0173 * i])
    chars = sorted({c for t in texts for c in t if not c.isspace()} | set("abcdefghijklmnopqrstuvwxyz"))
    have = {p for p, _ in pieces}
    for i, c in enumerate(chars):
        if c not in have:
            pieces.append([c, -10.0 - 0.0191 * i])
    i = 0
    while len(pieces) < VOCAB_SIZE:
        pieces.append([f"{SPM}zq{i}", -12.0 - 0.0011 * i])
        i += 1
    assert len(pieces) == VOCAB_SIZE, len(pieces)
    return pieces


def unigram_word(w, index, score):
    best = [(-math.inf, -1)] * (len(w) + 1)
    best[0] = (0.0, -1)
    for end in range(1, len(w) + 1):
        for start in range(end):
            piece = w[start:end]
            if piece in score and best[start][0] > -math.inf:
                cand = best[start][0] + score[piece]
                if cand > best[end][0]:
                    best[end] = (cand, start)
    if best[len(w)][0] == -math.inf:
        raise ValueError(f"no segmentation of {w!r}: the fixture vocabulary lacks a character")
    out, end = [], len(w)
    while end > 0:
        start = best[end][1]
        out.append(index[w[start:end]])
        end = start
    return out[::-1]


def t5_encode(text, pieces, add_special_tokens=True):
    """The tokenizer.json below, in python: special tokens matched in the raw text, each other
    segment split at whitespace, every word given a leading ▁ (Metaspace, prepend "always"), then
    the best-scoring Unigram segmentation; `$A </s>` around the whole."""
    index = {p: i for i, (p, _) in enumerate(pieces)}
    score = {p: s for p, s in pieces}
    ids = []
    for segment in re.split("(" + "|".join(re.escape(s) for s in SPECIALS) + ")", text):
        if segment in SPECIALS:
            ids.append(index[segment])
            continue
        for word in segment.split():
            ids += unigram_word(SPM + word, index, score)
    return ids + [index["</s>"]] if add_special_tokens else ids


def t5_tokenizer_json(pieces):
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for i, t in enumerate(SPECIALS)]
    seq = lambda s: {"Sequence": {"id": s, "type_id": 0}}  # noqa: E731
    eos = {"SpecialToken": {"id": "</s>", "type_id": 0}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special,
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": SPM, "prepend_scheme": "always", "split": True}]},
        "post_processor": {"type": "TemplateProcessing", "single": [seq("A"), eos], "pair": [seq("A"), eos, seq("B"), eos],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": SPM, "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 2, "vocab": pieces, "byte_fallback": False},
    }


def write_tokenizer(d, pieces, max_length=512):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(t5_tokenizer_json(pieces), f, ensure_ascii=False)
    specials = {"eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump({**specials, "model_max_length": max_length, "tokenizer_class": "T5Tokenizer", "extra_ids": 0}, f, indent=2)
    with open(os.path.join(d, "special_tokens_map.json"), "w") as f:
        json.dump(specials, f, indent=2)


# ---------------------------------------------------------------- recipe (numpy mirror)

def sentences(text):
    out = []
    for line in re.split(r"\n+", text):
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]
    return out


def chunk_words(text, size, joiner=" "):
    chunks, current, count = [], [], 0
    for s in sentences(text):
        n = len(s.split())
        if current and count + n > size:
            chunks.append(joiner.join(current))
            current, count = [], 0
        current.append(s)
        count += n
    if current:
        chunks.append(joiner.join(current))
    return chunks or [text]


def fill(template, premise, hypothesis, eos="</s>"):
    return template.replace("{premise}", premise).replace("{hypothesis}", hypothesis).replace("{eos}", eos)


def fit(template, premise, hypothesis, encode, max_length):
    """The text and ids of the chunk, its trailing words cut (the most kept that fit); tokens removed."""
    text = fill(template, premise, hypothesis)
    ids = encode(text)
    if max_length is None or len(ids) <= max_length:
        return text, ids, 0
    words = premise.split()
    lo, hi = 0, len(words)  # the answer k: the most words whose text fits (k = 0 must fit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(encode(fill(template, " ".join(words[:mid]), hypothesis))) <= max_length:
            lo = mid
        else:
            hi = mid - 1
    cut = fill(template, " ".join(words[:lo]), hypothesis)
    cut_ids = encode(cut)
    return cut, cut_ids, len(ids) - len(cut_ids)


def softmax(row):
    row = np.asarray(row, dtype=np.float64)
    e = np.exp(row - row.max())
    return e / e.sum()


def result_row(premise, hypothesis, chunks):
    p = max(c["supported"] for c in chunks)
    return {"premise": premise, "hypothesis": hypothesis, "chunks": chunks, "supported": p, "entailment": p, "neutral": 1 - p, "contradiction": 0}


# ---------------------------------------------------------------- fixtures

HHEM_CFG = {"vocab": VOCAB_SIZE, "d_model": 32, "d_kv": 8, "heads": 4, "d_ff": 48, "layers": 2, "buckets": 32, "max_distance": 128,
            "eps": 1e-6, "ffn": "gated-gelu", "labels": 2}
MINICHECK_CFG = {**HHEM_CFG, "d_ff": 40, "dec_layers": 2, "tie": False}


def hhem_fixture(out, pieces):
    """vectara/hallucination_evaluation_model's layout as its ONNX export has it: config.json as the
    repository's (no tokenizer: it borrows google/flan-t5-base's), onnx/model.onnx with logits
    [batch, sequence, 2]; the token-classification head read at position 0, column 1 = consistent."""
    d = os.path.join(out, "hhem")
    os.makedirs(os.path.join(d, "onnx"), exist_ok=True)
    p = t5.make_t5_weights(HHEM_CFG, seed=38, head="token")
    onnx.save(t5.token_classifier_graph(HHEM_CFG, p), os.path.join(d, "onnx", "model.onnx"))
    config = {"architectures": ["HHEMv2ForSequenceClassification"],
              "auto_map": {"AutoConfig": "configuration_hhem_v2.HHEMv2Config", "AutoModelForSequenceClassification": "modeling_hhem_v2.HHEMv2ForSequenceClassification"},
              "model_type": "HHEMv2Config", "torch_dtype": "float32", "transformers_version": "4.39.3"}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    rows = []
    for premise, hypothesis in HHEM_PAIRS:
        text, ids, truncated = fit(HHEM_TEMPLATE, premise, hypothesis, lambda t: t5_encode(t, pieces), None)
        logits = t5.np_token_logits(HHEM_CFG, p, [ids], [[1] * len(ids)])[0][0]
        chunk = {"text": text, "ids": ids, "truncated": truncated, "logits": [float(x) for x in logits], "supported": float(softmax(logits)[1])}
        rows.append(result_row(premise, hypothesis, [chunk]))
    ref = {"recipe": "hhem", "template": HHEM_TEMPLATE, "tokenizer_from": "google/flan-t5-base", "position": 0, "supported_column": 1, "rows": rows}
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1, ensure_ascii=False)
    print(f"wrote {d}")


def minicheck_fixture(out, pieces):
    """lytang/MiniCheck-Flan-T5-Large's layout as optimum exports it: onnx/encoder_model.onnx,
    onnx/decoder_model.onnx (and their dynamically quantised int8 graphs, *_quantized.onnx),
    config.json (T5ForConditionalGeneration, untied lm_head, decoder start id 0) and the tokenizer."""
    d = os.path.join(out, "minicheck-flan-t5")
    os.makedirs(os.path.join(d, "onnx"), exist_ok=True)
    cfg = MINICHECK_CFG
    p = t5.make_t5_weights(cfg, seed=48, head="lm")  # a seed whose long document's second chunk scores higher than its first
    enc, dec = os.path.join(d, "onnx", "encoder_model.onnx"), os.path.join(d, "onnx", "decoder_model.onnx")
    onnx.save(t5.encoder_graph(cfg, p), enc)
    onnx.save(t5.decoder_graph(cfg, p), dec)
    from onnx_fixtures import int8_matmul, quantize_dynamic
    onnx.save(quantize_dynamic(onnx.load(enc)), os.path.join(d, "onnx", "encoder_model_quantized.onnx"))
    onnx.save(quantize_dynamic(onnx.load(dec)), os.path.join(d, "onnx", "decoder_model_quantized.onnx"))
    config = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": cfg["d_model"], "d_kv": cfg["d_kv"], "d_ff": cfg["d_ff"],
              "num_layers": cfg["layers"], "num_decoder_layers": cfg["dec_layers"], "num_heads": cfg["heads"],
              "relative_attention_num_buckets": cfg["buckets"], "relative_attention_max_distance": cfg["max_distance"],
              "feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu_new", "is_gated_act": True, "layer_norm_epsilon": cfg["eps"],
              "tie_word_embeddings": False, "is_encoder_decoder": True, "decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0,
              "n_positions": 512, "vocab_size": cfg["vocab"]}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    write_tokenizer(d, pieces)
    encode = lambda t: t5_encode(t, pieces)  # noqa: E731
    unsupported, supported = MINICHECK_LABEL_IDS
    rows = []
    for premise, hypothesis in MINICHECK_PAIRS:
        chunks = []
        for piece in chunk_words(premise, MINICHECK_CHUNK_WORDS):
            text, ids, truncated = fit(MINICHECK_TEMPLATE, piece, hypothesis, encode, MINICHECK_MAX_LENGTH)
            mask = [[1] * len(ids)]
            full = t5.np_decoder_logits(cfg, p, [ids], mask, [[0]])[0][0]
            int8 = t5.np_decoder_logits(cfg, p, [ids], mask, [[0]], dtype=np.float32, mm=int8_matmul(False))[0][0]
            logits = [float(full[unsupported]), float(full[supported])]
            chunks.append({"text": text, "ids": ids, "truncated": truncated, "logits": logits, "supported": float(softmax(logits)[1]),
                           "int8_logits": [float(int8[unsupported]), float(int8[supported])]})
        rows.append(result_row(premise, hypothesis, chunks))
    ref = {"recipe": "minicheck-flan-t5", "template": MINICHECK_TEMPLATE, "max_length": MINICHECK_MAX_LENGTH, "chunk_words": MINICHECK_CHUNK_WORDS,
           "decoder_start_id": 0, "label_ids": {"unsupported": unsupported, "supported": supported}, "rows": rows}
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1, ensure_ascii=False)
    print(f"wrote {d}")


def flat_decoder(out):
    """A decoder graph with the seq2seq decoder's inputs whose logits are [batch, vocab] (no decoder
    position axis): what the engine must refuse, naming the shape it expected."""
    from onnx import TensorProto, helper
    d = os.path.join(out, "bad-seq2seq")
    os.makedirs(d, exist_ok=True)
    nodes = [
        helper.make_node("ReduceMean", ["encoder_hidden_states"], ["pooled"], axes=[1], keepdims=0),
        helper.make_node("Constant", [], ["repeats"], value=helper.make_tensor("repeats", TensorProto.INT64, [2], [1, 10])),
        helper.make_node("Tile", ["pooled", "repeats"], ["logits"]),
    ]
    inputs = [helper.make_tensor_value_info("encoder_attention_mask", TensorProto.INT64, ["batch", "encoder_sequence_length"]),
              helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "decoder_sequence_length"]),
              helper.make_tensor_value_info("encoder_hidden_states", TensorProto.FLOAT, ["batch", "encoder_sequence_length", MINICHECK_CFG["d_model"]])]
    graph = helper.make_graph(nodes, "flat_decoder", inputs, [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", MINICHECK_CFG["d_model"] * 10])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", t5.OPSET)], producer_name="groundwatch-fixtures (t5)")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, "decoder_model.onnx"))
    print(f"wrote {d}")


def t5_fixtures(out):
    """Writes OUT/recipes/{hhem,minicheck-flan-t5,flan-t5-base-tokenizer,bad-seq2seq}."""
    base = os.path.join(out, "recipes")
    pieces = t5_pieces()
    write_tokenizer(os.path.join(base, "flan-t5-base-tokenizer"), pieces)
    print(f"wrote {os.path.join(base, 'flan-t5-base-tokenizer')}")
    hhem_fixture(base, pieces)
    minicheck_fixture(base, pieces)
    flat_decoder(base)


# ---------------------------------------------------------------- benchmark shapes

PRESETS = {
    # t5-base: ReLU feed-forward, tied embeddings; the encoder alone (HHEM's shape with t5-base's sizes).
    "t5-base": {"vocab": 32128, "d_model": 768, "d_kv": 64, "heads": 12, "d_ff": 3072, "layers": 12, "ffn": "relu", "labels": 2, "head": "token"},
    # flan-t5-base: what HHEM-2.1-Open's T5ForTokenClassification is built from (its config's foundation).
    "flan-t5-base": {"vocab": 32128, "d_model": 768, "d_kv": 64, "heads": 12, "d_ff": 2048, "layers": 12, "ffn": "gated-gelu", "labels": 2, "head": "token"},
    # flan-t5-large: MiniCheck-Flan-T5-Large, encoder + decoder, untied lm_head.
    "flan-t5-large": {"vocab": 32128, "d_model": 1024, "d_kv": 64, "heads": 16, "d_ff": 2816, "layers": 24, "dec_layers": 24, "ffn": "gated-gelu", "tie": False, "head": "lm"},
}


def shape_t5(out, preset, int8, per_channel=False):
    """Random-weight graphs of a preset's full size (not committed: built into the bench's cache)."""
    cfg = {"buckets": 32, "max_distance": 128, "eps": 1e-6, **PRESETS[preset]}
    from onnx_fixtures import quantize_dynamic
    p = t5.make_t5_weights(cfg, seed=0, head=cfg["head"])
    d = os.path.join(out, "onnx")
    os.makedirs(d, exist_ok=True)
    # One graph in memory at a time: flan-t5-large's decoder alone is about 1.9 GB (under protobuf's 2 GB limit).
    builders = {"model": t5.token_classifier_graph} if cfg["head"] == "token" else {"encoder_model": t5.encoder_graph, "decoder_model": t5.decoder_graph}
    for name, build in builders.items():
        path = os.path.join(d, f"{name}.onnx")
        model = build(cfg, p)
        onnx.save(model, path)
        del model
        if int8:
            onnx.save(quantize_dynamic(onnx.load(path), per_channel), os.path.join(d, f"{name}_quantized.onnx"))
    del p
    pieces = t5_pieces()
    write_tokenizer(out, pieces)
    config = {"architectures": ["T5ForTokenClassification" if cfg["head"] == "token" else "T5ForConditionalGeneration"], "model_type": "t5",
              "d_model": cfg["d_model"], "d_ff": cfg["d_ff"], "num_layers": cfg["layers"], "num_heads": cfg["heads"], "vocab_size": cfg["vocab"],
              "feed_forward_proj": cfg["ffn"], "decoder_start_token_id": 0, "id2label": {"0": "hallucinated", "1": "consistent"}}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    print(f"wrote {out} ({preset})")
