/** Guard defaults resolved at the edge: option > GROUNDWATCH_GUARD_* > config file's monitor.guard > built-in, and a bad value a ConfigError naming where it was set. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { GUARD_DEFAULTS } from "../../src/sdk/guard-options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import { tempDir } from "../helpers/cli.ts";

const configFile = (content: unknown): string => {
  const path = join(tempDir(), "gw.json");
  writeFileSync(path, JSON.stringify(content));
  return path;
};

const guardOf = (options: MonitorOptions): ReturnType<typeof resolveMonitorOptions>["guard"] => resolveMonitorOptions(options).guard;

/** The field a ConfigError thrown by `fn` names. */
function failingField(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isConfigError(error)) return error.field;
    throw error;
  }
  throw new Error("no ConfigError was thrown");
}

describe("guard defaults at the edge", () => {
  it("are the built-in ones when nothing is set", () => {
    expect(guardOf({ env: {} })).toEqual(GUARD_DEFAULTS);
  });

  it("read each field from the environment, the config file's monitor.guard, or the option, in that rising order", () => {
    const file = configFile({ monitor: { guard: { budgetMs: 300, onFail: "pass", action: "correct", correction: "mark", replacement: "From the file.", marker: { open: "<<", close: ">>" } } } });
    expect(guardOf({ env: {}, configFile: file })).toEqual({ budgetMs: 300, onFail: "pass", action: "correct", correction: "mark", replacement: "From the file.", marker: { open: "<<", close: ">>" } });
    const env = { GROUNDWATCH_GUARD_BUDGET_MS: "400", GROUNDWATCH_GUARD_ON_FAIL: "block", GROUNDWATCH_GUARD_ACTION: "block", GROUNDWATCH_GUARD_CORRECTION: "remove", GROUNDWATCH_GUARD_REPLACEMENT: "From the environment." };
    expect(guardOf({ env, configFile: file })).toEqual({ budgetMs: 400, onFail: "block", action: "block", correction: "remove", replacement: "From the environment.", marker: { open: "<<", close: ">>" } });
    expect(guardOf({ env, configFile: file, guard: { budgetMs: 500, onFail: "pass", replacement: "From the option.", marker: { open: "[" } } })).toEqual({
      budgetMs: 500,
      onFail: "pass",
      action: "block",
      correction: "remove",
      replacement: "From the option.",
      // Each marker part on its own: the option's open, the file's close.
      marker: { open: "[", close: ">>" },
    });
  });

  it("take the config file through GROUNDWATCH_CONFIG, and count a blank variable as unset", () => {
    const file = configFile({ monitor: { guard: { onFail: "pass" } } });
    expect(guardOf({ env: { GROUNDWATCH_CONFIG: file, GROUNDWATCH_GUARD_ON_FAIL: "  " } }).onFail).toBe("pass");
  });

  it("refuse a bad value with a ConfigError naming where it was set", () => {
    expect(failingField(() => guardOf({ env: { GROUNDWATCH_GUARD_ON_FAIL: "open" } }))).toBe("GROUNDWATCH_GUARD_ON_FAIL");
    expect(failingField(() => guardOf({ env: { GROUNDWATCH_GUARD_BUDGET_MS: "0" } }))).toBe("GROUNDWATCH_GUARD_BUDGET_MS");
    expect(failingField(() => guardOf({ env: { GROUNDWATCH_GUARD_BUDGET_MS: "fast" } }))).toBe("GROUNDWATCH_GUARD_BUDGET_MS");
    expect(failingField(() => guardOf({ env: { GROUNDWATCH_GUARD_ACTION: "rewrite" } }))).toBe("GROUNDWATCH_GUARD_ACTION");
    expect(failingField(() => guardOf({ env: { GROUNDWATCH_GUARD_CORRECTION: "strike" } }))).toBe("GROUNDWATCH_GUARD_CORRECTION");
    expect(failingField(() => guardOf({ env: { GROUNDWATCH_GUARD_REPLACEMENT: "x".repeat(10_001) } }))).toBe("GROUNDWATCH_GUARD_REPLACEMENT");
    expect(failingField(() => guardOf({ env: {}, configFile: configFile({ monitor: { guard: { budgetMs: 60_001 } } }) }))).toBe("config file monitor.guard.budgetMs");
    expect(failingField(() => guardOf({ env: {}, configFile: configFile({ monitor: { guard: { replacement: "" } } }) }))).toBe("config file monitor.guard.replacement");
    expect(failingField(() => guardOf({ env: {}, configFile: configFile({ monitor: { guard: { marker: { open: "x".repeat(101) } } } }) }))).toBe("config file monitor.guard.marker.open");
    expect(failingField(() => guardOf({ env: {}, guard: { budgetMs: -1 } }))).toBe("guard.budgetMs");
    expect(failingField(() => guardOf({ env: {}, guard: { onFail: "open" as "pass" } }))).toBe("guard.onFail");
  });

  it("refuse an unknown key or a non-object in the file's monitor.guard, naming it", () => {
    expect(failingField(() => guardOf({ env: {}, configFile: configFile({ monitor: { guard: { budget: 300 } } }) }))).toBe("config file monitor.guard.budget");
    expect(failingField(() => guardOf({ env: {}, configFile: configFile({ monitor: { guard: "strict" } }) }))).toBe("config file monitor.guard");
  });

  it("let an option outrank the variable: a bad variable under a set option is never read", () => {
    expect(guardOf({ env: { GROUNDWATCH_GUARD_ON_FAIL: "open" }, guard: { onFail: "pass" } }).onFail).toBe("pass");
  });
});
