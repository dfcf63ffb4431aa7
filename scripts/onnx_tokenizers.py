"""Tokenizers of the detector fixtures, each as a tokenizer.json in the layout the real repositories
ship and as a python encoder written from the format's definition, which the tests hold to
@huggingface/tokenizers (test/nli/recipe-fixtures.test.ts, test/nli/byte-level-bpe.test.ts):

  - DeBERTa-v3 (Unigram): normalizer Strip, Precompiled, Replace(" {2,}" -> " "); Metaspace
    (prepend_scheme "always"); TemplateProcessing [CLS] $A [SEP] / [CLS] $A [SEP] $B [SEP];
    [PAD]=0 [CLS]=1 [SEP]=2 [UNK]=3, [MASK] after the pieces. The real files carry sentencepiece's
    nmt_nfkc charsmap in Precompiled; @huggingface/tokenizers reads no charsmap and applies
    nmt_nfkc's rules (control characters dropped, \\t \\n \\r and other spaces to " ", NFKC), which
    is what `deberta_normalize` does; the fixture's Precompiled has an empty charsmap.
  - RoBERTa (byte-level BPE): ByteLevel pre-tokenizer (add_prefix_space false, GPT-2's split
    pattern), BPE merges, RobertaProcessing <s> A </s> / <s> A </s></s> B </s>; <s>=0 <pad>=1
    </s>=2 <unk>=3, <mask> last.
  - ModernBERT (byte-level BPE): NFC, ByteLevel, BPE with merges written as pairs,
    TemplateProcessing [CLS] $A [SEP] / [CLS] $A [SEP] $B [SEP], special tokens after the vocabulary.
ByteLevelBpe.offsets gives each token's UTF-16 offsets in the original text from their definition
(normal-form cut points found by trying every boundary; scripts/onnx_spans.py writes them for
test/nli/onnx-spans*.test.ts to hold src/nli/onnx/token-offsets.ts to).
Added (special) tokens inside a text are split out first, and each piece between them is
normalised and pre-tokenised on its own, as the library does.
"""
import math
import re
import unicodedata

import onnx_fixtures as base

# ---------------------------------------------------------------- shared


def split_added(text, added):
    """[(is_special, piece)]: the added tokens in `text` (longest first at each position) and the text between."""
    out, start, i = [], 0, 0
    names = sorted(added, key=len, reverse=True)
    while i < len(text):
        hit = next((t for t in names if text.startswith(t, i)), None)
        if hit is None:
            i += 1
            continue
        if i > start:
            out.append((False, text[start:i]))
        out.append((True, hit))
        i += len(hit)
        start = i
    if start < len(text):
        out.append((False, text[start:]))
    return out


# ---------------------------------------------------------------- DeBERTa-v3 unigram

DEBERTA_SPECIAL = ["[PAD]", "[CLS]", "[SEP]", "[UNK]"]
_CONTROL = re.compile("[\u0001-\u0008\u000b\u000e-\u001f\u007f\u008f\u009f]")
_SPACES = re.compile("[\u0009\u000a\u000c\u000d\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u2581\u3000\ufeff\ufffd]")


def deberta_normalize(text):
    text = text.strip()
    text = _SPACES.sub(" ", _CONTROL.sub("", text))
    text = unicodedata.normalize("NFKC", text)
    return re.sub(" {2,}", " ", text)


def deberta_vocab(words, texts):
    """Pieces: the specials, "▁word" for each in-vocabulary word, "▁", then every character the
    texts use (so any other word is spelt out in characters, one token each)."""
    pieces = [[t, 0.0] for t in DEBERTA_SPECIAL]
    for i, w in enumerate(sorted(set(words))):
        pieces.append(["\u2581" + w, -2.0 - 0.001 * i])
    pieces.append(["\u2581", -4.0])
    chars = sorted({c for t in texts for c in deberta_normalize(t).replace(" ", "")})
    have = {p for p, _ in pieces}
    for i, c in enumerate(chars):
        if c not in have:
            pieces.append([c, -9.0 - 0.001 * i])
    return pieces


def deberta_encode(text, pieces, special=True):
    """Token ids of `text`; with `special`, wrapped in the single template [CLS] … [SEP]."""
    index = {p: i for i, (p, _) in enumerate(pieces)}
    added = DEBERTA_SPECIAL + ["[MASK]"]
    ids = []
    for is_special, piece in split_added(text, added):
        if is_special:
            ids.append(index.get(piece, len(pieces)))
            continue
        normal = deberta_normalize(piece)
        if normal:
            ids += base.unigram_encode(normal, pieces)
    return [1] + ids + [2] if special else ids


def deberta_tokenizer_json(pieces):
    tok = base.unigram_tokenizer_json(pieces)
    tok["added_tokens"].append({"id": len(pieces), "content": "[MASK]", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True})
    tok["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Strip", "strip_left": True, "strip_right": True},
        {"type": "Precompiled", "precompiled_charsmap": ""},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
    ]}
    return tok


def deberta_tokenizer_config():
    """tokenizer_config.json as the DeBERTa-v3 repositories have it (no model_max_length of their own)."""
    return {"bos_token": "[CLS]", "cls_token": "[CLS]", "eos_token": "[SEP]", "mask_token": "[MASK]", "pad_token": "[PAD]",
            "sep_token": "[SEP]", "unk_token": "[UNK]", "do_lower_case": False, "split_by_punct": False, "sp_model_kwargs": {},
            "vocab_type": "spm", "tokenizer_class": "DebertaV2Tokenizer", "model_max_length": 1000000000000000019884624838656}


# ---------------------------------------------------------------- byte-level BPE

def bytes_to_unicode():
    """GPT-2's byte -> printable character table: printable Latin-1 bytes map to themselves, the
    rest to 256 + n in byte order."""
    keep = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, n = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


BYTE_CHAR = bytes_to_unicode()
# JavaScript's \s with the u flag.
_JS_SPACE = set("\t\n\u000b\u000c\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | {chr(c) for c in range(0x2000, 0x200B)}
_CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]


def _is_letter(c):
    return unicodedata.category(c).startswith("L")


def _is_number(c):
    return unicodedata.category(c).startswith("N")


def _is_other(c):
    return c not in _JS_SPACE and not _is_letter(c) and not _is_number(c)


def _match_at(text, i):
    """Length of GPT-2's pattern's match at i:
    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+ (first alternative that matches)."""
    n = len(text)
    for c in _CONTRACTIONS:
        if text.startswith(c, i):
            return len(c)
    for cls in (_is_letter, _is_number, _is_other):
        j = i + 1 if text[i] == " " else i
        if j < n and cls(text[j]):
            k = j
            while k < n and cls(text[k]):
                k += 1
            return k - i
    k = i
    while k < n and text[k] in _JS_SPACE:
        k += 1
    if k < n and k - 1 > i:
        return k - 1 - i  # \s+(?!\S): the run less its last space, which joins the word after it
    return k - i  # the run to the end of the text (\s+(?!\S)), or a single space before a word (\s+)


def byte_level_pieces(text):
    out, i = [], 0
    while i < len(text):
        m = _match_at(text, i)
        out.append("".join(BYTE_CHAR[b] for b in text[i:i + m].encode("utf-8")))
        i += m
    return out


def bpe(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        rank, pair = min((ranks.get((a, b), math.inf), (a, b)) for a, b in zip(parts, parts[1:]))
        if rank == math.inf:
            break
        merged, k = [], 0
        while k < len(parts):
            if k + 1 < len(parts) and (parts[k], parts[k + 1]) == pair:
                merged.append(parts[k] + parts[k + 1])
                k += 2
            else:
                merged.append(parts[k])
                k += 1
        parts = merged
    return parts


def learn_merges(texts, count):
    """The `count` most frequent adjacent pairs, merged in turn (ties: the smaller pair), over the
    pre-tokenised words of `texts`: a tiny BPE training run."""
    words = {}
    for t in texts:
        for w in byte_level_pieces(t):
            words[tuple(w)] = words.get(tuple(w), 0) + 1
    merges = []
    for _ in range(count):
        freq = {}
        for w, c in words.items():
            for pair in zip(w, w[1:]):
                freq[pair] = freq.get(pair, 0) + c
        if not freq:
            break
        pair = min(freq, key=lambda p: (-freq[p], p))
        if freq[pair] < 2:
            break
        merges.append(pair)
        new = {}
        for w, c in words.items():
            out, k = [], 0
            while k < len(w):
                if k + 1 < len(w) and (w[k], w[k + 1]) == pair:
                    out.append(w[k] + w[k + 1])
                    k += 2
                else:
                    out.append(w[k])
                    k += 1
            new[tuple(out)] = new.get(tuple(out), 0) + c
        words = new
    return merges


class ByteLevelBpe:
    """A byte-level BPE vocabulary: `first` tokens before the 256 byte characters, `last` after the merges."""

    def __init__(self, merges, first, last, normalize=None):
        self.merges, self.first, self.last, self.normalize = merges, first, last, normalize
        tokens = list(first) + [BYTE_CHAR[b] for b in range(256)] + [a + b for a, b in merges]
        seen, vocab = set(), []
        for t in tokens:
            if t not in seen:
                seen.add(t)
                vocab.append(t)
        self.vocab = {t: i for i, t in enumerate(vocab)}
        for t in last:
            self.vocab[t] = len(self.vocab)
        self.ranks = {pair: r for r, pair in enumerate(merges)}
        self.added = list(first) + list(last)

    def encode(self, text):
        """Ids without special tokens (added tokens in the text are split out as their ids)."""
        ids = []
        for is_special, piece in split_added(text, self.added):
            if is_special:
                ids.append(self.vocab[piece])
                continue
            if self.normalize:
                piece = self.normalize(piece)
            for word in byte_level_pieces(piece):
                ids += [self.vocab[p] for p in bpe(word, self.ranks)]
        return ids

    def tokens(self, text):
        """(token, is_added) per token of `text` without special tokens: byte-level strings, or an added token's content."""
        out = []
        for is_special, piece in split_added(text, self.added):
            if is_special:
                out.append((piece, True))
                continue
            if self.normalize:
                piece = self.normalize(piece)
            out += [(p, False) for word in byte_level_pieces(piece) for p in bpe(word, self.ranks)]
        return out

    def offsets(self, text):
        """UTF-16 [start, end) in `text` per token (tokens covering only whitespace: [k, k]), from the
        definition: the normalised text is cut at the boundaries where normalising the parts apart
        gives the whole's normal form (found by trying every boundary), each normalised byte belongs
        to the original characters of its part, a token covers the parts of its first and last byte,
        and leading and trailing whitespace is trimmed off."""
        norm = self.normalize or (lambda t: t)
        cuts = [k for k in range(len(text) + 1) if norm(text[:k]) + norm(text[k:]) == norm(text)]
        owner = []  # per normalised byte: (start, end) code-point range of its part
        for a, b in zip(cuts, cuts[1:]):
            owner += [(a, b)] * len(norm(text[a:b]).encode("utf-8"))
        inverse = {c: b for b, c in BYTE_CHAR.items()}
        utf16 = [0]
        for ch in text:
            utf16.append(utf16[-1] + (2 if ord(ch) > 0xFFFF else 1))
        out, at = [], 0
        for tok, is_added in self.tokens(text):
            n = len(tok.encode("utf-8")) if is_added else len(tok)
            first, last = owner[at], owner[at + n - 1]
            at += n
            s, e = first[0], last[1]
            while s < e and text[s].isspace():
                s += 1
            while e > s and text[e - 1].isspace():
                e -= 1
            out.append([utf16[s], utf16[e]] if s < e else [utf16[s], utf16[s]])
        return out

    def model_json(self, merges_as_pairs):
        base_vocab = {t: i for t, i in self.vocab.items() if t not in self.last}
        merges = [[a, b] for a, b in self.merges] if merges_as_pairs else [f"{a} {b}" for a, b in self.merges]
        return {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                "fuse_unk": False, "byte_fallback": False, "ignore_merges": False, "vocab": base_vocab, "merges": merges}


def _added(token_id, content, lstrip=False, normalized=False):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False, "normalized": normalized, "special": True}


BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}


def roberta_bpe(texts, merges=120):
    return ByteLevelBpe(learn_merges(texts, merges), ["<s>", "<pad>", "</s>", "<unk>"], ["<mask>"])


def roberta_encode(bpe_, text, pair=None, special=True):
    a = bpe_.encode(text)
    if not special:
        return a
    return [0] + a + [2] if pair is None else [0] + a + [2, 2] + bpe_.encode(pair) + [2]


def roberta_tokenizer_json(bpe_):
    added = [_added(i, t, normalized=True) for i, t in enumerate(bpe_.first)] + [_added(bpe_.vocab["<mask>"], "<mask>", lstrip=True)]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None, "pre_tokenizer": BYTE_LEVEL,
            "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True, "add_prefix_space": False},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}, "model": bpe_.model_json(False)}


def roberta_tokenizer_config():
    return {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "mask_token": "<mask>", "pad_token": "<pad>", "sep_token": "</s>",
            "unk_token": "<unk>", "add_prefix_space": False, "errors": "replace", "trim_offsets": True, "tokenizer_class": "RobertaTokenizer",
            "model_max_length": 512}


MODERNBERT_SPECIAL = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]


def modernbert_bpe(texts, merges=120):
    return ByteLevelBpe(learn_merges(texts, merges), ["<|endoftext|>", "<|padding|>"], MODERNBERT_SPECIAL, normalize=lambda t: unicodedata.normalize("NFC", t))


def modernbert_encode(bpe_, text, pair=None, special=True):
    cls, sep = bpe_.vocab["[CLS]"], bpe_.vocab["[SEP]"]
    a = bpe_.encode(text)
    if not special:
        return a
    return [cls] + a + [sep] if pair is None else [cls] + a + [sep] + bpe_.encode(pair) + [sep]


def modernbert_tokenizer_json(bpe_):
    added = [_added(i, t) for i, t in enumerate(bpe_.first)] + [_added(bpe_.vocab[t], t, lstrip=t == "[MASK]") for t in bpe_.last]
    cls, sep = bpe_.vocab["[CLS]"], bpe_.vocab["[SEP]"]
    seq = lambda s, t: {"Sequence": {"id": s, "type_id": t}}  # noqa: E731
    spec = lambda s, t: {"SpecialToken": {"id": s, "type_id": t}}  # noqa: E731
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": {"type": "NFC"}, "pre_tokenizer": BYTE_LEVEL,
            "post_processor": {"type": "TemplateProcessing", "single": [spec("[CLS]", 0), seq("A", 0), spec("[SEP]", 0)],
                               "pair": [spec("[CLS]", 0), seq("A", 0), spec("[SEP]", 0), seq("B", 1), spec("[SEP]", 1)],
                               "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}}},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}, "model": bpe_.model_json(True)}
