/**
 * The ONNX tier's span detector (a token-classification model such as LettuceDetect or
 * TinyLettuce): one run per group of passages per answer, every answer token's probability of being
 * unsupported mapped to its characters in the answer (token-engine.ts). Inference runs in worker
 * threads behind the batcher the other onnx engines use (pool.ts): the answers of every call in
 * flight are batched together, a call's signal withdraws its queued answers and its rank orders them.
 */
import type { CallOptions, SpanDetection, SpanDetector, SpanInput } from "../../core/backend.ts";
import { ConfigError } from "../../config/errors.ts";
import type { OnnxEngineDeps, OnnxEngineOptions } from "./engine-types.ts";
import type { GraphDescription, ModelDirOptions } from "./model-read.ts";
import { describeGraph, readModelDir, readModelFiles } from "./model-read.ts";
import type { SpanPool } from "./pool.ts";
import { createSpanPool } from "./pool.ts";
import type { SpanLabels } from "./span-labels.ts";
import { isTokenClassifier, spanLabels } from "./span-labels.ts";
import { SPAN_LANGUAGES, SPAN_PROMPTS } from "./span-prompt.ts";
import type { SpanModelInfo } from "./token-engine.ts";
import { REFERENCE_MAX_LENGTH, createTokenEngine } from "./token-engine.ts";
import { readCpuFeatures } from "./variants.ts";

export { isSpanModelDir } from "./span-labels.ts";

export interface OnnxSpanDetectorOptions extends OnnxEngineOptions {
  /** Worker threads, each with its own session (default 1). */
  readonly workers?: number;
  /** The longest wait for other answers to fill a batch, ms (default 5). */
  readonly batchWaitMs?: number;
  /** The prompt's language (the detector's prompt files: en, de, fr, es, it, pl, cn, hu); default en. */
  readonly language?: string;
}

/** The probability at or above which a token is unsupported: the reference's argmax over two classes. */
export const SPAN_DETECTOR_THRESHOLD = 0.5;

/** A span detector's version: its directory's last two parts, its graph and the graph's hash (as the onnx backend's). */
export function spanModelVersion(info: Pick<SpanModelInfo, "dir" | "graph" | "graphSha256">): string {
  return `${info.dir.replace(/\/+$/, "").split("/").slice(-2).join("/")}:${info.graph}@${info.graphSha256}`;
}

/** What a span model directory is, read from its files alone (no runtime): for `groundwatch model info`. */
export interface SpanModelDescription extends GraphDescription {
  readonly labels: SpanLabels;
  /** The length inputs are cut to: the reference's 4,096 unless `maxLength` says otherwise, never past the model's. */
  readonly maxLength: number;
}

/** Describes a span model directory without loading it: its graph (chosen by the variant rules), its unsupported class and its length. */
export function describeSpanModel(options: ModelDirOptions): SpanModelDescription {
  const { files, config, maxLength } = readModelDir(options);
  return { ...describeGraph(files), labels: spanLabels(config, files.dir), maxLength: options.maxLength !== undefined ? maxLength : Math.min(REFERENCE_MAX_LENGTH, maxLength) };
}

/** A loaded span detector with what it is (for `groundwatch model info`) and what it has run (for tests and the bench). */
export interface OnnxSpanDetector extends SpanDetector {
  readonly info: SpanModelInfo;
  /** session.run calls and model inputs run so far (the workers' load probes included). */
  stats(): Promise<{ readonly runs: number; readonly pairs: number }>;
}

/** What runs the model: worker threads (default) or, when a runtime is injected, this thread. */
interface SpanRunner {
  readonly info: SpanModelInfo;
  detect(inputs: readonly SpanInput[], options?: CallOptions): Promise<SpanDetection[]>;
  stats(): Promise<{ readonly runs: number; readonly pairs: number }>;
  close(): Promise<void>;
}

/** The engine on this thread, for an injected runtime (which cannot travel to a worker): calls run one after another, a signal is read before each. */
async function inThread(options: OnnxSpanDetectorOptions, deps: OnnxEngineDeps): Promise<SpanRunner> {
  const engine = await createTokenEngine(options, deps);
  return {
    info: engine.info,
    detect: (inputs, callOptions) => {
      callOptions?.signal?.throwIfAborted();
      return engine.detect(inputs);
    },
    stats: () => Promise.resolve(engine.stats()),
    close: () => engine.close(),
  };
}

/**
 * Loads a token-classification model directory as a span detector. Checked on this thread first,
 * so that a mistake is a ConfigError naming its field: workers, language, a graph the variant rules
 * cannot choose, a config.json naming a sequence classifier, labels with no unsupported class.
 */
export async function createOnnxSpanDetector(options: OnnxSpanDetectorOptions, deps: OnnxEngineDeps = {}): Promise<OnnxSpanDetector> {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new ConfigError("spanWorkers", workers, "a positive integer");
  const language = options.language ?? "en";
  if (!Object.hasOwn(SPAN_PROMPTS, language)) throw new ConfigError("spanLanguage", language, `one of ${SPAN_LANGUAGES.join(", ")}`);
  // The graph is chosen here, so that a variant the directory cannot satisfy is a ConfigError on this
  // thread; the workers choose again for the same CPU, and so take the same graph.
  const cpu = options.cpu ?? readCpuFeatures();
  const found = readModelFiles({ ...options, cpu });
  const architectures = Array.isArray(found.config.architectures) ? found.config.architectures.map(String) : [];
  if (architectures.length > 0 && !isTokenClassifier(found.config)) {
    throw new ConfigError("spanModel", options.dir, `a token-classification model (config.json architectures end in ForTokenClassification; this one names ${architectures.join(", ")})`);
  }
  try {
    spanLabels(found.config, options.dir);
  } catch (error) {
    throw new ConfigError("spanModel", options.dir, (error as Error).message);
  }
  const { workers: _, batchWaitMs, ...engineOptions } = options;
  const loaded = { ...engineOptions, language, cpu };
  let runner: SpanRunner;
  if (deps.runtime || deps.importOnnxRuntime) runner = await inThread(loaded, deps);
  else {
    const pool: SpanPool = await createSpanPool(loaded, { size: workers, ...(batchWaitMs !== undefined ? { batchWaitMs } : {}) });
    runner = pool;
  }
  const detector: OnnxSpanDetector = {
    name: "onnx-spans",
    version: spanModelVersion(runner.info),
    tier: "production",
    recommendedSpanThreshold: SPAN_DETECTOR_THRESHOLD,
    info: runner.info,
    detect: (inputs, callOptions) => (inputs.length === 0 ? Promise.resolve([]) : runner.detect(inputs, callOptions)),
    stats: () => runner.stats(),
    close: () => runner.close(),
  };
  return detector;
}
