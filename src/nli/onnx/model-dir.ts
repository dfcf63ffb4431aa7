import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Which ONNX graph of a Transformers.js-layout model directory to load. */
export type OnnxVariant = "quantized" | "fp32";

export interface ModelFiles {
  readonly dir: string;
  readonly config: string;
  readonly tokenizer: string;
  readonly tokenizerConfig?: string;
  readonly specialTokensMap?: string;
  readonly graph: string;
}

const GRAPHS: Record<OnnxVariant | "any", readonly string[]> = {
  fp32: ["model.onnx", "onnx/model.onnx"],
  quantized: ["onnx/model_quantized.onnx", "model_quantized.onnx"],
  any: ["model.onnx", "onnx/model.onnx", "onnx/model_quantized.onnx", "model_quantized.onnx"],
};

/** Finds the files of a model directory; a missing one is an error naming what was looked for. */
export function locateModelFiles(dir: string, variant?: OnnxVariant): ModelFiles {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`onnx backend: model directory ${dir} does not exist`);
  const need = (name: string): string => {
    const path = join(dir, name);
    if (!existsSync(path)) throw new Error(`onnx backend: ${dir} has no ${name} (a Hugging Face model directory needs config.json, tokenizer.json and an ONNX graph)`);
    return path;
  };
  const optional = (name: string): string | undefined => (existsSync(join(dir, name)) ? join(dir, name) : undefined);
  const candidates = GRAPHS[variant ?? "any"];
  const graph = candidates.map((c) => join(dir, c)).find((p) => existsSync(p));
  if (!graph) throw new Error(`onnx backend: ${dir} has no ONNX graph for variant ${variant ?? "(any)"}; looked for ${candidates.join(", ")}`);
  const tokenizerConfig = optional("tokenizer_config.json");
  const specialTokensMap = optional("special_tokens_map.json");
  return {
    dir,
    config: need("config.json"),
    tokenizer: need("tokenizer.json"),
    graph,
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
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`onnx backend: ${path} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Which output column holds which class. */
export type LabelMap =
  | { readonly kind: "three"; readonly entailment: number; readonly neutral: number; readonly contradiction: number; readonly labels: readonly string[] }
  | { readonly kind: "two"; readonly entailment: number; readonly notEntailment: number; readonly labels: readonly string[] };

const normalise = (label: string): string => label.toLowerCase().replace(/[\s_-]+/g, "_");

/**
 * Maps output columns to classes by label name, never by position: checkpoints
 * permute them. Accepts entailment/neutral/contradiction and two-label
 * entailment/not_entailment models; anything else is refused, printing the labels.
 */
export function mapLabels(id2label: unknown, source: string): LabelMap {
  if (!id2label || typeof id2label !== "object") throw new Error(`onnx backend: ${source} has no id2label; cannot tell which output is entailment`);
  const entries = Object.entries(id2label as Record<string, unknown>).map(([k, v]) => [Number(k), String(v)] as const);
  const labels: string[] = [];
  for (const [i, l] of entries) {
    if (!Number.isInteger(i) || i < 0) throw new Error(`onnx backend: ${source} id2label has a non-integer key ${JSON.stringify(i)}`);
    labels[i] = l;
  }
  const find = (...names: string[]): number => labels.findIndex((l) => l !== undefined && names.includes(normalise(l)));
  const e = find("entailment", "entailed", "entails");
  const n = find("neutral");
  const c = find("contradiction", "contradicted", "contradicts");
  const ne = find("not_entailment", "non_entailment", "not_entailed", "no_entailment");
  if (labels.length === 3 && e >= 0 && n >= 0 && c >= 0) return { kind: "three", entailment: e, neutral: n, contradiction: c, labels };
  if (labels.length === 2 && e >= 0 && ne >= 0) return { kind: "two", entailment: e, notEntailment: ne, labels };
  throw new Error(
    `onnx backend: cannot map the labels of ${source} to entailment/neutral/contradiction (or entailment/not_entailment): id2label is ${JSON.stringify(Object.fromEntries(labels.map((l, i) => [i, l])))}`,
  );
}
