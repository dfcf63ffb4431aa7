import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { SCORE_ENV, resolveScoreOptions } from "../../src/config/score-options.ts";

describe("the nliCacheBytes score option", () => {
  it("defaults to 16 MiB, is read from GROUNDWATCH_NLI_CACHE_BYTES, and 0 turns the cache off", () => {
    expect(SCORE_ENV.nliCacheBytes).toBe("GROUNDWATCH_NLI_CACHE_BYTES");
    expect(resolveScoreOptions().nliCacheBytes).toBe(16 * 1024 * 1024);
    expect(resolveScoreOptions({}, { env: { GROUNDWATCH_NLI_CACHE_BYTES: "0" } }).nliCacheBytes).toBe(0);
    expect(resolveScoreOptions({ nliCacheBytes: 1024 }, { env: { GROUNDWATCH_NLI_CACHE_BYTES: "0" } }).nliCacheBytes).toBe(1024);
  });

  it.each([
    [{ nliCacheBytes: -1 }, {}, "invalid nliCacheBytes: -1"],
    [{ nliCacheBytes: 1024 ** 3 + 1 }, {}, "invalid nliCacheBytes: 1073741825"],
    [{}, { GROUNDWATCH_NLI_CACHE_BYTES: "lots" }, 'invalid GROUNDWATCH_NLI_CACHE_BYTES: "lots"'],
  ])("throws a ConfigError naming the field for %j %j", (options, env, message) => {
    expect(() => resolveScoreOptions(options, { env })).toThrow(ConfigError);
    expect(() => resolveScoreOptions(options, { env })).toThrow(message);
  });
});
