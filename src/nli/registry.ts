import { existsSync, statSync } from "node:fs";
import { ConfigError } from "../config/errors.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { JUDGE_API_KEY_ENV, SCORE_ENV } from "../config/score-options.ts";
import type { TextAnalyzer } from "../core/text.ts";
import type { EntailmentBackend } from "./backend.ts";
import { DEFAULT_MODEL_REPO, cachedSnapshot, hubCacheDir, isRepoId } from "./hub/cache.ts";
import { createJudgeBackend } from "./judge/backend.ts";
import { createOfflineBackend } from "./offline/backend.ts";
import { createOnnxBackend } from "./onnx/backend.ts";

/** Backend names this build can create. */
export const BACKEND_NAMES = ["offline", "onnx", "judge"] as const;

/**
 * The model directory for --model: an existing directory, or a repo id that is in
 * the hub cache. Scoring never downloads; `groundwatch model pull` does.
 */
export function resolveModelDir(model: string, env: NodeJS.ProcessEnv): string {
  if (existsSync(model)) {
    if (!statSync(model).isDirectory()) throw new ConfigError("model", model, "expected a model directory, got a file");
    return model;
  }
  if (isRepoId(model)) {
    const cached = cachedSnapshot(hubCacheDir(env), model);
    if (cached) return cached;
    throw new ConfigError("model", model, `not in the model cache ${hubCacheDir(env)}; run \`groundwatch model pull ${model}\``);
  }
  throw new ConfigError("model", model, "no such directory, and not a Hugging Face repo id (org/name)");
}

export interface CreatedBackend {
  readonly backend: EntailmentBackend;
  /** Things the user must be told (e.g. falling back to the triage backend). */
  readonly warnings: readonly string[];
}

/**
 * Creates the backend the options ask for. `auto` takes the ONNX backend when a model
 * is configured or the default model is cached, else the offline backend with a
 * warning. `requireProduction` refuses a triage backend.
 */
export async function createBackend(options: ResolvedScoreOptions, deps: { analyzer: TextAnalyzer; env: NodeJS.ProcessEnv }): Promise<CreatedBackend> {
  const warnings: string[] = [];
  let choice = options.backend;
  let model = options.model;
  if (choice === "auto") {
    const cachedDefault = model === undefined ? cachedSnapshot(hubCacheDir(deps.env), DEFAULT_MODEL_REPO) : undefined;
    if (model !== undefined || cachedDefault) {
      choice = "onnx";
      model ??= cachedDefault;
    } else {
      choice = "offline";
      warnings.push(
        `no NLI model configured or cached: scoring with the offline backend, whose results are TRIAGE-GRADE (not for paging or release decisions). Run \`groundwatch model pull\` for ${DEFAULT_MODEL_REPO}, or pass --model.`,
      );
    }
  }
  if (choice === "offline" && options.requireProduction) {
    throw new ConfigError("requireProduction", true, `refusing to score with the triage-tier offline backend; configure --model or the judge (${SCORE_ENV.requireProduction} is set)`);
  }
  switch (choice) {
    case "offline":
      return { backend: createOfflineBackend({ analyzer: deps.analyzer }), warnings };
    case "onnx": {
      if (model === undefined) throw new ConfigError("model", undefined, `the onnx backend needs --model DIR|REPO (or ${SCORE_ENV.model})`);
      const dir = resolveModelDir(model, deps.env);
      const backend = await createOnnxBackend({
        dir,
        workers: options.onnxWorkers,
        ...(options.variant ? { variant: options.variant } : {}),
        ...(options.onnxThreads ? { threads: options.onnxThreads } : {}),
      });
      return { backend, warnings };
    }
    case "judge": {
      if (!options.judgeUrl) throw new ConfigError("judgeUrl", undefined, `the judge backend needs a base URL (${SCORE_ENV.judgeUrl})`);
      if (!options.judgeModel) throw new ConfigError("judgeModel", undefined, `the judge backend needs a model name (${SCORE_ENV.judgeModel})`);
      const apiKey = deps.env[JUDGE_API_KEY_ENV];
      if (!apiKey) warnings.push(`${JUDGE_API_KEY_ENV} is not set: calling ${options.judgeUrl} without an API key`);
      const backend = createJudgeBackend({
        baseUrl: options.judgeUrl,
        model: options.judgeModel,
        budget: options.judgeBudget,
        concurrency: options.judgeConcurrency,
        ...(apiKey ? { apiKey } : {}),
      });
      return { backend, warnings };
    }
  }
}
