import { ConfigError } from "./errors.ts";
import { DEFAULT_SETTINGS } from "./defaults.ts";

/** How answers are scored. Every field is optional; see `resolveScoreOptions` for the order. */
export interface ScoreOptions {
  /** Entailment backend name. Default "offline" (embedded, triage tier). Env GROUNDWATCH_BACKEND. */
  readonly backend?: string;
  /** Answer threshold in [0, 1]; default: the backend's fitted threshold, else 0.5. Env GROUNDWATCH_THRESHOLD. */
  readonly threshold?: number;
  /** Context windows checked per claim, 1–50. Default 3. Env GROUNDWATCH_TOP_K. */
  readonly topK?: number;
  /** Largest context window in estimated model tokens, 16–8192. Default 400. Env GROUNDWATCH_TOKEN_BUDGET. */
  readonly tokenBudget?: number;
}

export interface ResolvedScoreOptions {
  readonly backend: string;
  /** Undefined means "use the backend's recommended threshold". */
  readonly threshold: number | undefined;
  readonly topK: number;
  readonly tokenBudget: number;
}

/** Environment variable for each option. */
export const SCORE_ENV = {
  backend: "GROUNDWATCH_BACKEND",
  threshold: "GROUNDWATCH_THRESHOLD",
  topK: "GROUNDWATCH_TOP_K",
  tokenBudget: "GROUNDWATCH_TOKEN_BUDGET",
} as const;

function numberFrom(field: string, raw: unknown): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const n = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new ConfigError(field, raw, "expected a number");
  return n;
}

function inRange(field: string, value: number | undefined, min: number, max: number, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new ConfigError(field, value, `expected ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
  }
  return value;
}

/**
 * Resolves scoring options in one order: code option > environment variable >
 * config file section > default. Throws a ConfigError naming the field and value.
 */
export function resolveScoreOptions(options: ScoreOptions = {}, sources: { env?: NodeJS.ProcessEnv; file?: ScoreOptions } = {}): ResolvedScoreOptions {
  const env = sources.env ?? {};
  const file = sources.file ?? {};
  const pick = <K extends keyof ScoreOptions>(key: K): { field: string; value: unknown } => {
    if (options[key] !== undefined) return { field: key, value: options[key] };
    const e = env[SCORE_ENV[key]];
    if (e !== undefined && e !== "") return { field: SCORE_ENV[key], value: e };
    if (file[key] !== undefined) return { field: `config file ${key}`, value: file[key] };
    return { field: key, value: undefined };
  };
  const backend = pick("backend");
  if (backend.value !== undefined && (typeof backend.value !== "string" || backend.value.trim() === "")) {
    throw new ConfigError(backend.field, backend.value, "expected a backend name such as \"offline\"");
  }
  const t = pick("threshold");
  const k = pick("topK");
  const b = pick("tokenBudget");
  return {
    backend: (backend.value as string | undefined) ?? "offline",
    threshold: inRange(t.field, numberFrom(t.field, t.value), 0, 1, false),
    topK: inRange(k.field, numberFrom(k.field, k.value), 1, 50, true) ?? DEFAULT_SETTINGS.topK,
    tokenBudget: inRange(b.field, numberFrom(b.field, b.value), 16, 8192, true) ?? DEFAULT_SETTINGS.tokenBudget,
  };
}
