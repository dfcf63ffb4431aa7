export { main } from "./main.ts";
export { runScore, SCORE_HELP } from "./score.ts";
export { EXIT } from "./shared/exit-codes.ts";
export type { ExitCode } from "./shared/exit-codes.ts";
export type { CommandIo } from "./shared/io.ts";
export { sanitizeForTerminal } from "./shared/io.ts";
export { parseScoreRow } from "./shared/score-rows.ts";
export type { ParsedRow, ScoreRow } from "./shared/score-rows.ts";
