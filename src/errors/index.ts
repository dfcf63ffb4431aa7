export { GROUNDWATCH_ERROR_CODES, GroundwatchError, isGroundwatchError, isGroundwatchErrorCode } from "./groundwatch-error.ts";
export type { GroundwatchErrorCode } from "./groundwatch-error.ts";
