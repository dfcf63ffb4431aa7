export { ConfigError, isConfigError } from "./errors.ts";
export { DEFAULT_SETTINGS } from "./defaults.ts";
export { SCORE_ENV, resolveScoreOptions, resolveScoreSources } from "./score-options.ts";
export type { ResolvedScoreOptions, ScoreOptions, ScoreResolution } from "./score-options.ts";
export { COLLECTOR_ENV, CONFIG_FILE_ENV, HUB_ENV, MONITOR_ENV } from "./env.ts";
export type { ValueSource } from "./resolve.ts";
export { loadConfigFile } from "./file.ts";
export type { ConfigFile } from "./file.ts";
