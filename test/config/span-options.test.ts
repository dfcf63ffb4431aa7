import { describe, expect, it } from "vitest";
import { SCORE_ENV, SCORE_OPTION_KEYS, resolveScoreSources } from "../../src/config/score-options.ts";
import { backendOptionsFromFlags } from "../../src/cli/shared/backend-flags.ts";

describe("span detector options", () => {
  it("default to no detector, no threshold (the detector's) and the English prompt", () => {
    expect(resolveScoreSources().values).toMatchObject({ spanModel: undefined, spanThreshold: undefined, spanLanguage: "en" });
  });

  it("resolve option > environment > config file's scoring section, and say where each came from", () => {
    const env = { [SCORE_ENV.spanModel]: "/models/env", [SCORE_ENV.spanThreshold]: "0.4" };
    const file = { spanModel: "/models/file", spanThreshold: 0.3, spanLanguage: "de" };
    const r = resolveScoreSources({ spanThreshold: 0.6 }, { env, file });
    expect(r.values).toMatchObject({ spanModel: "/models/env", spanThreshold: 0.6, spanLanguage: "de" });
    expect(r.sources).toMatchObject({ spanModel: "env", spanThreshold: "option", spanLanguage: "file" });
    expect(SCORE_OPTION_KEYS.has("spanModel")).toBe(true);
    expect(SCORE_ENV).toMatchObject({ spanModel: "GROUNDWATCH_SPAN_MODEL", spanThreshold: "GROUNDWATCH_SPAN_THRESHOLD", spanLanguage: "GROUNDWATCH_SPAN_LANGUAGE" });
  });

  it("refuse a threshold outside [0, 1] and an unknown language with a ConfigError naming the field", () => {
    expect(() => resolveScoreSources({ spanThreshold: 1.5 })).toThrow(expect.objectContaining({ name: "ConfigError", field: "spanThreshold" }));
    expect(() => resolveScoreSources({}, { env: { GROUNDWATCH_SPAN_LANGUAGE: "nl" } })).toThrow(expect.objectContaining({ name: "ConfigError", field: "GROUNDWATCH_SPAN_LANGUAGE" }));
  });

  it("make backend spans need a span model: a ConfigError on spanModel", () => {
    expect(() => resolveScoreSources({ backend: "spans" })).toThrow(expect.objectContaining({ name: "ConfigError", field: "spanModel" }));
    expect(resolveScoreSources({ backend: "spans", spanModel: "/models/lettuce" }).values.backend).toBe("spans");
  });

  it("come from --span-model, --span-threshold and --span-language; a non-numeric threshold is named", () => {
    expect(backendOptionsFromFlags({ backend: "spans", "span-model": "/m", "span-threshold": "0.7", "span-language": "fr" }).options).toEqual({ backend: "spans", spanModel: "/m", spanThreshold: 0.7, spanLanguage: "fr" });
    expect(backendOptionsFromFlags({ "span-threshold": "high" }).error).toBe('--span-threshold must be a number (got "high")');
  });
});
