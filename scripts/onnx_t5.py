"""Random-weight T5 graphs (the architecture of transformers' T5 models) built with onnx.helper,
and the same networks in numpy, written from the math and not from the graphs.

What is modelled, as transformers' modeling_t5.py computes it:
- T5LayerNorm: an RMS norm (no mean subtraction, no bias), x * rsqrt(mean(x^2) + eps) * weight;
- attention without the 1/sqrt(d_kv) scaling, with a relative position bias: an embedding of
  `buckets` rows per head, present only in the first layer of each stack and added, with the
  mask, in every layer (bidirectional buckets in the encoder, causal ones in the decoder's
  self-attention; none in the cross-attention);
- the feed-forward block: ReLU (t5-base) or gated GELU (flan-t5: gelu_new(x wi_0) * (x wi_1),
  gelu_new being the tanh approximation);
- heads: a token classifier on the encoder's output (T5ForTokenClassification, what HHEM-2.1-Open
  wraps: logits [batch, sequence, labels]) and the seq2seq language-model head (lm_head; with
  tied embeddings the decoder output is scaled by d_model**-0.5 before the shared embedding's
  transpose, untied (flan-t5, tie_word_embeddings false) it is not scaled).

Export layouts: HHEM as one graph, onnx/model.onnx (input_ids, attention_mask -> logits
[batch, sequence, 2]); a seq2seq model as optimum exports it: onnx/encoder_model.onnx
(input_ids, attention_mask -> last_hidden_state) and onnx/decoder_model.onnx (input_ids,
encoder_attention_mask, encoder_hidden_states -> logits [batch, decoder_sequence, vocab] and the
present.N.{decoder,encoder}.{key,value} tensors).
"""
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
F32_MIN = float(np.finfo(np.float32).min)


# ---------------------------------------------------------------- weights

def make_t5_weights(cfg, seed, head):
    """head: "token" (a classifier over the encoder output) or "lm" (decoder and lm_head)."""
    rng = np.random.default_rng(seed)
    d, inner, ff, h = cfg["d_model"], cfg["heads"] * cfg["d_kv"], cfg["d_ff"], cfg["heads"]

    def w(*shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def norm():
        return (1 + w(d, scale=0.1)).astype(np.float32)

    def ffn(prefix):
        if cfg["ffn"] == "gated-gelu":
            p[f"{prefix}_wi0"] = w(d, ff, scale=1 / math.sqrt(d))
            p[f"{prefix}_wi1"] = w(d, ff, scale=1 / math.sqrt(d))
        else:
            p[f"{prefix}_wi"] = w(d, ff, scale=1 / math.sqrt(d))
        p[f"{prefix}_wo"] = w(ff, d, scale=1 / math.sqrt(ff))

    def attention(prefix):
        for n in ("q", "k", "v"):
            p[f"{prefix}_{n}"] = w(d, inner, scale=1 / math.sqrt(d))
        p[f"{prefix}_o"] = w(inner, d, scale=1 / math.sqrt(inner))

    p = {"shared": w(cfg["vocab"], d, scale=1.0), "enc_rel": w(cfg["buckets"], h, scale=0.5), "enc_final": norm()}
    for i in range(cfg["layers"]):
        p[f"enc{i}_ln0"], p[f"enc{i}_ln1"] = norm(), norm()
        attention(f"enc{i}_sa")
        ffn(f"enc{i}_ff")
    if head == "token":
        p["cls_w"] = w(d, cfg["labels"], scale=1.0)
        p["cls_b"] = w(cfg["labels"], scale=0.1)
        return p
    p["dec_rel"] = w(cfg["buckets"], h, scale=0.5)
    p["dec_final"] = norm()
    for i in range(cfg["dec_layers"]):
        p[f"dec{i}_ln0"], p[f"dec{i}_ln1"], p[f"dec{i}_ln2"] = norm(), norm(), norm()
        attention(f"dec{i}_sa")
        attention(f"dec{i}_ca")
        ffn(f"dec{i}_ff")
    if not cfg["tie"]:
        p["lm_head"] = w(d, cfg["vocab"], scale=1 / math.sqrt(d))
    return p


# ---------------------------------------------------------------- graphs

class Builder:
    def __init__(self, p):
        self.nodes, self.inits, self.consts = [], [], {}
        for k, v in p.items():
            self.inits.append(numpy_helper.from_array(np.asarray(v), k))

    def const(self, value, dtype):
        key = (repr(value), np.dtype(dtype).name)
        if key not in self.consts:
            name = f"c{len(self.consts)}"
            self.inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
            self.consts[key] = name
        return self.consts[key]

    def node(self, op, ins, outs=None, **attrs):
        outs = outs or [f"t{len(self.nodes)}"]
        self.nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs[0]

    def rms(self, x, weight, eps):
        var = self.node("ReduceMean", [self.node("Mul", [x, x])], axes=[-1], keepdims=1)
        return self.node("Mul", [self.node("Div", [x, self.node("Sqrt", [self.node("Add", [var, self.const(eps, np.float32)])])]), weight])

    def length(self, t, axis):
        return self.node("Gather", [self.node("Shape", [t]), self.const(axis, np.int64)], axis=0)

    def buckets(self, q_len, k_len, cfg, bidirectional):
        """transformers' _relative_position_bucket over memory - query positions, [q, k] int64."""
        b = self.node
        zero, one = self.const(0, np.int64), self.const(1, np.int64)
        q = b("Unsqueeze", [b("Range", [zero, q_len, one]), self.const([1], np.int64)])
        k = b("Unsqueeze", [b("Range", [zero, k_len, one]), self.const([0], np.int64)])
        rel = b("Sub", [k, q])
        nb = cfg["buckets"]
        if bidirectional:
            nb //= 2
            base = b("Mul", [b("Cast", [b("Greater", [rel, zero])], to=TensorProto.INT64), self.const(nb, np.int64)])
            n = b("Abs", [rel])
        else:
            base = None
            n = b("Neg", [b("Min", [rel, zero])])
        exact = nb // 2
        small = b("Less", [n, self.const(exact, np.int64)])
        # log(n / exact) / log(max_distance / exact) * (nb - exact), in float32 as torch computes it;
        # n is raised to `exact` first where it is small (that branch is not taken, and log(0) is not finite).
        nf = b("Cast", [b("Max", [n, self.const(exact, np.int64)])], to=TensorProto.FLOAT)
        scaled = b("Mul", [b("Div", [b("Log", [b("Div", [nf, self.const(float(exact), np.float32)])]), self.const(math.log(cfg["max_distance"] / exact), np.float32)]), self.const(float(nb - exact), np.float32)])
        large = b("Min", [b("Add", [self.const(exact, np.int64), b("Cast", [scaled], to=TensorProto.INT64)]), self.const(nb - 1, np.int64)])
        bucket = b("Where", [small, n, large])
        return b("Add", [base, bucket]) if base else bucket

    def position_bias(self, rel_weight, buckets):
        """[1, heads, q, k] from the [buckets, heads] embedding."""
        values = self.node("Gather", [rel_weight, buckets])  # [q, k, heads]
        return self.node("Unsqueeze", [self.node("Transpose", [values], perm=[2, 0, 1]), self.const([0], np.int64)])

    def mask_bias(self, mask):
        """(1 - mask) * float32 min, [batch, 1, 1, k]."""
        m = self.node("Cast", [mask], to=TensorProto.FLOAT)
        return self.node("Unsqueeze", [self.node("Mul", [self.node("Sub", [self.const(1.0, np.float32), m]), self.const(F32_MIN, np.float32)]), self.const([1, 2], np.int64)])

    def attention(self, x, kv, prefix, bias, cfg):
        """Returns the block's output and its key and value tensors [batch, heads, k, d_kv]."""
        b, h, dk = self.node, cfg["heads"], cfg["d_kv"]
        split = self.const([0, 0, h, dk], np.int64)

        def heads(t, w):
            return b("Transpose", [b("Reshape", [b("MatMul", [t, w]), split])], perm=[0, 2, 1, 3])

        q, k, v = heads(x, f"{prefix}_q"), heads(kv, f"{prefix}_k"), heads(kv, f"{prefix}_v")
        scores = b("Add", [b("MatMul", [q, b("Transpose", [k], perm=[0, 1, 3, 2])]), bias])
        ctx = b("MatMul", [b("Softmax", [scores], axis=-1), v])
        ctx = b("Reshape", [b("Transpose", [ctx], perm=[0, 2, 1, 3]), self.const([0, 0, h * dk], np.int64)])
        return b("MatMul", [ctx, f"{prefix}_o"]), k, v

    def ffn(self, x, prefix, cfg):
        b = self.node
        if cfg["ffn"] == "gated-gelu":
            g = b("MatMul", [x, f"{prefix}_wi0"])
            cube = b("Mul", [b("Mul", [g, g]), g])
            inner = b("Mul", [b("Add", [g, b("Mul", [cube, self.const(0.044715, np.float32)])]), self.const(math.sqrt(2.0 / math.pi), np.float32)])
            gelu = b("Mul", [b("Mul", [g, self.const(0.5, np.float32)]), b("Add", [self.const(1.0, np.float32), b("Tanh", [inner])])])
            act = b("Mul", [gelu, b("MatMul", [x, f"{prefix}_wi1"])])
        else:
            act = b("Relu", [b("MatMul", [x, f"{prefix}_wi"])])
        return b("MatMul", [act, f"{prefix}_wo"])

    def encoder(self, cfg, ids, mask):
        b = self.node
        x = b("Gather", ["shared", ids])
        s = self.length(ids, 1)
        bias = b("Add", [self.position_bias("enc_rel", self.buckets(s, s, cfg, True)), self.mask_bias(mask)])
        for i in range(cfg["layers"]):
            n = self.rms(x, f"enc{i}_ln0", cfg["eps"])
            out, _, _ = self.attention(n, n, f"enc{i}_sa", bias, cfg)
            x = b("Add", [x, out])
            x = b("Add", [x, self.ffn(self.rms(x, f"enc{i}_ln1", cfg["eps"]), f"enc{i}_ff", cfg)])
        return self.rms(x, "enc_final", cfg["eps"])

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="groundwatch-fixtures (t5)")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def ids_input(name, seq="sequence"):
    return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", seq])


def token_classifier_graph(cfg, p):
    """T5ForTokenClassification (HHEM-2.1-Open's network): logits [batch, sequence, labels]."""
    g = Builder(p)
    x = g.encoder(cfg, "input_ids", "attention_mask")
    g.node("Add", [g.node("MatMul", [x, "cls_w"]), "cls_b"], outs=["logits"])
    return g.model("t5_token_classification", [ids_input("input_ids"), ids_input("attention_mask")],
                   [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "sequence", cfg["labels"]])])


def encoder_graph(cfg, p):
    enc = {k: v for k, v in p.items() if k == "shared" or k.startswith("enc")}
    g = Builder(enc)
    g.node("Identity", [g.encoder(cfg, "input_ids", "attention_mask")], outs=["last_hidden_state"])
    return g.model("t5_encoder", [ids_input("input_ids", "encoder_sequence_length"), ids_input("attention_mask", "encoder_sequence_length")],
                   [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "encoder_sequence_length", cfg["d_model"]])])


def decoder_graph(cfg, p):
    dec = {k: v for k, v in p.items() if k in ("shared", "lm_head") or k.startswith("dec")}
    g = Builder(dec)
    b = g.node
    x = b("Gather", ["shared", "input_ids"])
    t = g.length("input_ids", 1)
    # Causal self-attention: the decoder's own buckets (not bidirectional) and a mask above the diagonal.
    zero, one = g.const(0, np.int64), g.const(1, np.int64)
    rows = b("Unsqueeze", [b("Range", [zero, t, one]), g.const([1], np.int64)])
    cols = b("Unsqueeze", [b("Range", [zero, t, one]), g.const([0], np.int64)])
    future = b("Cast", [b("Greater", [cols, rows])], to=TensorProto.FLOAT)
    causal = b("Unsqueeze", [b("Mul", [future, g.const(F32_MIN, np.float32)]), g.const([0, 1], np.int64)])
    self_bias = b("Add", [g.position_bias("dec_rel", g.buckets(t, t, cfg, False)), causal])
    cross_bias = g.mask_bias("encoder_attention_mask")
    outputs = []
    for i in range(cfg["dec_layers"]):
        n0 = g.rms(x, f"dec{i}_ln0", cfg["eps"])
        out, k, v = g.attention(n0, n0, f"dec{i}_sa", self_bias, cfg)
        x = b("Add", [x, out])
        out, ck, cv = g.attention(g.rms(x, f"dec{i}_ln1", cfg["eps"]), "encoder_hidden_states", f"dec{i}_ca", cross_bias, cfg)
        x = b("Add", [x, out])
        x = b("Add", [x, g.ffn(g.rms(x, f"dec{i}_ln2", cfg["eps"]), f"dec{i}_ff", cfg)])
        for kind, tensor, seq in (("decoder.key", k, "decoder_sequence_length"), ("decoder.value", v, "decoder_sequence_length"),
                                  ("encoder.key", ck, "encoder_sequence_length"), ("encoder.value", cv, "encoder_sequence_length")):
            name = f"present.{i}.{kind}"
            b("Identity", [tensor], outs=[name])
            outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", cfg["heads"], seq, cfg["d_kv"]]))
    x = g.rms(x, "dec_final", cfg["eps"])
    if cfg["tie"]:
        x = b("Mul", [x, g.const(cfg["d_model"] ** -0.5, np.float32)])
        b("MatMul", [x, b("Transpose", ["shared"], perm=[1, 0])], outs=["logits"])
    else:
        b("MatMul", [x, "lm_head"], outs=["logits"])
    inputs = [helper.make_tensor_value_info("encoder_attention_mask", TensorProto.INT64, ["batch", "encoder_sequence_length"]),
              ids_input("input_ids", "decoder_sequence_length"),
              helper.make_tensor_value_info("encoder_hidden_states", TensorProto.FLOAT, ["batch", "encoder_sequence_length", cfg["d_model"]])]
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "decoder_sequence_length", cfg["vocab"]])
    return g.model("t5_decoder", inputs, [logits] + outputs)


# ---------------------------------------------------------------- numpy reference

def np_buckets(q_len, k_len, cfg, bidirectional):
    rel = np.arange(k_len)[None, :] - np.arange(q_len)[:, None]
    nb = cfg["buckets"]
    base = 0
    if bidirectional:
        nb //= 2
        base = (rel > 0).astype(np.int64) * nb
        n = np.abs(rel)
    else:
        n = -np.minimum(rel, 0)
    exact = nb // 2
    nf = np.maximum(n, exact).astype(np.float32)
    scaled = np.log(nf / np.float32(exact)) / np.float32(math.log(cfg["max_distance"] / exact)) * np.float32(nb - exact)
    large = np.minimum(exact + scaled.astype(np.int64), nb - 1)
    return base + np.where(n < exact, n, large)


def np_rms(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def np_softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def np_attention(x, kv, P, prefix, bias, cfg, mm):
    B, h, dk = x.shape[0], cfg["heads"], cfg["d_kv"]

    def split(t):
        return t.reshape(B, t.shape[1], h, dk).transpose(0, 2, 1, 3)

    q, k, v = split(mm(x, P[f"{prefix}_q"])), split(mm(kv, P[f"{prefix}_k"])), split(mm(kv, P[f"{prefix}_v"]))
    a = np_softmax(q @ k.transpose(0, 1, 3, 2) + bias)
    ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, x.shape[1], h * dk)
    return mm(ctx, P[f"{prefix}_o"])


def np_ffn(x, P, prefix, cfg, mm):
    if cfg["ffn"] == "gated-gelu":
        g = mm(x, P[f"{prefix}_wi0"])
        gelu = 0.5 * g * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (g + 0.044715 * g ** 3)))
        return mm(gelu * mm(x, P[f"{prefix}_wi1"]), P[f"{prefix}_wo"])
    return mm(np.maximum(mm(x, P[f"{prefix}_wi"]), 0.0), P[f"{prefix}_wo"])


def np_mask_bias(mask, dtype):
    return ((1.0 - np.asarray(mask, dtype=dtype)) * F32_MIN)[:, None, None, :]


def np_encoder(cfg, P, ids, mask, mm):
    ids = np.asarray(ids)
    S = ids.shape[1]
    x = P["shared"][ids]
    pos = P["enc_rel"][np_buckets(S, S, cfg, True)].transpose(2, 0, 1)[None]
    bias = pos + np_mask_bias(mask, x.dtype)
    for i in range(cfg["layers"]):
        n = np_rms(x, P[f"enc{i}_ln0"], cfg["eps"])
        x = x + np_attention(n, n, P, f"enc{i}_sa", bias, cfg, mm)
        x = x + np_ffn(np_rms(x, P[f"enc{i}_ln1"], cfg["eps"]), P, f"enc{i}_ff", cfg, mm)
    return np_rms(x, P["enc_final"], cfg["eps"])


def cast(p, dtype):
    return {k: v.astype(dtype) for k, v in p.items()}


def np_token_logits(cfg, p, ids, mask, dtype=np.float64, mm=None):
    """[batch, sequence, labels]: the token classifier on the encoder's output."""
    mm = mm or (lambda t, w: t @ w)
    P = cast(p, dtype)
    return mm(np_encoder(cfg, P, ids, mask, mm), P["cls_w"]) + P["cls_b"]


def np_decoder_logits(cfg, p, ids, mask, decoder_ids, dtype=np.float64, mm=None):
    """[batch, decoder sequence, vocab]: the encoder, then the decoder over `decoder_ids`."""
    mm = mm or (lambda t, w: t @ w)
    P = cast(p, dtype)
    enc = np_encoder(cfg, P, ids, mask, mm)
    dec_ids = np.asarray(decoder_ids)
    T = dec_ids.shape[1]
    x = P["shared"][dec_ids]
    causal = np.triu(np.full((T, T), F32_MIN, dtype=dtype), 1)[None, None]
    self_bias = P["dec_rel"][np_buckets(T, T, cfg, False)].transpose(2, 0, 1)[None] + causal
    cross_bias = np_mask_bias(mask, dtype)
    for i in range(cfg["dec_layers"]):
        n = np_rms(x, P[f"dec{i}_ln0"], cfg["eps"])
        x = x + np_attention(n, n, P, f"dec{i}_sa", self_bias, cfg, mm)
        x = x + np_attention(np_rms(x, P[f"dec{i}_ln1"], cfg["eps"]), enc, P, f"dec{i}_ca", cross_bias, cfg, mm)
        x = x + np_ffn(np_rms(x, P[f"dec{i}_ln2"], cfg["eps"]), P, f"dec{i}_ff", cfg, mm)
    x = np_rms(x, P["dec_final"], cfg["eps"])
    if cfg["tie"]:
        return mm(x * cfg["d_model"] ** -0.5, P["shared"].T)
    return mm(x, P["lm_head"])
