import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isConfigError } from "../../config/errors.ts";
import type { CpuFeatures, GraphVariant, VariantChoice } from "./variants.ts";
import { chooseGraph, graphVariants, readCpuFeatures } from "./variants.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/**
 * Which ONNX graph of a model to load: auto (default), fp32, int8, fp16, q4, quantized, or a
 * graph's file name (see chooseGraph in variants.ts).
 */
export type OnnxVariant = string;

export interface ModelFiles {
  readonly dir: string;
  readonly config: string;
  readonly tokenizer: string;
  readonly tokenizerConfig?: string;
  readonly specialTokensMap?: string;
  readonly graph: string;
  /** The graph chosen and why. */
  readonly choice: VariantChoice;
  /** Every graph the directory holds (in onnx/ and at the root). */
  readonly graphs: readonly GraphVariant[];
}

/** The ONNX graphs in a model directory's root and onnx/ folder, with their sizes. */
export function localGraphs(dir: string): GraphVariant[] {
  const files: Array<[string, number]> = [];
  for (const folder of ["", "onnx"]) {
    const base = folder ? join(dir, folder) : dir;
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith(".onnx")) continue;
      try {
        const stat = statSync(join(base, name));
        if (stat.isFile()) files.push([folder ? `${folder}/${name}` : name, stat.size]);
      } catch {
        // A dangling link or an unreadable entry is not a graph to offer.
      }
    }
  }
  return graphVariants(files);
}

/**
 * Finds the files of a model directory; a missing one is an error naming what was looked
 * for. The graph is chosen as `model pull` chooses it (`variant`, default auto, for `cpu`,
 * default this machine's); a variant the directory cannot satisfy is a ConfigError on variant.
 */
export function locateModelFiles(dir: string, variant: OnnxVariant = "auto", cpu?: CpuFeatures): ModelFiles {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`onnx backend: model directory ${dir} does not exist`);
  const need = (name: string): string => {
    const path = join(dir, name);
    if (!existsSync(path)) throw new Error(`onnx backend: ${dir} has no ${name} (a Hugging Face model directory needs config.json, tokenizer.json and an ONNX graph)`);
    return path;
  };
  const optional = (name: string): string | undefined => (existsSync(join(dir, name)) ? join(dir, name) : undefined);
  const graphs = localGraphs(dir);
  let choice: VariantChoice;
  try {
    choice = chooseGraph(graphs, variant, cpu ?? readCpuFeatures(), `model directory ${dir}`);
  } catch (error) {
    if (isConfigError(error)) throw error;
    throw new Error(`onnx backend: ${(error as Error).message}`);
  }
  const tokenizerConfig = optional("tokenizer_config.json");
  const specialTokensMap = optional("special_tokens_map.json");
  return {
    dir,
    config: need("config.json"),
    tokenizer: need("tokenizer.json"),
    graph: join(dir, choice.graph.path),
    choice,
    graphs,
    ...(tokenizerConfig ? { tokenizerConfig } : {}),
    ...(specialTokensMap ? { specialTokensMap } : {}),
  };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/**
 * Where and why `text` is not JSON, as "… at line L, column C", without quoting it: V8's
 * JSON.parse messages include a snippet of the input, and a model file is not ours to print.
 * Iterative, so deep nesting cannot overflow the stack.
 */
export function jsonSyntaxProblem(text: string): string {
  let i = 0;
  const stack: string[] = [];
  const at = (what: string): string => {
    const before = text.slice(0, i);
    const line = before.split("\n").length;
    return `${what} at line ${line}, column ${i - before.lastIndexOf("\n")}`;
  };
  const skip = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const string = (): string | undefined => {
    i++;
    for (;;) {
      if (i >= text.length) return at("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return at("control character in a string");
      if (c === 0x5c) {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) return at("invalid escape in a string");
        i = ESCAPE.lastIndex;
      } else i++;
    }
  };
  const key = (): string | undefined => {
    skip();
    if (text[i] !== '"') return at(i >= text.length ? "unexpected end of input" : "expected a property name in double quotes");
    const bad = string();
    if (bad) return bad;
    skip();
    if (text[i] !== ":") return at("expected ':' after a property name");
    i++;
    return undefined;
  };
  for (;;) {
    skip();
    if (i >= text.length) return at("unexpected end of input");
    const c = text[i] as string;
    let opened = false;
    if (c === "{" || c === "[") {
      i++;
      skip();
      if (text[i] === (c === "{" ? "}" : "]")) i++;
      else {
        stack.push(c);
        opened = true;
        const bad = c === "{" ? key() : undefined;
        if (bad) return bad;
      }
    } else if (c === '"') {
      const bad = string();
      if (bad) return bad;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return at("invalid number");
      i = NUMBER.lastIndex;
    } else {
      const word = ["true", "false", "null"].find((w) => text.startsWith(w, i));
      if (!word) return at("unexpected character");
      i += word.length;
    }
    if (opened) continue;
    // After a value: close containers, or a comma and the next value.
    for (;;) {
      skip();
      const top = stack.at(-1);
      if (top === undefined) return i < text.length ? at("unexpected text after the JSON value") : "not valid JSON";
      if (i >= text.length) return at("unexpected end of input");
      if (text[i] === (top === "{" ? "}" : "]")) {
        i++;
        stack.pop();
        continue;
      }
      if (text[i] !== ",") return at(`expected ',' or '${top === "{" ? "}" : "]"}'`);
      i++;
      const bad = top === "{" ? key() : undefined;
      if (bad) return bad;
      break;
    }
  }
}

/**
 * Reads a JSON file (a leading byte order mark is allowed); a failure names the file and
 * what is wrong, never its contents.
 */
export function readJsonFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`onnx backend: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "read failed"}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`onnx backend: cannot parse ${path}: not valid JSON (${jsonSyntaxProblem(text)})`);
  }
  if (!isPlainObject(value)) throw new Error(`onnx backend: ${path} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Which output column holds which class. */
export type LabelMap =
  | { readonly kind: "three"; readonly entailment: number; readonly neutral: number; readonly contradiction: number; readonly labels: readonly string[] }
  | { readonly kind: "two"; readonly entailment: number; readonly notEntailment: number; readonly labels: readonly string[] }
  /** A binary detector's (recipes/types.ts): which column means supported; its other column is read as neutral, never contradiction. */
  | { readonly kind: "binary"; readonly supported: number; readonly unsupported: number; readonly labels: readonly string[] };

/** A label name reduced for comparison: lower case, spaces, "_" and "-" as one "_". */
export const normaliseLabel = (label: string): string => label.trim().toLowerCase().replace(/[\s_-]+/g, "_");

const ENTAILMENT = ["entailment", "entailed", "entails", "entail"];
const NEUTRAL = ["neutral"];
const CONTRADICTION = ["contradiction", "contradicted", "contradicts", "contradict"];
const NOT_ENTAILMENT = ["not_entailment", "non_entailment", "not_entailed", "no_entailment", "not_entail", "notentailment", "nonentailment"];

/**
 * The id2label of config.json, or the inverse of its label2id when id2label is absent
 * (some exports keep only one of them).
 */
export function labelTable(config: Record<string, unknown>): unknown {
  if (config.id2label !== undefined && config.id2label !== null) return config.id2label;
  const l2i = config.label2id;
  if (!isPlainObject(l2i)) return undefined;
  return Object.fromEntries(Object.entries(l2i as Record<string, unknown>).map(([label, id]) => [String(id), label]));
}

/**
 * Maps output columns to classes by label name, never by position: checkpoints permute
 * them. Accepts entailment/neutral/contradiction and two-label entailment/not_entailment
 * models (non-entailment, not entailed, …), in any case and order, from config.json's
 * id2label (or label2id). Anything else is refused, printing the labels: generic names
 * (LABEL_0, LABEL_1, …) say nothing about which column is entailment.
 */
export function mapLabels(config: Record<string, unknown>, source: string): LabelMap {
  const table = labelTable(config);
  if (!isPlainObject(table)) throw new Error(`onnx backend: ${source} has no id2label (or label2id); cannot tell which output is entailment`);
  const labels: string[] = [];
  for (const [k, v] of Object.entries(table as Record<string, unknown>)) {
    const i = Number(k);
    if (!Number.isInteger(i) || i < 0 || i > 1000) throw new Error(`onnx backend: ${source} id2label has a key that is not a column index: ${JSON.stringify(k)}`);
    labels[i] = String(v);
  }
  const shown = JSON.stringify(Object.fromEntries(Array.from(labels, (l, i) => [i, l ?? null])));
  const refuse = (why: string): Error => new Error(`onnx backend: cannot map the labels of ${source} to entailment/neutral/contradiction (or entailment/not_entailment): id2label is ${shown}; ${why}`);
  if (Array.from(labels).some((l) => l === undefined)) throw refuse("its column indices have gaps");
  const names = labels.map(normaliseLabel);
  const find = (choices: readonly string[]): number[] => names.flatMap((n, i) => (choices.includes(n) ? [i] : []));
  const [e, n, c, ne] = [find(ENTAILMENT), find(NEUTRAL), find(CONTRADICTION), find(NOT_ENTAILMENT)];
  if ([e, n, c, ne].some((x) => x.length > 1)) throw refuse("a class is named twice");
  if (labels.length === 3 && e[0] !== undefined && n[0] !== undefined && c[0] !== undefined) return { kind: "three", entailment: e[0], neutral: n[0], contradiction: c[0], labels };
  if (labels.length === 2 && e[0] !== undefined && ne[0] !== undefined) return { kind: "two", entailment: e[0], notEntailment: ne[0], labels };
  if (names.every((l) => /^label_\d+$/.test(l))) {
    throw refuse("generic LABEL_n names do not say which column is entailment: set id2label in config.json to the label names the model card gives, in its order");
  }
  throw refuse(`groundwatch reads three labels (entailment, neutral, contradiction) or two (entailment and not_entailment or non-entailment), in any case and order`);
}
