import type { ScoreOptions } from "../config/score-options.ts";
import { resolveScoreOptions } from "../config/score-options.ts";
import type { AnswerInput, AnswerResult } from "../core/groundedness.ts";
import { createGroundednessScorer } from "../core/groundedness.ts";
import type { TextAnalyzer } from "../core/text.ts";
import { createTextAnalyzer } from "../core/text.ts";
import type { BackendInfo, EntailmentBackend } from "./backend.ts";
import { backendInfo } from "./backend.ts";
import { createBackend } from "./registry.ts";
import { DEFAULT_SETTINGS } from "../config/defaults.ts";

/** A ready-to-use scorer: resolved options, a loaded backend, and the pipeline. */
export interface Scorer {
  score(input: AnswerInput): Promise<AnswerResult>;
  readonly backend: BackendInfo;
  /** The answer threshold in force (explicit, else the backend's fitted one). */
  readonly threshold: number;
  close(): Promise<void>;
}

export interface CreateScorerDeps {
  /** Environment to read GROUNDWATCH_* variables from (default: none). */
  readonly env?: NodeJS.ProcessEnv;
  /** Options from a config file (lower precedence than options and env). */
  readonly file?: ScoreOptions;
  /** Use this backend instead of creating one by name. */
  readonly backend?: EntailmentBackend;
  readonly analyzer?: TextAnalyzer;
}

/** Resolves options (option > env > file > default), loads the backend and builds the pipeline. */
export function createScorer(options: ScoreOptions = {}, deps: CreateScorerDeps = {}): Scorer {
  const resolved = resolveScoreOptions(options, { ...(deps.env ? { env: deps.env } : {}), ...(deps.file ? { file: deps.file } : {}) });
  const analyzer = deps.analyzer ?? createTextAnalyzer();
  const backend = deps.backend ?? createBackend(resolved.backend, { analyzer });
  const threshold = resolved.threshold ?? backend.recommendedThreshold ?? DEFAULT_SETTINGS.threshold;
  const pipeline = createGroundednessScorer(backend, analyzer, { threshold, topK: resolved.topK, tokenBudget: resolved.tokenBudget });
  return {
    score: (input) => pipeline.score(input),
    backend: backendInfo(backend),
    threshold,
    close: () => backend.close(),
  };
}
