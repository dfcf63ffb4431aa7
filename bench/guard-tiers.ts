/**
 * The backend tiers bench:guard measures, as monitors: `offline` (the embedded scorer) and `onnx`
 * over a generated MiniLM-L6-H384-shaped graph (bench/models.ts: random weights, the shape's
 * arithmetic; no trained weights can be downloaded here), with a WordPiece tokenizer over the
 * bench's words in a model directory of its own (CACHE/guard-minilm-l6-h384, so that no other
 * bench's or test's directory is rewritten under it).
 *
 * A random-weight graph's verdicts mean nothing, and left as they are it finds every claim
 * contradicted, so every answer would be blocked at its first check and a stream would never take
 * the path a grounded answer takes. The onnx tier therefore names the column the graph's output
 * leans to (column 0) `entailment` and sets the answer threshold to 0: every check does the whole
 * model work and passes. Its verdicts are forced (GuardTier.verdicts), its timings are the shape's.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CACHE, SHAPES, TIER_MAX_LENGTH, buildShape, linkedModelDir } from "./models.ts";
import { createMonitor } from "../src/sdk/monitor.ts";
import type { Monitor } from "../src/sdk/types.ts";

/** A tier to guard with: its name in the tables, what it is, and a monitor on it. */
export interface GuardTier {
  readonly name: string;
  /** What the tier is, for the report (the graph's shape and size on onnx). */
  readonly detail: string;
  /** "real": the scorer's own verdicts; "forced pass": every check passes (the onnx tier's random weights). */
  readonly verdicts: "real" | "forced pass";
  /** A new monitor on the tier, nothing sampled (guard checks only), ready to guard. */
  readonly monitor: () => Promise<Monitor>;
}

const GUARD_MODEL = "guard-minilm-l6-h384";

/** The offline tier. */
export function offlineTier(): GuardTier {
  return {
    name: "offline",
    detail: "the embedded offline scorer",
    verdicts: "real",
    monitor: () => readyMonitor({ backend: "offline" }),
  };
}

/** The onnx tier over the MiniLM-shaped graph (`variant`: "int8" or "fp32"), its tokenizer over `words`; builds the graph on first use (Debian's python3-onnx). */
export function onnxTier(variant: string, words: Iterable<string>): GuardTier {
  const shape = SHAPES.find((s) => s.name === "minilm-l6-h384");
  if (!shape) throw new Error("bench/models.ts has no MiniLM shape");
  buildShape(shape);
  const source = join(CACHE, shape.name);
  const config = JSON.parse(readFileSync(join(source, "config.json"), "utf8")) as { max_position_embeddings?: number; vocab_size?: number };
  const dir = linkedModelDir(source, GUARD_MODEL, words, Math.min(TIER_MAX_LENGTH, config.max_position_embeddings ?? TIER_MAX_LENGTH), config.vocab_size ?? Infinity);
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...config, id2label: { 0: "entailment", 1: "neutral", 2: "contradiction" }, label2id: { entailment: 0, neutral: 1, contradiction: 2 } }));
  const graph = join(source, "onnx", variant === "int8" ? "model_int8.onnx" : "model.onnx");
  const mb = (statSync(graph).size / 1e6).toFixed(0);
  return {
    name: `onnx ${variant}`,
    detail: `onnx backend, ${variant} graph of the MiniLM-L6-H384 shape (${shape.layers} layers, hidden ${shape.hidden}, ${shape.heads} heads, vocabulary ${shape.vocab}; ${mb} MB; random weights: verdicts forced to pass), inputs up to ${TIER_MAX_LENGTH} tokens`,
    verdicts: "forced pass",
    monitor: () => readyMonitor({ backend: "onnx", model: dir, variant, threshold: 0 }),
  };
}

async function readyMonitor(scoring: { backend: "offline" } | { backend: "onnx"; model: string; variant: string; threshold: number }): Promise<Monitor> {
  const monitor = createMonitor({ env: { HF_HOME: "/nonexistent" }, sampling: { default: 0 }, scoring });
  await monitor.ready();
  return monitor;
}
