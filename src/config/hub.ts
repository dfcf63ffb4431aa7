import { homedir } from "node:os";
import { join } from "node:path";
import { HUB_ENV, JUDGE_API_KEY_ENV_NAME } from "./env.ts";
import { TRUE_WORDS } from "./parse.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The Hugging Face hub settings, read from the environment once at an edge (CLI command, createMonitor, serve). */
export interface HubSettings {
  /** Where models are cached: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
  readonly cacheDir: string;
  /** The hub's base URL, without a trailing slash: HF_ENDPOINT, else https://huggingface.co. */
  readonly endpoint: string;
  /** HF_TOKEN, else HUGGING_FACE_HUB_TOKEN; undefined when neither is set. */
  readonly token: string | undefined;
  /** HF_HUB_OFFLINE is one of the true words (1, true, yes, on; any other value is false, as for the hub's own clients). */
  readonly offline: boolean;
}

/** The hub settings `env` holds. */
export function resolveHubSettings(env: Env): HubSettings {
  const offline = (env[HUB_ENV.offline] ?? "").trim().toLowerCase();
  return {
    cacheDir: env[HUB_ENV.cache] || join(env[HUB_ENV.home] ?? join(homedir(), ".cache", "huggingface"), "hub"),
    endpoint: (env[HUB_ENV.endpoint] ?? "https://huggingface.co").replace(/\/+$/, ""),
    token: env[HUB_ENV.token] ?? env[HUB_ENV.legacyToken] ?? undefined,
    offline: TRUE_WORDS.includes(offline),
  };
}

/** What a scoring backend needs from outside its options: where the model cache is, and the judge's API key. */
export interface BackendSettings {
  /** The Hugging Face model cache (HubSettings.cacheDir). */
  readonly hubCacheDir: string;
  /** GROUNDWATCH_JUDGE_API_KEY, the one secret scoring needs; undefined when unset or empty. */
  readonly judgeApiKey: string | undefined;
}

/** The backend settings `env` holds. */
export function resolveBackendSettings(env: Env): BackendSettings {
  return { hubCacheDir: resolveHubSettings(env).cacheDir, judgeApiKey: env[JUDGE_API_KEY_ENV_NAME] || undefined };
}
