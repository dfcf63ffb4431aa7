import type { BackendSettings } from "../config/hub.ts";
import { resolveBackendSettings } from "../config/hub.ts";
import type { ResolvedScoreOptions, ScoreOptions } from "../config/score-options.ts";
import { resolveScoreOptions } from "../config/score-options.ts";
import type { EntailmentBackend, SpanDetector } from "../core/backend.ts";
import type { TextAnalyzer } from "../core/text.ts";
import type { OnnxImporter } from "../nli/onnx/runtime.ts";
import type { Scorer } from "../scoring/scorer.ts";
import { createResolvedScorer } from "../scoring/scorer.ts";

/**
 * The package's scorer, an edge: its options are resolved here, once (option > env > file > default),
 * and handed to the scoring layer as values.
 */
export interface CreateScorerDeps {
  /** Environment to read GROUNDWATCH_* and HF_* variables from (default: none). */
  readonly env?: NodeJS.ProcessEnv;
  /** Options from a config file (lower precedence than options and env). */
  readonly file?: ScoreOptions;
  /** Use this backend instead of creating one from the options. */
  readonly backend?: EntailmentBackend;
  /** Use this span detector instead of loading `spanModel`: alone with backend `spans`, else refining the backend's claims. */
  readonly spanDetector?: SpanDetector;
  readonly analyzer?: TextAnalyzer;
  /** Imports onnxruntime-node for the onnx backend (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
  /** Options already resolved by the caller: used as they are, and `options`/`env`/`file` are not read. */
  readonly resolved?: ResolvedScoreOptions;
  /** The model cache and the judge's API key, resolved by the caller; default: read from `env`. */
  readonly settings?: BackendSettings;
}

/** Resolves options (option > env > file > default) once, loads the backend and builds the pipeline. */
export function createScorer(options: ScoreOptions = {}, deps: CreateScorerDeps = {}): Promise<Scorer> {
  const env = deps.env ?? {};
  const resolved = deps.resolved ?? resolveScoreOptions(options, { env, ...(deps.file ? { file: deps.file } : {}) });
  return createResolvedScorer(resolved, {
    settings: deps.settings ?? resolveBackendSettings(env),
    ...(deps.backend ? { backend: deps.backend } : {}),
    ...(deps.spanDetector ? { spanDetector: deps.spanDetector } : {}),
    ...(deps.analyzer ? { analyzer: deps.analyzer } : {}),
    ...(deps.importOnnxRuntime ? { importOnnxRuntime: deps.importOnnxRuntime } : {}),
  });
}
