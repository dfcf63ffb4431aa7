/** sdk/resample-options.ts: how the resample options resolve, and the errors a bad one gives. */
import { describe, expect, it } from "vitest";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { ResampleOptions } from "../../src/sdk/resample-options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { MONITOR_TEST_ENV } from "../helpers/monitor.ts";

const ENV = MONITOR_TEST_ENV;
type Sampler = ResampleOptions["sample"];

describe("resample options", () => {
  const sample: Sampler = () => Promise.resolve([]);

  it("resolves the defaults, and a single rate as the default for every route", () => {
    const r = resolveMonitorOptions({ env: ENV, resample: { sample } }).resample;
    expect(r).toMatchObject({ n: 5, rate: { default: 1, routes: {} }, maxConcurrent: 2, maxCallsPerMinute: 60, timeoutMs: 30_000 });
    expect(resolveMonitorOptions({ env: ENV, resample: { sample, rate: 0.25 } }).resample?.rate).toEqual({ default: 0.25, routes: {} });
    expect(resolveMonitorOptions({ env: ENV, resample: { sample, rate: { routes: { "/a/*": 0.5 } } } }).resample?.rate).toEqual({ default: 1, routes: { "/a/*": 0.5 } });
    expect(resolveMonitorOptions({ env: ENV }).resample).toBeUndefined();
  });

  it("throws a ConfigError naming the bad field", () => {
    const bad = (resample: unknown): (() => unknown) => () => createMonitor({ env: ENV, resample: resample as ResampleOptions });
    expect(bad({})).toThrow('invalid resample.sample: "undefined" (expected a function');
    expect(bad({ sample: "gpt" })).toThrow("invalid resample.sample");
    expect(bad(42)).toThrow("invalid resample: 42");
    expect(bad({ sample, n: 1 })).toThrow("invalid resample.n: 1 (expected an integer from 2 to 20)");
    expect(bad({ sample, n: 21 })).toThrow("invalid resample.n: 21");
    expect(bad({ sample, rate: 1.5 })).toThrow("invalid resample.rate: 1.5");
    expect(bad({ sample, rate: { default: -1 } })).toThrow("invalid resample.rate.default: -1");
    expect(bad({ sample, rate: { routes: { "/a": "0.5" } } })).toThrow('invalid resample.rate.routes["/a"]: "0.5"');
    expect(bad({ sample, rate: { routes: { "/a": null } } })).toThrow('invalid resample.rate.routes["/a"]: null');
    expect(bad({ sample, rate: "all" })).toThrow("invalid resample.rate");
    expect(bad({ sample, maxConcurrent: 0 })).toThrow("invalid resample.maxConcurrent: 0");
    expect(bad({ sample, maxConcurrent: 65 })).toThrow("invalid resample.maxConcurrent: 65");
    expect(bad({ sample, maxCallsPerMinute: 0 })).toThrow("invalid resample.maxCallsPerMinute: 0");
    expect(bad({ sample, timeoutMs: 0 })).toThrow("invalid resample.timeoutMs: 0");
  });
});
