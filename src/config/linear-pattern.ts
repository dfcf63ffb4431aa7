/**
 * Compiles a pattern from the configuration, that will run over text from callers (prompts,
 * messages), with V8's linear-time regular expression engine: its cost is linear in the text
 * whatever the pattern, where the backtracking engine can take quadratic or exponential time (the
 * documented promptContext example, `Documents:\n(?<context>[\s\S]*?)\n\nQuestion:`, is quadratic on a
 * message of many "Documents:" lines and no "Question:"). The engine is off by default in Node 20;
 * it is switched on here, at compile time (the flag is idempotent and only enables the `l` flag).
 */
import { setFlagsFromString } from "node:v8";
import { ConfigError } from "./errors.ts";

const NOT_LINEAR = "Cannot be executed in linear time";

/** What the linear engine cannot run, as a user reads it. */
const LINEAR_PATTERN_LIMITS = "backreferences (\\1, \\k<name>), lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) and counted repetitions of more than 16 ({0,100}; *, + and {2,} are fine)";

/**
 * `source` compiled with the linear-time engine. A pattern that engine cannot run throws a
 * ConfigError naming `field` and saying why; an invalid one, a ConfigError saying the value is not
 * `expected`, with the engine's message.
 */
export function compileLinearPattern(field: string, source: string, expected = "a valid regular expression"): RegExp {
  setFlagsFromString("--enable-experimental-regexp-engine");
  try {
    // "l" is the linear engine's flag; eslint's RegExp checker does not know it.
    // eslint-disable-next-line no-invalid-regexp
    return new RegExp(source, "l");
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes(NOT_LINEAR)) {
      throw new ConfigError(field, source, `the pattern runs over text from callers, so it must run in linear time, and it cannot: leave out ${LINEAR_PATTERN_LIMITS}`);
    }
    throw new ConfigError(field, source, `not ${expected} (${message})`);
  }
}
