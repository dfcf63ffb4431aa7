import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { integerIn, parseBoolean, parseByteSize, parseInteger, parseNonEmpty, parseNumber, parseOneOf, parseRate, parseRouteRates, sizeBytes } from "../../src/config/parse.ts";
import type { ValueSource } from "../../src/config/resolve.ts";
import { describeSource, fieldReader, fileRelativePath, pickSource, resolveField } from "../../src/config/resolve.ts";

describe("the one parser set", () => {
  it("reads the same boolean words everywhere, trimmed and in any case", () => {
    for (const word of ["true", "1", "yes", "on", " YES ", "On"]) expect(parseBoolean("f", word)).toBe(true);
    for (const word of ["false", "0", "no", "off", "No\n"]) expect(parseBoolean("f", word)).toBe(false);
    expect(parseBoolean("f", true)).toBe(true);
    expect(() => parseBoolean("GROUNDWATCH_X", "maybe")).toThrow('invalid GROUNDWATCH_X: "maybe" (expected true or false)');
    expect(() => parseBoolean("f", 1)).toThrow(ConfigError);
  });

  it("treats an absent, empty or blank value as not set", () => {
    for (const raw of [undefined, "", "  "]) {
      expect(parseBoolean("f", raw)).toBeUndefined();
      expect(parseNumber("f", raw, { min: 0, max: 1 })).toBeUndefined();
      expect(parseOneOf("f", raw, ["a"])).toBeUndefined();
      expect(parseNonEmpty("f", raw)).toBeUndefined();
    }
  });

  it("reads numbers from numbers and trimmed strings, in range, naming the field", () => {
    expect(parseInteger("n", " 42 ", 1, 50)).toBe(42);
    expect(parseRate("r", "0.25")).toBe(0.25);
    expect(() => parseInteger("n", "4.5", 1, 50)).toThrow("invalid n: 4.5 (expected an integer from 1 to 50)");
    expect(() => parseInteger("n", "lots", 1, 50)).toThrow('invalid n: "lots" (expected an integer from 1 to 50)');
    expect(() => parseNumber("t", 3, { min: 0, max: 2, what: "a temperature" })).toThrow("invalid t: 3 (expected a temperature from 0 to 2)");
    expect(() => parseRate("r", "Infinity", "a sampling rate")).toThrow('(expected a sampling rate from 0 to 1)');
    expect(() => parseNumber("n", null, { min: 0, max: 1 })).toThrow(ConfigError);
  });

  it("reads choices and strings trimmed", () => {
    expect(parseOneOf("b", " onnx ", ["offline", "onnx"])).toBe("onnx");
    expect(() => parseOneOf("b", "gpu", ["offline", "onnx"])).toThrow('invalid b: "gpu" (expected one of offline, onnx)');
    expect(parseNonEmpty("m", " org/model\n")).toBe("org/model");
    expect(() => parseNonEmpty("m", 5)).toThrow("expected a non-empty string");
  });
});

describe("pickSource", () => {
  const env = { GROUNDWATCH_X: "2", GROUNDWATCH_BLANK: "  " };
  it("resolves option > environment > config file > default, naming the field and where it came from", () => {
    expect(pickSource({ key: "x", option: 1, env, envName: "GROUNDWATCH_X", file: { x: 3 }, section: "monitor" })).toEqual({ field: "x", value: 1, source: "option" });
    expect(pickSource({ key: "x", option: undefined, env, envName: "GROUNDWATCH_X", file: { x: 3 }, section: "monitor" })).toEqual({ field: "GROUNDWATCH_X", value: "2", source: "env" });
    expect(pickSource({ key: "x", option: undefined, env, envName: "GROUNDWATCH_BLANK", file: { x: 3 }, section: "monitor" })).toEqual({ field: "config file monitor.x", value: 3, source: "file" });
    expect(pickSource({ key: "x", option: undefined, env, file: {}, section: "monitor" })).toEqual({ field: "x", value: undefined, source: "default" });
  });
});

describe("resolveField", () => {
  const env = { GROUNDWATCH_X: "7", GROUNDWATCH_BLANK: " " };
  it("parses the value picked, says where it came from, and falls back (source default) when nothing set it", () => {
    expect(resolveField({ key: "x", option: undefined, env, envName: "GROUNDWATCH_X", file: { x: 3 }, section: "monitor", parse: integerIn(1, 10), fallback: 1 })).toEqual({ value: 7, source: "env", field: "GROUNDWATCH_X" });
    expect(resolveField({ key: "x", option: undefined, env, envName: "GROUNDWATCH_BLANK", file: { x: "4" }, section: "monitor", parse: integerIn(1, 10), fallback: 1 })).toEqual({ value: 4, source: "file", field: "config file monitor.x" });
    // A blank value set in the file is unset: the default applies, and the source says so.
    expect(resolveField({ key: "x", option: undefined, file: { x: "" }, section: "monitor", parse: integerIn(1, 10), fallback: 1 })).toEqual({ value: 1, source: "default", field: "x" });
    expect(resolveField({ key: "x", option: undefined, section: "monitor", parse: integerIn(1, 10) }).value).toBeUndefined();
    expect(() => resolveField({ key: "x", option: undefined, env, envName: "GROUNDWATCH_X", section: "monitor", parse: integerIn(1, 5) })).toThrow("invalid GROUNDWATCH_X: 7 (expected an integer from 1 to 5)");
  });

  it("reads a section's keys with their env names, a prefix for messages, and records every source", () => {
    const sources: Partial<Record<"a" | "b" | "c", ValueSource>> = {};
    const read = fieldReader<"a" | "b" | "c">({ options: { a: 1 }, env: { GROUNDWATCH_B: "2" }, envNames: { b: "GROUNDWATCH_B" }, file: { c: "x" }, section: "monitor.review", prefix: "review.", sources });
    expect([read("a", integerIn(0, 9), 0), read("b", integerIn(0, 9), 0), read("c", parseNonEmpty)]).toEqual([1, 2, "x"]);
    expect(sources).toEqual({ a: "option", b: "env", c: "file" });
    expect(read.picked("c")).toEqual({ field: "config file monitor.review.c", value: "x", source: "file" });
    expect(() => read("c", integerIn(0, 9))).toThrow('invalid config file monitor.review.c: "x"');
    expect(() => fieldReader<"a">({ options: { a: 99 }, section: "monitor", prefix: "review." })("a", integerIn(0, 9))).toThrow("invalid review.a: 99");
  });
});

describe("fileRelativePath", () => {
  it("reads a config-file path from the file's folder, and any other as given", () => {
    expect(fileRelativePath({ value: "cal.json", source: "file" }, "/etc/gw/groundwatch.yaml")).toBe("/etc/gw/cal.json");
    expect(fileRelativePath({ value: "/abs/cal.json", source: "file" }, "/etc/gw/groundwatch.yaml")).toBe("/abs/cal.json");
    expect(fileRelativePath({ value: "cal.json", source: "env" }, "/etc/gw/groundwatch.yaml")).toBe("cal.json");
    expect(fileRelativePath({ value: "cal.json", source: "option" }, undefined)).toBe("cal.json");
    expect(fileRelativePath({ value: undefined, source: "default" }, "/etc/gw/groundwatch.yaml")).toBeUndefined();
  });
});

describe("describeSource", () => {
  it("names each source of a setting in one wording", () => {
    const names = { option: "--threshold", envName: "GROUNDWATCH_THRESHOLD", fileKey: "scoring.threshold", default: "backend default" };
    const words = (["option", "env", "file", "calibration", "default"] as const).map((s) => describeSource(s, names));
    expect(words).toEqual(["--threshold", "GROUNDWATCH_THRESHOLD", "config file scoring.threshold", "calibration", "backend default"]);
  });
});

describe("sizes and per-route rates", () => {
  it("reads sizes in b, kb and mb, in any case", () => {
    expect([sizeBytes("512"), sizeBytes("10b"), sizeBytes(" 2KB "), sizeBytes("1mb"), sizeBytes("1gb")]).toEqual([undefined, 10, 2048, 1024 * 1024, undefined]);
    expect(parseByteSize("collector.bodyLimit", " 2mb ")).toBe("2mb");
    expect(parseByteSize("collector.bodyLimit", "")).toBeUndefined();
    expect(() => parseByteSize("bodyLimit", "2 gigs")).toThrow('invalid bodyLimit: "2 gigs" (expected a size such as "512kb" or "2mb")');
  });

  it("reads route=rate lists, each rate a sampling rate", () => {
    expect(parseRouteRates("R", "/a/*=1, /b=0.2,,")).toEqual({ "/a/*": 1, "/b": 0.2 });
    expect(parseRouteRates("R", " ")).toBeUndefined();
    expect(() => parseRouteRates("R", "/a")).toThrow('invalid R: "/a" (expected "route=rate,route=rate")');
    expect(() => parseRouteRates("R", "/a=x")).toThrow('invalid R route /a: "x" (expected a sampling rate from 0 to 1)');
  });
});
