"""The span detector's fixture (issue 40): a random-weight token-classification graph in
LettuceDetect's layout (ModernBERT: byte-level BPE tokenizer.json, config.json naming
ModernBertForTokenClassification, 8,192 positions, two labels), its int8 variant, and
reference.json with what numpy and the python tokenizer compute for a few (question, passages,
answer) cases, written from the reference's definitions (KRLabsOrg/LettuceDetect:
lettucedetect/detectors/prompt_utils.py format_context, lettucedetect/prompts/qa_prompt_en.txt and
summary_prompt_en.txt, lettucedetect/detectors/transformer.py _group_passages_into_chunks and the
max over groups, lettucedetect/datasets/hallucination_dataset.py prepare_tokenized_input's
truncation="only_first"):

  /usr/bin/python3 scripts/onnx_fixtures.py spans test/fixtures/models/spans

The network is onnx_fixtures.py's encoder with a token head (logits [batch, sequence, 2]) and no
token_type_ids (ModernBERT takes none); positions are learnt embeddings of 8,192 rows, so a graph
fed more than 8,192 tokens fails rather than reads past its context.
"""
import json
import math
import os

import numpy as np
import onnx

import onnx_fixtures as base
import onnx_tokenizers as tok

# lettucedetect/prompts/qa_prompt_en.txt and summary_prompt_en.txt, as data (no trailing newline in either file).
QA_PROMPT_EN = ("Briefly answer the following question:\n{question}\nBear in mind that your response should be strictly based on the following "
                "{num_passages} passages:\n{context}\nIn case the passages do not contain the necessary information to answer the question, "
                "please reply with: \"Unable to answer based on given passages.\"\noutput:")
SUMMARY_PROMPT_EN = "Summarize the following text:\n{text}\noutput:"
PASSAGE_WORD_EN = "passage"
ID2LABEL = ["LABEL_0", "LABEL_1"]
MAX_POSITION = 8192

CASES = [
    {"name": "qa", "question": "When does the museum open?", "passages": ["The museum opens at nine.", "Entry costs ten euros for adults."],
     "answer": "The museum opens at ten and entry costs ten euros."},
    {"name": "summary", "question": None, "passages": ["Café crème costs 3 € in Zürich; the naïve résumé was short."],
     "answer": "Cafe\u0301 crème costs 4 € — a naïve résumé."},
    {"name": "cjk-emoji", "question": "Where is the tower?", "passages": ["東京タワー is in Tokyo 🙂."],
     "answer": "  東京タワー is in Tokyo 🙂👍🏽 🇫🇷!  \n"},
    {"name": "groups", "question": "What does entry cost?", "max_length": 200,
     "passages": ["The museum opens at nine every day of the week.", "Entry costs ten euros for adults and five for children.",
                  "The tower was built in 1889 in Paris.", "Refunds take five days; shipping is free."],
     "answer": "Entry costs ten euros, and the tower opens at nine."},
    {"name": "truncated", "question": "What is it?", "max_length": 64,
     "passages": ["The tower was built in 1889 in Paris, the capital of France, and it is three hundred metres tall."],
     "answer": "It is a tower."},
]
DEFAULT_MAX = 4096


def format_context(passages, question):
    block = "\n".join(f"{PASSAGE_WORD_EN} {i + 1}: {p}" for i, p in enumerate(passages))
    if question is None:
        return SUMMARY_PROMPT_EN.replace("{text}", block)
    return QA_PROMPT_EN.replace("{question}", question).replace("{num_passages}", str(len(passages))).replace("{context}", block)


def group_passages(bpe_, passages, question, answer, max_length):
    """transformer.py's _group_passages_into_chunks, from its description: greedy, each group's prompt + answer + 3 specials within max_length."""
    count = lambda t: len(bpe_.encode(t))  # noqa: E731
    budget = max_length - count(answer) - 3
    if count(format_context(passages, question)) <= budget:
        return [passages]
    passage_budget = budget - count(format_context([""], question))
    if passage_budget <= 0:
        return [passages]
    groups, current, used = [], [], 0
    for i, p in enumerate(passages):
        n = count(f"{PASSAGE_WORD_EN} {i + 1}: {p}")
        eff = n + (1 if current else 0)
        if used + eff > passage_budget and current:
            groups.append(current)
            current, used, eff = [], 0, n
        current.append(p)
        used += eff
    if current:
        groups.append(current)
    return groups


def softmax1(logits):
    z = logits - logits.max(-1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(-1, keepdims=True))[..., 1]


def write_spans(out):
    corpus = [QA_PROMPT_EN, SUMMARY_PROMPT_EN] + [c["answer"] for c in CASES] + [p for c in CASES for p in c["passages"]] + [c["question"] or "" for c in CASES]
    bpe_ = tok.modernbert_bpe(corpus, merges=160)
    cls_id, sep_id = bpe_.vocab["[CLS]"], bpe_.vocab["[SEP]"]
    cfg = {"vocab": len(bpe_.vocab), "hidden": 16, "heads": 1, "intermediate": 32, "layers": 1, "max_position": MAX_POSITION, "type_vocab": 0,
           "labels": 2, "token_head": True}
    d = os.path.join(out, "lettucedetect-modernbert")
    os.makedirs(os.path.join(d, "onnx"), exist_ok=True)
    p = base.make_weights(cfg, seed=40)
    for unused in ("pool_w", "pool_b"):
        p.pop(unused)
    onnx.save(base.build_graph(cfg, p), os.path.join(d, "onnx", "model.onnx"))
    onnx.save(base.quantize_dynamic(onnx.load(os.path.join(d, "onnx", "model.onnx"))), os.path.join(d, "onnx", "model_int8.onnx"))
    config = {"architectures": ["ModernBertForTokenClassification"], "model_type": "modernbert", "hidden_size": cfg["hidden"],
              "num_attention_heads": cfg["heads"], "num_hidden_layers": cfg["layers"], "intermediate_size": cfg["intermediate"],
              "max_position_embeddings": MAX_POSITION, "vocab_size": cfg["vocab"], "id2label": {str(i): l for i, l in enumerate(ID2LABEL)},
              "label2id": {l: i for i, l in enumerate(ID2LABEL)}, "pad_token_id": bpe_.vocab["[PAD]"], "cls_token_id": cls_id, "sep_token_id": sep_id}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(tok.modernbert_tokenizer_json(bpe_), f, ensure_ascii=False)
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump({"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]", "unk_token": "[UNK]",
                   "model_max_length": MAX_POSITION, "tokenizer_class": "PreTrainedTokenizerFast"}, f, indent=2)
    rows = []
    for c in CASES:
        max_length = c.get("max_length", DEFAULT_MAX)
        answer_ids = bpe_.encode(c["answer"])
        offsets = bpe_.offsets(c["answer"])
        groups = group_passages(bpe_, c["passages"], c["question"], c["answer"], max_length)
        per_group, truncated = [], 0
        for g in groups:
            prompt_ids = bpe_.encode(format_context(g, c["question"]))
            keep = max(0, max_length - 3 - len(answer_ids))
            truncated += max(0, len(prompt_ids) - keep)
            ids = [cls_id] + prompt_ids[:keep] + [sep_id] + answer_ids + [sep_id]
            first = len(ids) - len(answer_ids) - 1
            probs = {}
            for variant, kw in (("fp32", {}), ("int8", {"dtype": np.float32, "matmul": base.int8_matmul(False)})):
                logits = base.reference_logits(cfg, p, [ids], [[1] * len(ids)], None, **kw)[0]
                probs[variant] = softmax1(np.asarray(logits, dtype=np.float64))[first:first + len(answer_ids)]
            per_group.append({"input_ids": ids, "probs": probs})
        tokens = []
        for k, (s, e) in enumerate(offsets):
            if s == e:
                continue
            tokens.append({"start": s, "end": e, "probability": {v: float(max(g["probs"][v][k] for g in per_group)) for v in ("fp32", "int8")}})
        rows.append({"name": c["name"], "question": c["question"], "passages": c["passages"], "answer": c["answer"], "max_length": max_length,
                     "groups": [len(g) for g in groups], "runs": len(groups), "truncated_tokens": truncated,
                     "input_ids": [g["input_ids"] for g in per_group], "answer_ids": answer_ids, "offsets": offsets, "tokens": tokens})
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump({"id2label": ID2LABEL, "unsupported_class": 1, "default_max_length": DEFAULT_MAX, "cases": rows}, f, indent=1, ensure_ascii=False)
    print(f"wrote {d}")


def write_shape_spans(out, args):
    """`shape-spans`: a benchmark span detector (not committed) with `shape`'s encoder (--layers,
    --hidden, --heads, --intermediate, --vocab, --max-position, --type-vocab) and a token head
    (logits [batch, sequence, 2], LettuceDetect's labels), config.json naming
    BertForTokenClassification, and with --int8 onnx/model_int8.onnx. Random weights, and no
    tokenizer: the bench writes the tokenizer it feeds it with (bench/spans.ts)."""
    cfg = {"vocab": args.vocab, "hidden": args.hidden, "heads": args.heads, "intermediate": args.intermediate, "layers": args.layers,
           "max_position": args.max_position, "type_vocab": args.type_vocab, "labels": 2, "token_head": True}
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    p = base.make_weights(cfg, seed=40)
    for unused in ("pool_w", "pool_b"):
        p.pop(unused)
    graph = os.path.join(out, "onnx", "model.onnx")
    onnx.save(base.build_graph(cfg, p), graph)
    if args.int8:
        onnx.save(base.quantize_dynamic(onnx.load(graph), args.per_channel), os.path.join(out, "onnx", "model_int8.onnx"))
    config = {"architectures": ["BertForTokenClassification"], "model_type": "bert", "hidden_size": cfg["hidden"],
              "num_attention_heads": cfg["heads"], "num_hidden_layers": cfg["layers"], "intermediate_size": cfg["intermediate"],
              "max_position_embeddings": cfg["max_position"], "type_vocab_size": cfg["type_vocab"], "vocab_size": cfg["vocab"],
              "id2label": {str(i): l for i, l in enumerate(ID2LABEL)}, "label2id": {l: i for i, l in enumerate(ID2LABEL)}}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    print(f"wrote {out}")
