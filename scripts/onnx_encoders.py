"""The encoders of the sequence-classification detectors as ONNX graphs, with the same networks
written again in numpy from the maths (never from the graph): DeBERTa-v2/v3
(DebertaV2ForSequenceClassification: FactCG-DeBERTa-v3-Large, MiniCheck-DeBERTa-v3-Large) and
RoBERTa (RobertaForSequenceClassification: MiniCheck-RoBERTa-Large).

The graphs take what an optimum export of these architectures takes: input_ids and
attention_mask (no token_type_ids: DeBERTa-v3 has type_vocab_size 0, RoBERTa's one type is
added inside), and give logits [batch, labels].

DeBERTa-v3, as transformers' modeling_deberta_v2.py computes it (read, not copied):
  - no absolute positions (position_biased_input false); embeddings LayerNorm (eps 1e-7), then
    multiplied by the attention mask;
  - relative positions i - j mapped to log buckets (make_log_bucket_position): distances under
    mid = position_buckets / 2 are kept, longer ones become
    sign * (ceil(log(|d| / mid) / log((max_relative_positions - 1) / mid) * (mid - 1)) + mid);
  - one relative-embedding table of 2 * position_buckets rows, LayerNorm'd (norm_rel_ebd
    "layer_norm"), projected by each layer's own query and key weights (share_att_key);
  - scores = (q.k + c2p + p2c) / sqrt(head_dim * 3), with c2p[i, j] = q_i . Kr[clamp(b(i - j) + span)]
    and p2c[i, j] = k_j . Qr[clamp(span - b(j - i))];
  - ContextPooler: dense + gelu on token 0, then the classifier.
RoBERTa: BERT's layers (LayerNorm eps 1e-5), positions cumsum(ids != pad) * (ids != pad) + pad
(create_position_ids_from_input_ids), one token type, and RobertaClassificationHead (dense + tanh
on <s>, then out_proj) with no pooler.
"""
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onnx_fixtures as base

OPSET = base.OPSET
F32_MIN = float(np.finfo(np.float32).min)


# ---------------------------------------------------------------- configurations

def deberta_config(vocab, hidden=32, heads=2, intermediate=64, layers=2, labels=2, buckets=32, max_position=512):
    """A DeBERTa-v3 configuration; max_relative_positions -1 means max_position_embeddings, as in the real configs."""
    return {"arch": "deberta", "vocab": vocab, "hidden": hidden, "heads": heads, "intermediate": intermediate, "layers": layers,
            "labels": labels, "buckets": buckets, "max_position": max_position, "max_relative": max_position, "eps": 1e-7}


def roberta_config(vocab, hidden=32, heads=2, intermediate=64, layers=2, labels=2, pad=1, max_position=514):
    return {"arch": "roberta", "vocab": vocab, "hidden": hidden, "heads": heads, "intermediate": intermediate, "layers": layers,
            "labels": labels, "pad": pad, "max_position": max_position, "eps": 1e-5}


def hf_config(cfg, id2label):
    """config.json as transformers writes it for the architecture (the fields the real repositories have)."""
    labels = {"id2label": {str(i): l for i, l in enumerate(id2label)}, "label2id": {l: i for i, l in enumerate(id2label)}}
    common = {"hidden_size": cfg["hidden"], "num_attention_heads": cfg["heads"], "num_hidden_layers": cfg["layers"],
              "intermediate_size": cfg["intermediate"], "hidden_act": "gelu", "vocab_size": cfg["vocab"],
              "max_position_embeddings": cfg["max_position"], "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
              "initializer_range": 0.02, "torch_dtype": "float32"}
    if cfg["arch"] == "deberta":
        return {"architectures": ["DebertaV2ForSequenceClassification"], "model_type": "deberta-v2", **common, **labels,
                "layer_norm_eps": cfg["eps"], "max_relative_positions": -1, "position_buckets": cfg["buckets"], "norm_rel_ebd": "layer_norm",
                "share_att_key": True, "pos_att_type": ["p2c", "c2p"], "position_biased_input": False, "relative_attention": True,
                "type_vocab_size": 0, "pad_token_id": 0, "pooler_dropout": 0, "pooler_hidden_act": "gelu", "pooler_hidden_size": cfg["hidden"]}
    return {"architectures": ["RobertaForSequenceClassification"], "model_type": "roberta", **common, **labels,
            "layer_norm_eps": cfg["eps"], "type_vocab_size": 1, "pad_token_id": cfg["pad"], "bos_token_id": 0, "eos_token_id": 2,
            "position_embedding_type": "absolute", "classifier_dropout": None}


def make_weights(cfg, seed):
    rng = np.random.default_rng(seed)
    h, inter, nl = cfg["hidden"], cfg["intermediate"], cfg["labels"]

    def w(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    p = {"word": w(cfg["vocab"], h, scale=0.5), "emb_g": 1 + w(h, scale=0.1), "emb_b": w(h, scale=0.1),
         "head_w": w(h, h, scale=1.0 / math.sqrt(h)), "head_b": w(h, scale=0.05), "cls_w": w(h, nl, scale=1.0), "cls_b": w(nl)}
    if cfg["arch"] == "deberta":
        p.update({"rel": w(2 * cfg["buckets"], h, scale=0.5), "rel_g": 1 + w(h, scale=0.1), "rel_b": w(h, scale=0.1)})
    else:
        p.update({"pos": w(cfg["max_position"], h, scale=0.5), "type": w(1, h, scale=0.5)})
    for i in range(cfg["layers"]):
        for name, shape in [("q", (h, h)), ("k", (h, h)), ("v", (h, h)), ("o", (h, h)), ("f1", (h, inter)), ("f2", (inter, h))]:
            p[f"l{i}_{name}_w"] = w(*shape, scale=1.0 / math.sqrt(shape[0]))
            p[f"l{i}_{name}_b"] = w(shape[1], scale=0.05)
        for ln in ("ln1", "ln2"):
            p[f"l{i}_{ln}_g"] = 1 + w(h, scale=0.1)
            p[f"l{i}_{ln}_b"] = w(h, scale=0.1)
    return p


# ---------------------------------------------------------------- graphs

class Graph:
    def __init__(self):
        self.nodes, self.inits = [], []

    def init(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def const(self, name, value, dtype):
        return self.init(name, np.array(value, dtype=dtype))

    def node(self, op, ins, outs=None, **attrs):
        outs = outs or [f"t{len(self.nodes)}"]
        self.nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs[0]

    def dense(self, x, w, b):
        return self.node("Add", [self.node("MatMul", [x, w]), b])

    def gelu(self, x):
        erf = self.node("Erf", [self.node("Div", [x, "c_sqrt2"])])
        return self.node("Mul", [self.node("Mul", [x, "c_half"]), self.node("Add", ["c_one_f", erf])])

    def layer_norm(self, x, g, b, eps):
        return self.node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    def model(self, labels):
        inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in ["input_ids", "attention_mask"]]
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])]
        graph = helper.make_graph(self.nodes, "sequence-classification", inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="groundwatch-fixtures")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def _common_consts(g, cfg):
    h, nh = cfg["hidden"], cfg["heads"]
    g.const("c_zero", 0, np.int64)
    g.const("c_one", 1, np.int64)
    g.const("c_one_f", 1.0, np.float32)
    g.const("c_half", 0.5, np.float32)
    g.const("c_sqrt2", math.sqrt(2.0), np.float32)
    g.const("c_min", F32_MIN, np.float32)
    g.const("c_ax12", [1, 2], np.int64)
    g.const("c_split_heads", [0, 0, nh, h // nh], np.int64)
    g.const("c_merge_heads", [0, 0, h], np.int64)


def _layer(g, cfg, i, x, key_mask, attention):
    """One post-LayerNorm encoder layer; `attention(q, k)` gives the scaled scores [B, H, S, S]."""
    def heads(t):
        return g.node("Transpose", [g.node("Reshape", [t, "c_split_heads"])], perm=[0, 2, 1, 3])

    q, k, v = (heads(g.dense(x, f"l{i}_{n}_w", f"l{i}_{n}_b")) for n in "qkv")
    scores = g.node("Where", [key_mask, attention(q, k), "c_min"])
    probs = g.node("Softmax", [scores], axis=-1)
    ctx = g.node("Reshape", [g.node("Transpose", [g.node("MatMul", [probs, v])], perm=[0, 2, 1, 3]), "c_merge_heads"])
    x = g.layer_norm(g.node("Add", [x, g.dense(ctx, f"l{i}_o_w", f"l{i}_o_b")]), f"l{i}_ln1_g", f"l{i}_ln1_b", cfg["eps"])
    f = g.gelu(g.dense(x, f"l{i}_f1_w", f"l{i}_f1_b"))
    return g.layer_norm(g.node("Add", [x, g.dense(f, f"l{i}_f2_w", f"l{i}_f2_b")]), f"l{i}_ln2_g", f"l{i}_ln2_b", cfg["eps"])


def build_deberta(cfg, p):
    g = Graph()
    for name, arr in p.items():
        g.init(name, arr)
    _common_consts(g, cfg)
    h, nh = cfg["hidden"], cfg["heads"]
    hd, span, mid = h // nh, cfg["buckets"], cfg["buckets"] // 2
    g.const("c_mid", float(mid), np.float32)
    g.const("c_mid_less", float(mid - 1), np.float32)
    g.const("c_log_max", math.log((cfg["max_relative"] - 1) / mid), np.float32)
    g.const("c_span", float(span), np.float32)
    g.const("c_zero_f", 0.0, np.float32)
    g.const("c_ax1", [1], np.int64)
    g.const("c_ax2", [2], np.int64)
    g.const("c_span_top", float(2 * span - 1), np.float32)
    g.const("c_heads", [nh], np.int64)
    g.const("c_rel_heads", [2 * span, nh, hd], np.int64)
    g.const("c_scale", 1.0 / math.sqrt(hd * 3), np.float32)

    maskf = g.node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    x = g.layer_norm(g.node("Gather", ["word", "input_ids"]), "emb_g", "emb_b", cfg["eps"])
    x = g.node("Mul", [x, g.node("Unsqueeze", [maskf, "c_ax2"])])
    key_mask = g.node("Unsqueeze", [g.node("Cast", ["attention_mask"], to=TensorProto.BOOL), "c_ax12"])  # [B,1,1,S]

    # Relative positions i - j and their log buckets, computed in float32 as the traced export does.
    shape = g.node("Shape", ["input_ids"])
    batch = g.node("Gather", [shape, "c_zero"], axis=0)
    seq = g.node("Gather", [shape, "c_one"], axis=0)
    pos = g.node("Range", ["c_zero", seq, "c_one"])
    rel = g.node("Cast", [g.node("Sub", [g.node("Unsqueeze", [pos, "c_ax1"]), g.node("Unsqueeze", [pos, "c_zero"])])], to=TensorProto.FLOAT)
    absf = g.node("Abs", [rel])
    abs_pos = g.node("Where", [g.node("Less", [absf, "c_mid"]), "c_mid_less", absf])
    log_pos = g.node("Add", [g.node("Ceil", [g.node("Mul", [g.node("Div", [g.node("Log", [g.node("Div", [abs_pos, "c_mid"])]), "c_log_max"]), "c_mid_less"])]), "c_mid"])
    bucket = g.node("Where", [g.node("LessOrEqual", [abs_pos, "c_mid"]), rel, g.node("Mul", [log_pos, g.node("Sign", [rel])])])
    clip = lambda t: g.node("Cast", [g.node("Clip", [t, "c_zero_f", "c_span_top"])], to=TensorProto.INT64)  # noqa: E731
    seq1 = g.node("Unsqueeze", [seq, "c_zero"])
    shape4 = g.node("Concat", [g.node("Unsqueeze", [batch, "c_zero"]), "c_heads", seq1, seq1], axis=0)
    c2p_idx = g.node("Expand", [clip(g.node("Add", [bucket, "c_span"])), shape4])
    p2c_idx = g.node("Expand", [clip(g.node("Sub", ["c_span", bucket])), shape4])
    rel_emb = g.layer_norm("rel", "rel_g", "rel_b", cfg["eps"])

    for i in range(cfg["layers"]):
        def rel_heads(w, b):  # [H, hd, 2span]: the relative table through this layer's projection, per head, transposed
            return g.node("Transpose", [g.node("Reshape", [g.dense(rel_emb, w, b), "c_rel_heads"])], perm=[1, 2, 0])

        def attention(q, k, i=i):
            content = g.node("MatMul", [q, g.node("Transpose", [k], perm=[0, 1, 3, 2])])
            c2p = g.node("GatherElements", [g.node("MatMul", [q, rel_heads(f"l{i}_k_w", f"l{i}_k_b")]), c2p_idx], axis=3)
            p2c = g.node("GatherElements", [g.node("MatMul", [k, rel_heads(f"l{i}_q_w", f"l{i}_q_b")]), p2c_idx], axis=3)
            p2c = g.node("Transpose", [p2c], perm=[0, 1, 3, 2])
            return g.node("Mul", [g.node("Add", [g.node("Add", [content, c2p]), p2c]), "c_scale"])

        x = _layer(g, cfg, i, x, key_mask, attention)
    pooled = g.gelu(g.dense(g.node("Gather", [x, "c_zero"], axis=1), "head_w", "head_b"))
    g.node("Add", [g.node("MatMul", [pooled, "cls_w"]), "cls_b"], outs=["logits"])
    return g.model(cfg["labels"])


def build_roberta(cfg, p):
    g = Graph()
    for name, arr in p.items():
        g.init(name, arr)
    _common_consts(g, cfg)
    hd = cfg["hidden"] // cfg["heads"]
    g.const("c_pad", cfg["pad"], np.int64)
    g.const("c_scale", 1.0 / math.sqrt(hd), np.float32)
    not_pad = g.node("Cast", [g.node("Not", [g.node("Equal", ["input_ids", "c_pad"])])], to=TensorProto.INT64)
    positions = g.node("Add", [g.node("Mul", [g.node("CumSum", [not_pad, "c_one"]), not_pad]), "c_pad"])
    x = g.node("Add", [g.node("Gather", ["word", "input_ids"]), g.node("Gather", ["pos", positions])])
    x = g.node("Add", [x, g.node("Gather", ["type", "c_zero"])])  # token_type_ids all 0: the one type's row
    x = g.layer_norm(x, "emb_g", "emb_b", cfg["eps"])
    key_mask = g.node("Unsqueeze", [g.node("Cast", ["attention_mask"], to=TensorProto.BOOL), "c_ax12"])

    def attention(q, k):
        return g.node("Mul", [g.node("MatMul", [q, g.node("Transpose", [k], perm=[0, 1, 3, 2])]), "c_scale"])

    for i in range(cfg["layers"]):
        x = _layer(g, cfg, i, x, key_mask, attention)
    dense = g.node("Tanh", [g.dense(g.node("Gather", [x, "c_zero"], axis=1), "head_w", "head_b")])
    g.node("Add", [g.node("MatMul", [dense, "cls_w"]), "cls_b"], outs=["logits"])
    return g.model(cfg["labels"])


def build_graph(cfg, p):
    return build_deberta(cfg, p) if cfg["arch"] == "deberta" else build_roberta(cfg, p)


# ---------------------------------------------------------------- numpy references

def log_bucket(d, bucket_size, max_position):
    """make_log_bucket_position for integer distances d (numpy array), in float64."""
    mid = bucket_size // 2
    d = np.asarray(d, dtype=np.float64)
    a = np.abs(d)
    out = d.copy()
    far = a > mid
    with np.errstate(divide="ignore"):
        steps = np.log(a[far] / mid) / math.log((max_position - 1) / mid) * (mid - 1)
    out[far] = np.sign(d[far]) * (np.ceil(steps) + mid)
    return out.astype(np.int64)


def check_bucket_margin(cfg, longest):
    """The graph computes the buckets in float32: refuse a configuration where a distance up to
    `longest` puts the ceil's argument within 2e-5 of an integer, so float32 and float64 agree
    (max_relative_positions - 1 itself is exactly mid - 1 steps: log(x) / log(x) in float32 is 1)."""
    mid = cfg["buckets"] // 2
    a = np.arange(mid + 1, longest + 1, dtype=np.float64)
    a = a[a != cfg["max_relative"] - 1]  # exactly mid - 1 steps: float32 gives it exactly too (the tests cover a distance of 511)
    steps = np.log(a / mid) / math.log((cfg["max_relative"] - 1) / mid) * (mid - 1)
    gap = np.abs(steps - np.round(steps)).min() if len(a) else 1.0
    if gap < 2e-5:  # float32 log and division err by a few units in 1e-7 of ~mid steps
        raise SystemExit(f"position_buckets {cfg['buckets']} puts a bucket edge {gap:.2e} from an integer; pick another")


def _softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def _gelu(x):
    return 0.5 * x * (1.0 + base._erf(x / math.sqrt(2.0)))


def reference_logits(cfg, p, ids, dtype=np.float64, matmul=None):
    """The network in numpy for one unpadded sequence; `matmul(t, w)` replaces `t @ w` for the
    weight products (the int8 reference)."""
    ids = np.asarray(ids)
    S, h, nh = len(ids), cfg["hidden"], cfg["heads"]
    hd = h // nh
    P = {k: v.astype(dtype) for k, v in p.items()}
    mm = matmul or (lambda t, w: t @ w)
    eps = cfg["eps"]

    def dense(t, i, n):
        return mm(t, P[f"l{i}_{n}_w"]) + P[f"l{i}_{n}_b"]

    def split(t):  # [S, h] -> [nh, S, hd]
        return t.reshape(t.shape[0], nh, hd).transpose(1, 0, 2)

    if cfg["arch"] == "deberta":
        x = base.layer_norm(P["word"][ids], P["emb_g"], P["emb_b"], eps)
        span = cfg["buckets"]
        i_, j_ = np.meshgrid(np.arange(S), np.arange(S), indexing="ij")
        b = log_bucket(i_ - j_, span, cfg["max_relative"])  # b[i, j] = bucket(i - j)
        c2p_idx = np.clip(b + span, 0, 2 * span - 1)  # [query i, key j]
        p2c_idx = np.clip(span - b.T, 0, 2 * span - 1)  # [query i, key j]: span - bucket(j - i)
        rel = base.layer_norm(P["rel"], P["rel_g"], P["rel_b"], eps)
    else:
        pad = cfg["pad"]
        keep = (ids != pad).astype(np.int64)
        positions = np.cumsum(keep) * keep + pad
        x = P["word"][ids] + P["pos"][positions] + P["type"][0]
        x = base.layer_norm(x, P["emb_g"], P["emb_b"], eps)
    for i in range(cfg["layers"]):
        q, k, v = split(dense(x, i, "q")), split(dense(x, i, "k")), split(dense(x, i, "v"))
        if cfg["arch"] == "deberta":
            kr, qr = split(dense(rel, i, "k")), split(dense(rel, i, "q"))  # [nh, 2span, hd]
            c2p_all, p2c_all = q @ kr.transpose(0, 2, 1), k @ qr.transpose(0, 2, 1)  # [nh, S(query | key), 2span]
            rows = np.arange(S)
            c2p = c2p_all[:, rows[:, None], c2p_idx]  # q_i . Kr[c2p_idx[i, j]]
            p2c = p2c_all[:, rows[None, :], p2c_idx]  # k_j . Qr[p2c_idx[i, j]]
            s = (q @ k.transpose(0, 2, 1) + c2p + p2c) / math.sqrt(hd * 3)
        else:
            s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        ctx = (_softmax(s) @ v).transpose(1, 0, 2).reshape(S, h)
        x = base.layer_norm(x + dense(ctx, i, "o"), P[f"l{i}_ln1_g"], P[f"l{i}_ln1_b"], eps)
        x = base.layer_norm(x + dense(_gelu(dense(x, i, "f1")), i, "f2"), P[f"l{i}_ln2_g"], P[f"l{i}_ln2_b"], eps)
    first = mm(x[:1], P["head_w"]) + P["head_b"]
    pooled = _gelu(first) if cfg["arch"] == "deberta" else np.tanh(first)
    return (mm(pooled, P["cls_w"]) + P["cls_b"])[0]
