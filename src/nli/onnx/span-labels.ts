/**
 * Which class of a token-classification model means "unsupported", and whether a model directory
 * is a span detector at all. The rule: config.json's id2label (label2id read the other way when it
 * is the only table) must have at least two classes; the unsupported class is the one whose name
 * says so (hallucinated, hallucination, unsupported, not supported), else, when the labels are
 * generic (LABEL_0, LABEL_1 or 0, 1 — LettuceDetect's), class 1, as the reference reads it
 * (lettucedetect/detectors/transformer.py: softmax, probability of class 1); any other naming is
 * refused rather than guessed. No table at all: class 1 of two.
 */
import { join } from "node:path";
import { isPlainObject } from "../../core/plain-object.ts";
import { repoNamesOf } from "../recipes/recognise.ts";
import { readJsonFile } from "./model-dir.ts";

/** The class read as unsupported, and the labels it was chosen from. */
export interface SpanLabels {
  readonly unsupported: number;
  /** id2label in id order ("LABEL_0", "LABEL_1" when config.json names none). */
  readonly names: readonly string[];
}

const UNSUPPORTED = /hallucinat|unsupported|not[\s_-]*supported/i;
const GENERIC = /^(?:label_)?\d+$/i;

/** The id → name table of config.json, in id order; undefined when it declares none. */
function labelNames(config: Record<string, unknown>): string[] | undefined {
  if (isPlainObject(config.id2label)) {
    const entries = Object.entries(config.id2label).map(([id, name]) => [Number(id), String(name)] as const);
    return entries.sort((a, b) => a[0] - b[0]).map(([, name]) => name);
  }
  if (isPlainObject(config.label2id)) {
    return Object.entries(config.label2id).sort((a, b) => Number(a[1]) - Number(b[1])).map(([name]) => name);
  }
  return undefined;
}

/** The unsupported class of a span model (see the file comment); refused, naming the labels, when it cannot be told. */
export function spanLabels(config: Record<string, unknown>, where: string): SpanLabels {
  const names = labelNames(config) ?? ["LABEL_0", "LABEL_1"];
  const shown = JSON.stringify(names);
  if (names.length < 2) throw new Error(`onnx span detector: ${where}: config.json declares ${names.length} label(s) (${shown}); a token-classification span detector has two (supported, unsupported)`);
  const named = names.findIndex((n) => UNSUPPORTED.test(n));
  if (named >= 0) return { unsupported: named, names };
  if (names.every((n) => GENERIC.test(n))) return { unsupported: 1, names };
  throw new Error(`onnx span detector: ${where}: config.json's labels ${shown} name no unsupported class (hallucinated, unsupported, or generic LABEL_0/LABEL_1, read as class 1)`);
}

/** Whether config.json's architectures name a token-classification head. */
export function isTokenClassifier(config: Record<string, unknown>): boolean {
  return Array.isArray(config.architectures) && config.architectures.some((a) => String(a).endsWith("ForTokenClassification"));
}

/** LettuceDetect's repositories are spelt "lettucedect" on the Hub (KRLabsOrg/lettucedect-base-modernbert-en-v1); either spelling counts. */
const SPAN_REPOS = /lettuced(?:et)?ect|tinylettuce/i;

/**
 * Whether a model directory is a span detector (so the edge routes it to createOnnxSpanDetector):
 * config.json's architectures end in ForTokenClassification, or a repository name the directory
 * carries (hub cache path, `model pull`'s record, `_name_or_path`) contains lettucedetect (or the
 * Hub's spelling, lettucedect) or tinylettuce. False when config.json cannot be read.
 */
export function isSpanModelDir(dir: string): boolean {
  let config: Record<string, unknown>;
  try {
    config = readJsonFile(join(dir, "config.json"));
  } catch {
    return false;
  }
  return isTokenClassifier(config) || repoNamesOf(dir, config).some((r) => SPAN_REPOS.test(r.name));
}
