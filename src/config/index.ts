export { ConfigError, isConfigError } from "./errors.ts";
export { DEFAULT_SETTINGS } from "./defaults.ts";
export { SCORE_ENV, resolveScoreOptions } from "./score-options.ts";
export type { ResolvedScoreOptions, ScoreOptions } from "./score-options.ts";
export { loadConfigFile } from "./file.ts";
export type { ConfigFile } from "./file.ts";
