import { existsSync } from "node:fs";
import { ConfigError } from "../config/errors.ts";
import type { BackendSettings } from "../config/hub.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { JUDGE_API_KEY_ENV, SCORE_ENV } from "../config/score-options.ts";
import type { TextAnalyzer } from "../core/text.ts";
import type { EntailmentBackend, SpanDetector } from "../core/backend.ts";
import { createOnnxSpanDetector } from "./onnx/span-detector.ts";
import { isSpanModelDir } from "./onnx/span-labels.ts";
import { DEFAULT_MODEL_REPO, cachedSnapshot, isRepoId } from "./hub/cache.ts";
import { modelDirectory, notAModelError, notCachedError } from "./hub/describe.ts";
import { createJudgeBackend } from "./judge/backend.ts";
import { createOfflineBackend } from "./offline/backend.ts";
import { createOnnxBackend } from "./onnx/backend.ts";
import type { OnnxImporter } from "./onnx/runtime.ts";
import { ONNX_RUNTIME_INSTALL, ONNX_RUNTIME_INSTALL_CPU, ONNX_RUNTIME_INSTALL_HINT, ONNX_RUNTIME_PACKAGE, OnnxRuntimeMissingError, isOnnxRuntimeMissing, loadOnnxRuntime, onnxRuntimeResolvable } from "./onnx/runtime.ts";

/** Backend names this build can create. */
export const BACKEND_NAMES = ["offline", "onnx", "judge", "spans"] as const;

/**
 * The model directory for --model (or `field`, e.g. relevanceModel): an existing directory, or a
 * repo id that is in the hub cache; anything else is a ConfigError on `field`. Scoring never
 * downloads; `groundwatch model pull` does.
 */
export function resolveModelDir(model: string, cacheDir: string, field = "model"): string {
  if (existsSync(model)) return modelDirectory(model, model, field);
  if (isRepoId(model)) {
    const cached = cachedSnapshot(cacheDir, model);
    if (cached) return cached;
    throw notCachedError(model, cacheDir, "main", field);
  }
  throw notAModelError(model, field);
}

export interface CreatedBackend {
  /** The claim detector; with backend `spans`, spansOnlyBackend's port for the span detector (it judges no pair). */
  readonly backend: EntailmentBackend;
  /** The span detector (spanModel), when one is configured: alone with backend `spans`, else refining `backend`'s claims. Closing `backend` closes it only in alone mode. */
  readonly spans?: { readonly detector: SpanDetector; readonly mode: "alone" | "refine" };
  /** Things the user must be told (e.g. falling back to the triage backend). */
  readonly warnings: readonly string[];
}

export interface CreateBackendDeps {
  readonly analyzer: TextAnalyzer;
  /** Where the model cache is and the judge's API key, resolved at the caller's edge (config/hub.ts resolveBackendSettings): nli never reads the environment. */
  readonly settings: BackendSettings;
  /** Imports onnxruntime-node (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
}

/**
 * How much the options need onnxruntime-node: "required" for --backend onnx, or auto with a
 * model configured; "preferred" for auto when only the default model is cached (without the
 * runtime, auto falls back to the offline backend); undefined when they do not use it.
 */
export type OnnxRuntimeNeed = { readonly need: "required"; readonly field: string; readonly value: string } | { readonly need: "preferred"; readonly model: string };

export function onnxRuntimeNeed(options: Pick<ResolvedScoreOptions, "backend" | "model">, hubCacheDir: string): OnnxRuntimeNeed | undefined {
  if (options.backend === "onnx" || options.backend === "spans") return { need: "required", field: "backend", value: options.backend };
  if (options.backend !== "auto") return undefined;
  if (options.model !== undefined) return { need: "required", field: "model", value: options.model };
  const cached = cachedSnapshot(hubCacheDir, DEFAULT_MODEL_REPO);
  return cached ? { need: "preferred", model: cached } : undefined;
}

/** The backend createBackend will create for some options, told before anything is loaded. */
export interface PredictedBackend {
  readonly name: (typeof BACKEND_NAMES)[number];
  readonly tier: "production" | "triage";
  /** Whether `auto` chose it. */
  readonly auto: boolean;
  /** The onnx backend's model as configured, or DEFAULT_MODEL_REPO when auto takes the cached default model. */
  readonly model?: string | undefined;
  /** Auto took the default model because it is cached. */
  readonly cachedDefault?: boolean;
  /** Why auto fell back to the triage-tier offline backend. */
  readonly why?: string;
}

/**
 * The one answer to "which backend will score?", as createBackend decides it (onnxRuntimeNeed),
 * without loading anything: `auto` takes onnx when a model is configured, or when the default model
 * is cached and onnxruntime-node can be found (`runtimeResolvable`), else the offline backend.
 * Every default that depends on the backend (serve's banner, the monitor's in-flight and timeout
 * defaults) reads it here.
 */
export function predictBackend(options: Pick<ResolvedScoreOptions, "backend" | "model">, settings: Pick<BackendSettings, "hubCacheDir">, runtimeResolvable: () => boolean = onnxRuntimeResolvable): PredictedBackend {
  if (options.backend === "offline") return { name: "offline", tier: "triage", auto: false };
  if (options.backend === "judge") return { name: "judge", tier: "production", auto: false };
  if (options.backend === "onnx") return { name: "onnx", tier: "production", auto: false, model: options.model };
  if (options.backend === "spans") return { name: "spans", tier: "production", auto: false };
  const need = onnxRuntimeNeed(options, settings.hubCacheDir);
  if (need?.need === "required") return { name: "onnx", tier: "production", auto: true, model: options.model };
  if (need?.need === "preferred" && runtimeResolvable()) return { name: "onnx", tier: "production", auto: true, model: DEFAULT_MODEL_REPO, cachedDefault: true };
  return {
    name: "offline",
    tier: "triage",
    auto: true,
    why: need?.need === "preferred" ? `${DEFAULT_MODEL_REPO} is cached but ${ONNX_RUNTIME_PACKAGE} is not installed` : "no NLI model configured or cached; run `groundwatch model pull`, or pass --model",
  };
}

/**
 * Creates the backend the options ask for. `auto` takes the ONNX backend when a model
 * is configured or the default model is cached, else the offline backend with a
 * warning; when only the default model is cached and onnxruntime-node is not installed,
 * it too falls back to the offline backend, with a warning that says so.
 * `requireProduction` refuses a triage backend.
 */
export async function createBackend(options: ResolvedScoreOptions, deps: CreateBackendDeps): Promise<CreatedBackend> {
  if (options.backend === "spans") {
    const detector = await createSpanDetector(options, deps);
    if (!detector) throw new ConfigError("spanModel", undefined, "the spans backend needs a span detector (--span-model DIR|REPO)");
    return { backend: spansOnlyBackend(detector), spans: { detector, mode: "alone" }, warnings: [] };
  }
  const created = await createClaimBackend(options, deps);
  const detector = await createSpanDetector(options, deps).catch(async (error: unknown) => {
    await created.backend.close();
    throw error;
  });
  return detector ? { ...created, spans: { detector, mode: "refine" } } : created;
}

/**
 * The span detector `spanModel` names (an existing directory, or a repo id in the hub cache: a
 * ConfigError on spanModel otherwise), loaded on the onnx tier; undefined when none is configured.
 */
export async function createSpanDetector(options: Pick<ResolvedScoreOptions, "spanModel" | "spanLanguage" | "variant" | "onnxThreads" | "onnxWorkers" | "onnxBatchWaitMs" | "onnxMaxBatch">, deps: Pick<CreateBackendDeps, "settings" | "importOnnxRuntime">): Promise<SpanDetector | undefined> {
  if (options.spanModel === undefined) return undefined;
  const dir = resolveModelDir(options.spanModel, deps.settings.hubCacheDir, "spanModel");
  try {
    return await createOnnxSpanDetector(
      {
        dir,
        workers: options.onnxWorkers,
        batchWaitMs: options.onnxBatchWaitMs,
        maxBatch: options.onnxMaxBatch,
        language: options.spanLanguage,
        ...(options.variant ? { variant: options.variant } : {}),
        ...(options.onnxThreads ? { threads: options.onnxThreads } : {}),
      },
      deps.importOnnxRuntime ? { importOnnxRuntime: deps.importOnnxRuntime } : {},
    );
  } catch (error) {
    if (isOnnxRuntimeMissing(error)) throw new OnnxRuntimeMissingError("spanModel", options.spanModel);
    throw error;
  }
}

/** Why a `spans` backend's port refuses a pair: the only detector reads whole answers, not (premise, claim) pairs. */
export const SPANS_ONLY_REFUSAL = "the spans backend is a token-classification span detector: it judges no entailment pair, so semantic entropy and claim consistency cannot be measured with it (use a claim detector, e.g. --backend onnx, with --span-model to refine it)";

/**
 * The entailment port of backend `spans` (the span detector alone, core/span-judge.ts): it carries
 * the detector's identity and a recommended answer threshold of 1 − its span threshold (0.5 without
 * one), has no relevance scorer, and rejects every classify with SPANS_ONLY_REFUSAL, so what needs
 * pairs (semantic entropy, claim consistency) reports it could not be measured, and relevance is
 * `no_relevance_scorer`. Closing it closes the detector.
 */
export function spansOnlyBackend(detector: SpanDetector): EntailmentBackend {
  return {
    name: detector.name,
    version: detector.version,
    tier: detector.tier,
    recommendedThreshold: 1 - (detector.recommendedSpanThreshold ?? 0.5),
    classify: () => Promise.reject(new Error(SPANS_ONLY_REFUSAL)),
    close: () => detector.close(),
  };
}

/** Creates the claim detector the options name (every backend but `spans`). */
async function createClaimBackend(options: ResolvedScoreOptions, deps: CreateBackendDeps): Promise<CreatedBackend> {
  const warnings: string[] = [];
  let choice = options.backend;
  let model = options.model;
  /** The setting that asked for the onnx backend: the missing-runtime error names it. */
  let wantedBy: { readonly field: string; readonly value: string } = { field: "backend", value: "onnx" };
  if (choice === "auto") {
    const need = onnxRuntimeNeed(options, deps.settings.hubCacheDir);
    if (need?.need === "required") {
      choice = "onnx";
      wantedBy = need;
    } else if (need?.need === "preferred") {
      try {
        await loadOnnxRuntime(deps.importOnnxRuntime);
        choice = "onnx";
        model = need.model;
      } catch (error) {
        if (!isOnnxRuntimeMissing(error)) throw error;
        if (options.requireProduction) {
          throw new ConfigError("requireProduction", true, `refusing to fall back to the triage-tier offline backend: ${DEFAULT_MODEL_REPO} is cached, but ${ONNX_RUNTIME_PACKAGE} is not installed; ${ONNX_RUNTIME_INSTALL_HINT}`);
        }
        choice = "offline";
        warnings.push(
          `the ONNX runtime (${ONNX_RUNTIME_PACKAGE}) is not installed, so the cached ${DEFAULT_MODEL_REPO} cannot be used: scoring with the offline backend, whose results are TRIAGE-GRADE (not for paging or release decisions). Install it with \`${ONNX_RUNTIME_INSTALL}\` (on CPU-only machines, or where only the npm registry is reachable: \`${ONNX_RUNTIME_INSTALL_CPU}\`).`,
        );
      }
    } else {
      choice = "offline";
      warnings.push(
        `no NLI model configured or cached: scoring with the offline backend, whose results are TRIAGE-GRADE (not for paging or release decisions). Run \`groundwatch model pull\` for ${DEFAULT_MODEL_REPO}, or pass --model.`,
      );
    }
  }
  if (choice === "offline" && options.requireProduction) {
    throw new ConfigError("requireProduction", true, `refusing to score with the triage-tier offline backend; configure --model or the judge (production is required: --require-production, ${SCORE_ENV.requireProduction}=1 or the config's scoring.requireProduction)`);
  }
  if (options.relevanceModel !== undefined && choice !== "onnx") {
    warnings.push(`relevanceModel ${options.relevanceModel} is read by the onnx backend only: the ${choice} backend measures relevance with its own scorer (${choice === "judge" ? "the judge" : "lexical"})`);
  }
  switch (choice) {
    case "spans":
      throw new ConfigError("backend", "spans", "the spans backend is created by createBackend");
    case "offline":
      return { backend: createOfflineBackend({ analyzer: deps.analyzer }), warnings };
    case "onnx": {
      if (model === undefined) throw new ConfigError("model", undefined, `the onnx backend needs --model DIR|REPO (or ${SCORE_ENV.model})`);
      const dir = resolveModelDir(model, deps.settings.hubCacheDir);
      // A token classifier marks words of a whole answer; it judges no (premise, claim) pair.
      if (isSpanModelDir(dir)) throw new ConfigError("model", model, "this is a span detector (token classification, e.g. LettuceDetect): run it with --backend spans --span-model DIR|REPO, or beside a claim detector with --span-model DIR|REPO");
      const relevanceDir = options.relevanceModel === undefined ? undefined : resolveModelDir(options.relevanceModel, deps.settings.hubCacheDir, "relevanceModel");
      try {
        const backend = await createOnnxBackend(
          {
            dir,
            workers: options.onnxWorkers,
            maxBatch: options.onnxMaxBatch,
            batchWaitMs: options.onnxBatchWaitMs,
            ...(options.variant ? { variant: options.variant } : {}),
            ...(options.recipe ? { recipe: options.recipe } : {}),
            ...(options.onnxThreads ? { threads: options.onnxThreads } : {}),
            ...(relevanceDir !== undefined ? { relevanceDir } : {}),
          },
          {
            // Without a relevance model, relevance is the offline backend's lexical one, built on first use.
            lexicalRelevance: () => createOfflineBackend({ analyzer: deps.analyzer }),
            ...(deps.importOnnxRuntime ? { importOnnxRuntime: deps.importOnnxRuntime } : {}),
          },
        );
        return { backend, warnings };
      } catch (error) {
        if (isOnnxRuntimeMissing(error)) throw new OnnxRuntimeMissingError(wantedBy.field, wantedBy.value);
        throw error;
      }
    }
    case "judge": {
      if (!options.judgeUrl) throw new ConfigError("judgeUrl", undefined, `the judge backend needs a base URL (${SCORE_ENV.judgeUrl})`);
      if (!options.judgeModel) throw new ConfigError("judgeModel", undefined, `the judge backend needs a model name (${SCORE_ENV.judgeModel})`);
      const apiKey = deps.settings.judgeApiKey;
      if (!apiKey) warnings.push(`${JUDGE_API_KEY_ENV} is not set: calling ${options.judgeUrl} without an API key`);
      const backend = createJudgeBackend({
        baseUrl: options.judgeUrl,
        model: options.judgeModel,
        budget: options.judgeBudget,
        concurrency: options.judgeConcurrency,
        ...(apiKey ? { apiKey } : {}),
        // The recipe named (--recipe, GROUNDWATCH_RECIPE, scoring.recipe) reaches the judge as JudgeOptions.recipe (its judge recipes, nli/recipes/judge.ts).
        ...(options.recipe ? { recipe: options.recipe } : {}),
      });
      return { backend, warnings };
    }
  }
}
