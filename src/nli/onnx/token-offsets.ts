/**
 * Where each token of a text lies in it: @huggingface/tokenizers gives token strings but no
 * offsets, so they are found by walking the text. The text is cut into units (a character with
 * the combining marks after it and whatever the normaliser composes with it, such as Hangul jamo; a
 * surrogate pair whole), each unit normalised as tokenizer.json's normalizer says, and the normalised units' UTF-8 bytes lined up with the tokens' bytes:
 *   - byte-level BPE (ModernBERT, RoBERTa): a token's characters map back to bytes through GPT-2's
 *     byte table; an added token (special token written in the text) is its content's bytes;
 *   - WordPiece: the piece without its continuing prefix ("##"); the unknown token covers a word;
 *   - Metaspace (Unigram, sentencepiece BPE): "▁" read as a space.
 * A token's offsets are the units of its first and last byte (pieces of one character's bytes each
 * cover the character), in UTF-16 code units of the original text, with leading and trailing
 * whitespace trimmed; a token of whitespace alone covers nothing. Whitespace the normaliser or
 * pre-tokeniser removed is skipped. Should a token not match the text where the walk is (a
 * normaliser this file does not model), it and the tokens after it get no offsets (null) rather
 * than made-up ones. Linear in the text and the tokens.
 */
import { asPlainObject } from "../../core/plain-object.ts";

type Json = Record<string, unknown>;

/** [start, end) in UTF-16 code units of the text, or null for a token covering nothing (or not found). */
export type TokenOffset = readonly [number, number] | null;

/** How to read a tokenizer's token strings back into text. */
export interface TokenAligner {
  /** The offsets of `tokens` (the tokenizer's strings for `text`, no special tokens around them) in `text`. */
  offsets(text: string, tokens: readonly string[]): TokenOffset[];
}

/** GPT-2's byte table reversed: each printable stand-in character to its byte. */
function byteOfChar(): Map<string, number> {
  const keep = (b: number): boolean => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out = new Map<string, number>();
  let n = 0;
  for (let b = 0; b < 256; b++) out.set(String.fromCodePoint(keep(b) ? b : 256 + n++), b);
  return out;
}

/** One normaliser step, applied to a unit of text. */
type Normalise = (s: string) => string;

// BertNormalizer clean_text: control characters other than \t \n \r removed.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/gu;
const MARKS = /\p{Mn}/gu;

/** tokenizer.json's normalizer as a function of one unit (steps that act across units — Strip, Prepend, Replace — are left to the whitespace skipping). */
function normaliserOf(spec: Json | undefined): Normalise {
  switch (spec?.type) {
    case "NFC":
    case "NFD":
    case "NFKC":
    case "NFKD":
      return (s) => s.normalize(spec.type as "NFC");
    case "Precompiled":
      // @huggingface/tokenizers applies nmt_nfkc's rules (no charsmap read): NFKC.
      return (s) => s.normalize("NFKC");
    case "Lowercase":
      return (s) => s.toLowerCase();
    case "StripAccents":
      return (s) => s.normalize("NFD").replace(MARKS, "");
    case "BertNormalizer": {
      const lower = spec.lowercase !== false;
      const strip = spec.strip_accents === null || spec.strip_accents === undefined ? lower : spec.strip_accents === true;
      return (s) => {
        let t = spec.clean_text === false ? s : s.replace(CONTROL, "");
        if (strip) t = t.normalize("NFD").replace(MARKS, "");
        return lower ? t.toLowerCase() : t;
      };
    }
    case "Sequence": {
      const steps = ((spec.normalizers as unknown[] | undefined) ?? []).map((n) => normaliserOf(asPlainObject(n)));
      return (s) => steps.reduce((t, step) => step(t), s);
    }
    default:
      return (s) => s;
  }
}

const isSpaceByte = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || b === 0x0b || b === 0x0c;
const isSpaceCode = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x3000 || c === 0x2028 || c === 0x2029 || (c >= 0x2000 && c <= 0x200a);
const ENCODER = new TextEncoder();

/** The text's units, normalised, as bytes with each byte's unit. */
interface NormalisedBytes {
  readonly bytes: Uint8Array;
  /** Per byte, its unit's index. */
  readonly unitOf: Uint32Array;
  /** Per unit, [start, end) in the original text. */
  readonly units: ReadonlyArray<readonly [number, number]>;
}

/** A unit starts at every code point that is not a combining mark and does not compose with the few before it. */
const MARK = /\p{M}/u;
/** How far back (UTF-16 units) a code point is tried for composing with what precedes it: Hangul L+V+T is three. */
const COMPOSE_WINDOW = 4;

function normalisedBytes(text: string, normalise: Normalise): NormalisedBytes {
  const units: Array<[number, number]> = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const last = units.at(-1);
    const char = text.slice(i, i + width);
    // Normalising apart what the normaliser joins (Hangul jamo, half-width voicing marks) would not
    // give the bytes the tokenizer saw: such a code point joins the unit before it. Bounded window: linear.
    const joins = last !== undefined && (MARK.test(char) || ((tail) => normalise(tail + char) !== normalise(tail) + normalise(char))(text.slice(Math.max(last[0], i - COMPOSE_WINDOW), i)));
    if (last && joins) last[1] = i + width;
    else units.push([i, i + width]);
    i += width;
  }
  const parts = units.map(([s, e]) => ENCODER.encode(normalise(text.slice(s, e))));
  const size = parts.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(size);
  const unitOf = new Uint32Array(size);
  let at = 0;
  parts.forEach((p, u) => {
    bytes.set(p, at);
    unitOf.fill(u, at, at + p.length);
    at += p.length;
  });
  return { bytes, unitOf, units };
}

/** How one tokenizer writes its tokens: a token string to the bytes of text it stands for (undefined: not a text token). */
interface TokenReading {
  readonly bytesOf: (token: string) => Uint8Array | undefined;
  /** The unknown token, which covers a word it could not spell. */
  readonly unk?: string;
}

function readingOf(tokenizerJson: Json): TokenReading {
  const model = asPlainObject(tokenizerJson.model) ?? {};
  const added = new Set(((tokenizerJson.added_tokens as unknown[] | undefined) ?? []).map((t) => String(asPlainObject(t)?.content ?? "")));
  const unk = typeof model.unk_token === "string" ? model.unk_token : undefined;
  const pre = JSON.stringify(tokenizerJson.pre_tokenizer ?? null) + JSON.stringify(tokenizerJson.decoder ?? null);
  if (pre.includes('"ByteLevel"')) {
    const table = byteOfChar();
    return {
      bytesOf: (token) => {
        if (added.has(token)) return ENCODER.encode(token);
        const out: number[] = [];
        for (const ch of token) {
          const b = table.get(ch);
          if (b === undefined) return undefined;
          out.push(b);
        }
        return Uint8Array.from(out);
      },
      ...(unk ? { unk } : {}),
    };
  }
  if (model.type === "WordPiece") {
    const prefix = typeof model.continuing_subword_prefix === "string" ? model.continuing_subword_prefix : "##";
    return { bytesOf: (token) => ENCODER.encode(!added.has(token) && token.startsWith(prefix) ? token.slice(prefix.length) : token), ...(unk ? { unk } : {}) };
  }
  // Metaspace (Unigram, sentencepiece BPE), and any other: "▁" is a space.
  return { bytesOf: (token) => ENCODER.encode(added.has(token) ? token : token.replaceAll("\u2581", " ")), ...(unk ? { unk } : {}) };
}

function matchesAt(hay: Uint8Array, at: number, needle: Uint8Array, from = 0): boolean {
  if (at + needle.length - from > hay.length) return false;
  for (let k = from; k < needle.length; k++) if (hay[at + k - from] !== needle[k]) return false;
  return true;
}

/** The offsets of a span of units, trimmed of whitespace in the original text; null when only whitespace. */
function trimmed(text: string, start: number, end: number): TokenOffset {
  let s = start;
  let e = end;
  while (s < e && isSpaceCode(text.charCodeAt(s))) s++;
  while (e > s && isSpaceCode(text.charCodeAt(e - 1))) e--;
  return s < e ? [s, e] : null;
}

/** An aligner for the tokenizer tokenizer.json describes (see the file comment). */
export function createTokenAligner(tokenizerJson: Json): TokenAligner {
  const normalise = normaliserOf(asPlainObject(tokenizerJson.normalizer));
  const reading = readingOf(tokenizerJson);
  return {
    offsets(text: string, tokens: readonly string[]): TokenOffset[] {
      const { bytes, unitOf, units } = normalisedBytes(text, normalise);
      const out: TokenOffset[] = [];
      let at = 0;
      let lost = false;
      const covering = (first: number, last: number): TokenOffset => {
        const a = units[unitOf[first] as number] as readonly [number, number];
        const b = units[unitOf[last] as number] as readonly [number, number];
        return trimmed(text, a[0], b[1]);
      };
      for (const token of tokens) {
        const want = lost ? undefined : reading.bytesOf(token);
        if (!want) {
          lost = true;
          out.push(null);
          continue;
        }
        if (want.length > 0 && matchesAt(bytes, at, want)) {
          out.push(covering(at, at + want.length - 1));
          at += want.length;
          continue;
        }
        // Whitespace the tokenizer dropped or moved: skip it in the text and at the token's head.
        let skip = 0;
        while (skip < want.length && isSpaceByte(want[skip])) skip++;
        let from = at;
        while (from < bytes.length && isSpaceByte(bytes[from])) from++;
        if (skip === want.length) {
          out.push(null);
          continue;
        }
        if (matchesAt(bytes, from, want, skip)) {
          const n = want.length - skip;
          out.push(covering(from, from + n - 1));
          at = from + n;
          continue;
        }
        if (token === reading.unk && from < bytes.length) {
          // The unknown token stands for a word it could not spell: up to the next whitespace.
          let end = from;
          while (end < bytes.length && !isSpaceByte(bytes[end])) end++;
          out.push(covering(from, end - 1));
          at = end;
          continue;
        }
        lost = true;
        out.push(null);
      }
      return out;
    },
  };
}
