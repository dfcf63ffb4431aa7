#!/usr/bin/python3
"""Builds random-weight BERT-shaped NLI cross-encoders as ONNX graphs, with tokenizers
and reference outputs computed independently in numpy.

Run with Debian's python (python3-onnx, python3-numpy):

  /usr/bin/python3 scripts/onnx_fixtures.py fixtures OUT_DIR     # test fixtures (committed)
  /usr/bin/python3 scripts/onnx_fixtures.py relevance OUT_DIR    # only the relevance cross-encoders
  /usr/bin/python3 scripts/onnx_fixtures.py shape OUT_DIR --layers 6 --hidden 384 --heads 12 \
      --intermediate 1536 --vocab 30522                          # benchmark graphs (not committed)
  /usr/bin/python3 scripts/onnx_fixtures.py matmul OUT_DIR --m 1024 --k 1024 --n 1024   # one MatMul
  /usr/bin/python3 scripts/onnx_fixtures.py quantize IN.onnx OUT.onnx [--per-channel]  # dynamic int8
  /usr/bin/python3 scripts/onnx_fixtures.py fp16 IN.onnx OUT.onnx                 # fp16 weights and output
  /usr/bin/python3 scripts/onnx_fixtures.py t5 OUT_DIR           # the T5 recipe fixtures (onnx_t5_recipes.py)
  /usr/bin/python3 scripts/onnx_fixtures.py shape-t5 OUT_DIR --preset flan-t5-large [--int8]  # T5 benchmark graphs
  /usr/bin/python3 scripts/onnx_fixtures.py recipes test/fixtures/models/recipes  # FactCG, MiniCheck (scripts/onnx_recipe_fixtures.py)
  /usr/bin/python3 scripts/onnx_fixtures.py byte-level test/fixtures/tokenizers   # RoBERTa and ModernBERT byte-level BPE checks
  /usr/bin/python3 scripts/onnx_fixtures.py shape-deberta OUT_DIR --int8          # DeBERTa-v3-large's shape (not committed)
  /usr/bin/python3 scripts/onnx_fixtures.py spans test/fixtures/models/spans      # token-classification span detector (scripts/onnx_spans.py)
  /usr/bin/python3 scripts/onnx_fixtures.py shape-spans OUT_DIR --layers 12 --hidden 768 --heads 12 \
      --intermediate 3072 --vocab 30522 --max-position 8192 --int8   # a span detector of `shape`'s encoder (bench:spans; not committed)

A fixture directory has the Hugging Face layout the onnx backend reads: config.json (with
id2label), tokenizer.json, tokenizer_config.json, onnx/model.onnx; plus reference.json with
the token ids and logits numpy computed for a set of pairs. `fixtures` also writes
graph-variants/{deberta-unigram,bert-wordpiece}: the same networks as a dynamically quantised
int8 graph (model_int8.onnx) and an fp16 graph (model_fp16.onnx), with numpy references for
both. The tests compose the Hub's file layouts (cross-encoder, transformers.js, optimum) from them.
`fixtures` (and `relevance` alone) also writes single-logit relevance cross-encoders:
relevance-bert (logits [batch, 1], with graph-variants/relevance-bert/model_int8.onnx) and
relevance-flat (logits [batch]), with reference.json holding each (query, passage) pair's ids,
logit and sigmoid score.

`shape` with --int8 also writes onnx/model_int8.onnx beside onnx/model.onnx (for bench:nli).

Dynamic quantisation is written by hand, as onnxruntime's quantize_dynamic writes it (no
onnxruntime python package is needed): every MatMul whose B is a 2-D float initializer becomes
DynamicQuantizeLinear(A) -> MatMulInteger(A_q, B_q int8, A_zp, B_zp) -> Cast(float) ->
Mul(A_scale * B_scale). The weights are symmetric int8 (zero point 0), one scale per tensor or,
with --per-channel, per output column. onnxruntime fuses the chain into DynamicQuantizeMatMul.
"""
import argparse
import json
import math
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


# ---------------------------------------------------------------- graph and numpy reference

def make_weights(cfg, seed):
    rng = np.random.default_rng(seed)
    h, inter, nl = cfg["hidden"], cfg["intermediate"], cfg["labels"]

    def w(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    p = {
        "word": w(cfg["vocab"], h, scale=0.5),
        "pos": w(cfg["max_position"], h, scale=0.5),
        "emb_g": (1 + w(h, scale=0.1)), "emb_b": w(h, scale=0.1),
        "pool_w": w(h, h), "pool_b": w(h),
        "cls_w": w(h, nl, scale=1.0), "cls_b": w(nl),
    }
    if cfg["type_vocab"] > 0:
        p["type"] = w(cfg["type_vocab"], h, scale=0.5)
    for i in range(cfg["layers"]):
        for name, shape in [("q", (h, h)), ("k", (h, h)), ("v", (h, h)), ("o", (h, h)), ("f1", (h, inter)), ("f2", (inter, h))]:
            p[f"l{i}_{name}_w"] = w(*shape, scale=1.0 / math.sqrt(shape[0]))
            p[f"l{i}_{name}_b"] = w(shape[1], scale=0.05)
        for ln in ("ln1", "ln2"):
            p[f"l{i}_{ln}_g"] = 1 + w(h, scale=0.1)
            p[f"l{i}_{ln}_b"] = w(h, scale=0.1)
    return p


def build_graph(cfg, p):
    h, nh = cfg["hidden"], cfg["heads"]
    hd = h // nh
    nodes, inits = [], []

    def init(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op, ins, outs=None, **attrs):
        outs = outs or [f"t{len(nodes)}"]
        nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs[0]

    for k, v in p.items():
        init(k, v)
    init("c_zero", np.array(0, dtype=np.int64))
    init("c_one", np.array(1, dtype=np.int64))
    init("c_one_f", np.array(1.0, dtype=np.float32))
    init("c_neg", np.array(-10000.0, dtype=np.float32))
    init("c_half", np.array(0.5, dtype=np.float32))
    init("c_sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    init("c_scale", np.array(1.0 / math.sqrt(hd), dtype=np.float32))
    init("c_axes12", np.array([1, 2], dtype=np.int64))
    init("c_split_heads", np.array([0, 0, nh, hd], dtype=np.int64))
    init("c_merge_heads", np.array([0, 0, h], dtype=np.int64))

    x = node("Gather", ["word", "input_ids"])
    shape = node("Shape", ["input_ids"])
    seq = node("Gather", [shape, "c_one"], axis=0)
    positions = node("Range", ["c_zero", seq, "c_one"])
    x = node("Add", [x, node("Gather", ["pos", positions])])
    if cfg["type_vocab"] > 0:
        x = node("Add", [x, node("Gather", ["type", "token_type_ids"])])
    x = node("LayerNormalization", [x, "emb_g", "emb_b"], axis=-1, epsilon=1e-12)
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", ["c_one_f", mask]), "c_neg"])
    bias = node("Unsqueeze", [bias, "c_axes12"])  # [B,1,1,S]
    for i in range(cfg["layers"]):
        def dense(inp, name):
            return node("Add", [node("MatMul", [inp, f"l{i}_{name}_w"]), f"l{i}_{name}_b"])

        def heads(t, perm):
            return node("Transpose", [node("Reshape", [t, "c_split_heads"])], perm=perm)

        q = heads(dense(x, "q"), [0, 2, 1, 3])
        k = heads(dense(x, "k"), [0, 2, 3, 1])
        v = heads(dense(x, "v"), [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), "c_scale"]), bias])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3]), "c_merge_heads"])
        x = node("LayerNormalization", [node("Add", [x, dense(ctx, "o")]), f"l{i}_ln1_g", f"l{i}_ln1_b"], axis=-1, epsilon=1e-12)
        f = dense(x, "f1")
        gelu = node("Mul", [node("Mul", [f, "c_half"]), node("Add", ["c_one_f", node("Erf", [node("Div", [f, "c_sqrt2"])])])])
        x = node("LayerNormalization", [node("Add", [x, dense(gelu, "f2")]), f"l{i}_ln2_g", f"l{i}_ln2_b"], axis=-1, epsilon=1e-12)
    if cfg.get("token_head"):
        # Token classification (LettuceDetect's head): logits for every position, [batch, sequence, labels].
        node("Add", [node("MatMul", [x, "cls_w"]), "cls_b"], outs=["logits"])
    cls = None if cfg.get("token_head") else node("Gather", [x, "c_zero"], axis=1)
    pooled = None if cls is None else node("Tanh", [node("Add", [node("MatMul", [cls, "pool_w"]), "pool_b"])])
    if cls is None:
        pass
    elif cfg.get("flat"):
        # A [batch] output (one logit per pair, the trailing 1 squeezed away), as some reranker exports write it.
        init("c_flat", np.array([-1], dtype=np.int64))
        node("Reshape", [node("Add", [node("MatMul", [pooled, "cls_w"]), "cls_b"]), "c_flat"], outs=["logits"])
    else:
        node("Add", [node("MatMul", [pooled, "cls_w"]), "cls_b"], outs=["logits"])

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in ["input_ids", "attention_mask"]]
    if cfg["type_vocab"] > 0:
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "sequence"]))
    out_shape = ["batch", "sequence", cfg["labels"]] if cfg.get("token_head") else ["batch"] if cfg.get("flat") else ["batch", cfg["labels"]]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, out_shape)]
    graph = helper.make_graph(nodes, "nli", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="groundwatch-fixtures")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


_erf = np.vectorize(math.erf, otypes=[np.float64])


def layer_norm(x, g, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def reference_logits(cfg, p, ids, mask, types, dtype=np.float64, matmul=None):
    """The same network in numpy (float64 unless told), written from the math, not from the
    graph. `matmul(t, w)` replaces `t @ w` for the weight products (the int8 reference)."""
    h, nh = cfg["hidden"], cfg["heads"]
    hd = h // nh
    ids, mask = np.asarray(ids), np.asarray(mask)
    B, S = ids.shape
    P = {k: v.astype(dtype) for k, v in p.items()}
    mm = matmul or (lambda t, w: t @ w)
    x = P["word"][ids] + P["pos"][np.arange(S)][None, :, :]
    if cfg["type_vocab"] > 0:
        x = x + P["type"][np.asarray(types)]
    x = layer_norm(x, P["emb_g"], P["emb_b"])
    bias = ((1.0 - mask) * -10000.0).astype(dtype)[:, None, None, :]
    for i in range(cfg["layers"]):
        def dense(t, n):
            return mm(t, P[f"l{i}_{n}_w"]) + P[f"l{i}_{n}_b"]

        def split(t):
            return t.reshape(B, S, nh, hd).transpose(0, 2, 1, 3)

        q, k, v = split(dense(x, "q")), split(dense(x, "k")), split(dense(x, "v"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
        s = s - s.max(-1, keepdims=True)
        a = np.exp(s)
        a = a / a.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, S, h)
        x = layer_norm(x + dense(ctx, "o"), P[f"l{i}_ln1_g"], P[f"l{i}_ln1_b"])
        f = dense(x, "f1")
        f = 0.5 * f * (1.0 + _erf(f / math.sqrt(2.0)))
        x = layer_norm(x + dense(f, "f2"), P[f"l{i}_ln2_g"], P[f"l{i}_ln2_b"])
    if cfg.get("token_head"):
        return mm(x, P["cls_w"]) + P["cls_b"]
    pooled = np.tanh(mm(x[:, 0, :], P["pool_w"]) + P["pool_b"])
    return mm(pooled, P["cls_w"]) + P["cls_b"]


# ---------------------------------------------------------------- int8 and fp16 variants

def quantize_weight(w, per_channel):
    """Symmetric int8: zero point 0, scale max|w| / 127 per tensor or per output column."""
    absmax = np.abs(w).max(axis=0) if per_channel else np.array(np.abs(w).max())
    scale = (np.maximum(absmax, 1e-12) / np.float32(127)).astype(np.float32)
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    zp = np.zeros(scale.shape, dtype=np.int8)
    return q, scale, zp


def quantize_dynamic(model, per_channel=False):
    """Rewrites every MatMul whose B is a 2-D float initializer as dynamically quantised int8."""
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    nodes, quantized = [], set()
    for n in graph.node:
        w_init = inits.get(n.input[1]) if n.op_type == "MatMul" and len(n.input) == 2 else None
        if w_init is None or len(w_init.dims) != 2 or w_init.data_type != TensorProto.FLOAT:
            nodes.append(n)
            continue
        w = n.input[1]
        if w not in quantized:
            q, scale, zp = quantize_weight(numpy_helper.to_array(w_init), per_channel)
            graph.initializer.extend([numpy_helper.from_array(q, f"{w}_quantized"), numpy_helper.from_array(scale, f"{w}_scale"), numpy_helper.from_array(zp, f"{w}_zero_point")])
            quantized.add(w)
        out = n.output[0]
        a_q, a_scale, a_zp = f"{out}_a_quantized", f"{out}_a_scale", f"{out}_a_zero_point"
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [n.input[0]], [a_q, a_scale, a_zp]),
            helper.make_node("MatMulInteger", [a_q, f"{w}_quantized", a_zp, f"{w}_zero_point"], [f"{out}_int32"]),
            helper.make_node("Cast", [f"{out}_int32"], [f"{out}_float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [a_scale, f"{w}_scale"], [f"{out}_scales"]),
            helper.make_node("Mul", [f"{out}_float", f"{out}_scales"], [out]),
        ]
    used = {i for n in nodes for i in n.input}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(keep)
    model.producer_name = "groundwatch-fixtures (dynamic int8)"
    onnx.checker.check_model(model)
    return model


def to_fp16(model):
    """Stores every float weight (2 or more elements) as float16, cast back to float where used,
    and makes the logits output float16: the shape of an fp16 export, computed in float32."""
    graph = model.graph
    casts, renamed = [], {}
    for init in graph.initializer:
        if init.data_type != TensorProto.FLOAT or int(np.prod(init.dims)) < 2:
            continue
        arr = numpy_helper.to_array(init).astype(np.float16)
        name = init.name
        init.CopyFrom(numpy_helper.from_array(arr, f"{name}_fp16"))
        casts.append(helper.make_node("Cast", [f"{name}_fp16"], [name], to=TensorProto.FLOAT))
        renamed[name] = f"{name}_fp16"
    out = graph.output[0]
    for n in graph.node:
        for k, o in enumerate(n.output):
            if o == out.name:
                n.output[k] = f"{out.name}_float"
    nodes = casts + list(graph.node) + [helper.make_node("Cast", [f"{out.name}_float"], [out.name], to=TensorProto.FLOAT16)]
    del graph.node[:]
    graph.node.extend(nodes)
    out.type.tensor_type.elem_type = TensorProto.FLOAT16
    model.producer_name = "groundwatch-fixtures (fp16)"
    onnx.checker.check_model(model)
    return model


def dynamic_quantize_linear(x):
    """ONNX DynamicQuantizeLinear in float32: uint8, the range widened to include 0, round half to even."""
    x = x.astype(np.float32)
    lo, hi = np.float32(min(0.0, float(x.min()))), np.float32(max(0.0, float(x.max())))
    scale = np.float32((hi - lo) / np.float32(255))
    if scale == 0:
        return np.zeros(x.shape, dtype=np.int64), np.float32(0), 0
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    q = np.clip(np.round(x / scale) + zp, 0, 255).astype(np.int64)
    return q, scale, zp


def int8_matmul(per_channel):
    """`t @ w` as the quantised graph computes it: activations per tensor, weights symmetric int8."""
    def mm(t, w):
        wq, wscale, _ = quantize_weight(w.astype(np.float32), per_channel)
        q, scale, zp = dynamic_quantize_linear(t)
        acc = (q - zp) @ wq.astype(np.int64)
        return acc.astype(np.float32) * (np.float32(scale) * wscale)
    return mm


def fp16_weights(p):
    return {k: (v.astype(np.float16).astype(np.float32) if v.size >= 2 else v) for k, v in p.items()}


# ---------------------------------------------------------------- tokenizers

PAIRS = [
    ("the tower is in paris.", "the tower is in paris."),
    ("the tower was built in 1889 in paris, the capital of france.", "the tower is in berlin."),
    ("refunds are issued within five business days.", "refunds take five days."),
    ("runs jumped quickly.", "no."),
    ("the museum opens at nine. " * 6 + "entry costs ten euros.", "the museum opens at nine in the morning and entry costs ten euros for adults."),
]
SUBWORDS = {"refunds": ["refund", "##s"], "issued": ["issue", "##d"], "runs": ["run", "##s"], "jumped": ["jump", "##ed"], "opens": ["open", "##s"]}
MAX_LENGTH = 32
MIN_HYPOTHESIS = 8


def bert_pieces(text):
    return re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower())


def wordpiece_vocab():
    words = sorted({w for a, b in PAIRS for t in (a, b) for w in bert_pieces(t)})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    for w in words:
        for piece in SUBWORDS.get(w, [w]):
            if piece not in vocab:
                vocab.append(piece)
    for c in "abcdefghijklmnopqrstuvwxyz0123456789":
        for piece in (c, "##" + c):
            if piece not in vocab:
                vocab.append(piece)
    return {t: i for i, t in enumerate(vocab)}


def wordpiece_encode(text, vocab):
    ids = []
    for word in bert_pieces(text):
        if word in SUBWORDS:
            ids += [vocab[p] for p in SUBWORDS[word]]
            continue
        start, out = 0, []
        while start < len(word):
            end, cur = len(word), None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    cur = piece
                    break
                end -= 1
            if cur is None:
                out = [vocab["[UNK]"]]
                break
            out.append(vocab[cur])
            start = end
        ids += out
    return ids


def wordpiece_tokenizer_json(vocab):
    special = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
    }


def unigram_vocab():
    """DeBERTa-v3 style: [PAD] [CLS] [SEP] [UNK], then pieces with distinct scores."""
    pieces = [["[PAD]", 0.0], ["[CLS]", 0.0], ["[SEP]", 0.0], ["[UNK]", 0.0]]
    seen = set()
    words = sorted({w for a, b in PAIRS for t in (a, b) for w in re.findall(r"[a-z0-9]+", t)})
    for i, w in enumerate(words):
        if w in ("refunds", "business"):  # left out so they segment into smaller pieces
            continue
        pieces.append(["\u2581" + w, -2.0 - 0.01 * i])
        seen.add("\u2581" + w)
    for i, extra in enumerate(["\u2581refund", "s", "\u2581busi", "ness", "\u2581"]):
        pieces.append([extra, -4.0 - 0.01 * i])
    for i, c in enumerate("abcdefghijklmnopqrstuvwxyz0123456789.,"):
        if c not in [p for p, _ in pieces]:
            pieces.append([c, -9.0 - 0.01 * i])
    return pieces


def unigram_encode(text, pieces):
    index = {p: i for i, (p, _) in enumerate(pieces)}
    score = {p: s for p, s in pieces}
    ids = []
    # Metaspace, prepend_scheme "always", split: each space-separated word gets a leading ▁.
    for word in text.split(" "):
        if word == "":
            continue
        w = "\u2581" + word
        best = [(-math.inf, -1)] * (len(w) + 1)
        best[0] = (0.0, -1)
        for end in range(1, len(w) + 1):
            for start in range(0, end):
                piece = w[start:end]
                if piece in score and best[start][0] > -math.inf:
                    cand = best[start][0] + score[piece]
                    if cand > best[end][0]:
                        best[end] = (cand, start)
        out, end = [], len(w)
        while end > 0:
            start = best[end][1]
            out.append(index[w[start:end]])
            end = start
        ids += reversed(out)
    return ids


def unigram_tokenizer_json(pieces):
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for i, (t, _) in enumerate(pieces[:4])]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special,
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": pieces, "byte_fallback": False},
    }


def truncate_pair(a, b, budget, min_b):
    """Longest-first, but the hypothesis (b) keeps at least min_b tokens."""
    a, b = list(a), list(b)
    truncated = 0
    while len(a) + len(b) > budget:
        if len(b) > min_b and len(b) >= len(a):
            b.pop()
        elif len(a) > 0:
            a.pop()
        else:
            b.pop()
        truncated += 1
    return a, b, truncated


def assemble(a, b, cls, sep):
    ids = [cls] + a + [sep] + b + [sep]
    types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    return ids, types


# ---------------------------------------------------------------- fixtures

def write_model_dir(out, cfg, id2label, tokenizer_json, seed, extra_config=None):
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    p = make_weights(cfg, seed)
    onnx.save(build_graph(cfg, p), os.path.join(out, "onnx", "model.onnx"))
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_size": cfg["hidden"], "num_attention_heads": cfg["heads"],
              "num_hidden_layers": cfg["layers"], "intermediate_size": cfg["intermediate"], "max_position_embeddings": cfg["max_position"],
              "type_vocab_size": cfg["type_vocab"], "vocab_size": cfg["vocab"], "id2label": {str(i): l for i, l in enumerate(id2label)},
              "label2id": {l: i for i, l in enumerate(id2label)}}
    config.update(extra_config or {})
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if tokenizer_json is not None:
        with open(os.path.join(out, "tokenizer.json"), "w") as f:
            json.dump(tokenizer_json, f, ensure_ascii=False)
        with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
            json.dump({"model_max_length": MAX_LENGTH, "do_lower_case": True}, f)
    return p


def tokenizer_of(kind):
    """tokenizer.json, an encoder, the [CLS] and [SEP] ids and the vocabulary size of a fixture kind."""
    if kind == "wordpiece":
        vocab = wordpiece_vocab()
        return wordpiece_tokenizer_json(vocab), (lambda t: wordpiece_encode(t, vocab)), vocab["[CLS]"], vocab["[SEP]"], len(vocab)
    pieces = unigram_vocab()
    return unigram_tokenizer_json(pieces), (lambda t: unigram_encode(t, pieces)), 1, 2, len(pieces)


def fixture(out, name, kind, id2label, seed, type_vocab=2):
    tok, encode, cls, sep, vsize = tokenizer_of(kind)
    cfg = {"vocab": vsize, "hidden": 16, "heads": 2, "intermediate": 32, "layers": 2, "max_position": 64, "type_vocab": type_vocab, "labels": len(id2label)}
    d = os.path.join(out, name)
    p = write_model_dir(d, cfg, id2label, tok, seed)
    rows = []
    for premise, hypothesis in PAIRS:
        a, b, truncated = truncate_pair(encode(premise), encode(hypothesis), MAX_LENGTH - 3, MIN_HYPOTHESIS)
        ids, types = assemble(a, b, cls, sep)
        logits = reference_logits(cfg, p, [ids], [[1] * len(ids)], [types])[0]
        rows.append({"premise": premise, "hypothesis": hypothesis, "input_ids": ids, "token_type_ids": types, "truncated": truncated, "logits": [float(x) for x in logits]})
    ref = {"max_length": MAX_LENGTH, "min_hypothesis": MIN_HYPOTHESIS, "id2label": id2label, "pairs": rows}
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    print(f"wrote {d}")
    return cfg, p, rows


def graph_variants(out, name, cfg, p, rows):
    """The int8 and fp16 graphs of fixture `name`, with their numpy references, one pair at a
    time (dynamic quantisation scales over the whole batch, so batch-of-one is the reference)."""
    d = os.path.join(out, "graph-variants", name)
    os.makedirs(d, exist_ok=True)
    fp32 = onnx.load(os.path.join(out, name, "onnx", "model.onnx"))
    onnx.save(quantize_dynamic(onnx.load(os.path.join(out, name, "onnx", "model.onnx"))), os.path.join(d, "model_int8.onnx"))
    onnx.save(to_fp16(fp32), os.path.join(d, "model_fp16.onnx"))
    p16 = fp16_weights(p)
    pairs = []
    for r in rows:
        ids, types = [r["input_ids"]], [r["token_type_ids"]]
        mask = [[1] * len(r["input_ids"])]
        int8 = reference_logits(cfg, p, ids, mask, types, dtype=np.float32, matmul=int8_matmul(False))[0]
        fp16 = reference_logits(cfg, p16, ids, mask, types)[0].astype(np.float16)
        pairs.append({"premise": r["premise"], "hypothesis": r["hypothesis"], "logits": {"fp32": r["logits"], "int8": [float(x) for x in int8], "fp16": [float(x) for x in fp16]}})
    ref = {"base": name, "graphs": {"int8": "model_int8.onnx", "fp16": "model_fp16.onnx"}, "pairs": pairs}
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    print(f"wrote {d}")


# ---------------------------------------------------------------- relevance cross-encoders

# (query, passage): the query is the first segment, the passage the second. No "?" (the unigram
# fixture has no piece for it); the last passage is long enough to be cut.
RELEVANCE_PAIRS = [
    ("when does the museum open", "the museum opens at nine."),
    ("where is the tower", "the tower was built in 1889 in paris, the capital of france."),
    ("how long do refunds take", "the tower is in paris."),
    ("refunds", "no."),
    ("what does entry cost for adults", "the museum opens at nine. " * 6 + "entry costs ten euros."),
]


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def relevance_fixture(out, name, kind, seed, type_vocab=2, flat=False):
    """A single-logit cross-encoder (ms-marco-MiniLM, bge-reranker shape): config.json with one
    LABEL_0, a logits output of shape [batch, 1] (or [batch] when flat), and reference.json with the
    token ids, the logit and its sigmoid for each (query, passage) pair, computed in numpy."""
    tok, encode, cls, sep, vsize = tokenizer_of(kind)
    cfg = {"vocab": vsize, "hidden": 16, "heads": 2, "intermediate": 32, "layers": 2, "max_position": 64, "type_vocab": type_vocab, "labels": 1, "flat": flat}
    d = os.path.join(out, name)
    p = write_model_dir(d, cfg, ["LABEL_0"], tok, seed)
    rows = []
    for query, passage in RELEVANCE_PAIRS:
        a, b, truncated = truncate_pair(encode(query), encode(passage), MAX_LENGTH - 3, MIN_HYPOTHESIS)
        ids, types = assemble(a, b, cls, sep)
        logit = float(reference_logits(cfg, p, [ids], [[1] * len(ids)], [types])[0][0])
        rows.append({"query": query, "passage": passage, "input_ids": ids, "token_type_ids": types, "truncated": truncated, "logit": logit, "score": sigmoid(logit)})
    ref = {"max_length": MAX_LENGTH, "min_hypothesis": MIN_HYPOTHESIS, "output": "[batch]" if flat else "[batch, 1]", "pairs": rows}
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    print(f"wrote {d}")
    return cfg, p, rows


def relevance_variants(out, name, cfg, p, rows):
    """The dynamically quantised int8 graph of relevance fixture `name`, with its numpy reference (batch of one)."""
    d = os.path.join(out, "graph-variants", name)
    os.makedirs(d, exist_ok=True)
    onnx.save(quantize_dynamic(onnx.load(os.path.join(out, name, "onnx", "model.onnx"))), os.path.join(d, "model_int8.onnx"))
    pairs = []
    for r in rows:
        ids, types, mask = [r["input_ids"]], [r["token_type_ids"]], [[1] * len(r["input_ids"])]
        int8 = float(reference_logits(cfg, p, ids, mask, types, dtype=np.float32, matmul=int8_matmul(False))[0][0])
        pairs.append({"query": r["query"], "passage": r["passage"], "logit": {"fp32": r["logit"], "int8": int8}})
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump({"base": name, "graphs": {"int8": "model_int8.onnx"}, "pairs": pairs}, f, indent=1)
    print(f"wrote {d}")


def relevance_fixtures(out):
    bert = relevance_fixture(out, "relevance-bert", "wordpiece", seed=21)
    relevance_variants(out, "relevance-bert", *bert)
    relevance_fixture(out, "relevance-flat", "unigram", seed=12, type_vocab=0, flat=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["fixtures", "relevance", "shape", "matmul", "quantize", "fp16", "t5", "shape-t5", "recipes", "byte-level", "shape-deberta", "spans", "shape-spans"])
    ap.add_argument("out", help="output directory; for quantize and fp16, the input graph")
    ap.add_argument("dest", nargs="?", help="quantize and fp16: the output graph")
    ap.add_argument("--int8", action="store_true", help="shape, shape-spans: also write onnx/model_int8.onnx")
    ap.add_argument("--per-channel", action="store_true", help="int8 weights with one scale per output column")
    # Defaults: `shape` is MiniLM-L6's shape, `shape-deberta` DeBERTa-v3-large's.
    ap.add_argument("--layers", type=int)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--intermediate", type=int)
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--buckets", type=int, default=256, help="shape-deberta: position_buckets")
    ap.add_argument("--max-position", type=int, default=512)
    ap.add_argument("--type-vocab", type=int, default=2)
    ap.add_argument("--preset", default="flan-t5-large", help="shape-t5: t5-base, flan-t5-base (encoders) or flan-t5-large (encoder + decoder)")
    ap.add_argument("--m", type=int, default=1024)
    ap.add_argument("--k", type=int, default=1024)
    ap.add_argument("--n", type=int, default=1024)
    args = ap.parse_args()
    shape_defaults = {"layers": 24, "hidden": 1024, "heads": 16, "intermediate": 4096, "vocab": 128100} if args.what == "shape-deberta" else \
        {"layers": 6, "hidden": 384, "heads": 12, "intermediate": 1536, "vocab": 30522}
    for key, value in shape_defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.what in ("recipes", "byte-level", "shape-deberta"):
        # The sequence-classification detectors (DeBERTa-v3, RoBERTa) and byte-level BPE: scripts/onnx_recipe_fixtures.py.
        import onnx_recipe_fixtures as recipes
        {"recipes": recipes.write_recipes, "byte-level": recipes.write_byte_level_checks}.get(args.what, lambda out: recipes.write_shape_deberta(out, args))(args.out)
        return
    if args.what in ("spans", "shape-spans"):
        # The token-classification span detector (LettuceDetect's layout): scripts/onnx_spans.py.
        import onnx_spans
        if args.what == "spans":
            onnx_spans.write_spans(args.out)
        else:
            onnx_spans.write_shape_spans(args.out, args)
        return
    if args.what == "fixtures":
        bert = fixture(args.out, "bert-wordpiece", "wordpiece", ["contradiction", "entailment", "neutral"], seed=1)
        fixture(args.out, "bert-permuted", "wordpiece", ["ENTAILMENT", "NEUTRAL", "CONTRADICTION"], seed=2)
        deberta = fixture(args.out, "deberta-unigram", "unigram", ["entailment", "neutral", "contradiction"], seed=3, type_vocab=0)
        graph_variants(args.out, "bert-wordpiece", *bert)
        graph_variants(args.out, "deberta-unigram", *deberta)
        fixture(args.out, "two-label", "wordpiece", ["entailment", "not_entailment"], seed=4)
        fixture(args.out, "bad-labels", "wordpiece", ["LABEL_0", "LABEL_1", "LABEL_2"], seed=5)
        relevance_fixtures(args.out)
    elif args.what == "relevance":
        relevance_fixtures(args.out)
    elif args.what in ("t5", "shape-t5"):
        import onnx_t5_recipes
        if args.what == "t5":
            onnx_t5_recipes.t5_fixtures(args.out)
        else:
            onnx_t5_recipes.shape_t5(args.out, args.preset, args.int8, args.per_channel)
    elif args.what in ("quantize", "fp16"):
        if not args.dest:
            ap.error(f"{args.what} needs IN.onnx OUT.onnx")
        model = onnx.load(args.out)
        onnx.save(quantize_dynamic(model, args.per_channel) if args.what == "quantize" else to_fp16(model), args.dest)
        print(f"wrote {args.dest}")
    elif args.what == "matmul":
        m, k, n = args.m, args.k, args.n
        rng = np.random.default_rng(0)
        # B is a constant initializer, as model weights are, so onnxruntime may prepack it.
        b = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "b")
        graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], "matmul",
                                  [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k])],
                                  [helper.make_tensor_value_info("c", TensorProto.FLOAT, [m, n])], [b])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        os.makedirs(args.out, exist_ok=True)
        onnx.save(model, os.path.join(args.out, "matmul.onnx"))
        print(f"wrote {args.out}/matmul.onnx")
    else:
        cfg = {"vocab": args.vocab, "hidden": args.hidden, "heads": args.heads, "intermediate": args.intermediate, "layers": args.layers,
               "max_position": args.max_position, "type_vocab": args.type_vocab, "labels": 3}
        write_model_dir(args.out, cfg, ["contradiction", "entailment", "neutral"], None, seed=0)
        if args.int8:
            graph = os.path.join(args.out, "onnx", "model.onnx")
            onnx.save(quantize_dynamic(onnx.load(graph), args.per_channel), os.path.join(args.out, "onnx", "model_int8.onnx"))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
