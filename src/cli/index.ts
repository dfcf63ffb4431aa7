export { main } from "./main.ts";
export { runScore, SCORE_HELP } from "./score.ts";
export { EXIT } from "./exit-codes.ts";
export type { ExitCode } from "./exit-codes.ts";
export type { CommandIo } from "./io.ts";
export { sanitizeForTerminal } from "./io.ts";
export { parseScoreRow } from "./score-rows.ts";
export type { ParsedRow, ScoreRow } from "./score-rows.ts";
