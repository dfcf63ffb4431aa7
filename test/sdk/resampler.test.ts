/** sdk/resample.ts and sampling.ts: the resampler's parts on their own, without a monitor. */
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { copyResampleResult, createResampler, resampleFraction } from "../../src/sdk/resample.ts";
import { traceFraction } from "../../src/sdk/sampling.ts";
import { MONITOR_TEST_ENV } from "../helpers/monitor.ts";

const ENV = MONITOR_TEST_ENV;

describe("resampler parts", () => {
  it("decides on the trace id's high bits, independent of the scoring decision's low bits", () => {
    // A trace sampled for scoring at a low rate (low bits near 0) is not thereby always resampled.
    const id = "ffffffffffffff000000000000000001";
    expect(traceFraction(id)).toBeLessThan(0.001);
    expect(resampleFraction(id)).toBeGreaterThan(0.99);
    expect(resampleFraction("not a trace id")).toBeUndefined();
  });

  it("copies the host's result: strings, { text, logprobs }, { samples, usage }; anything else is refused", () => {
    expect(copyResampleResult(["a", { text: "b", logprobs: [-1, Number.NaN] }])).toEqual({ samples: ["a", { text: "b", logprobs: [-1, Number.NaN] }], usage: undefined });
    expect(copyResampleResult({ samples: ["a"], usage: { promptTokens: 10, completionTokens: -3 } })).toEqual({ samples: ["a"], usage: { promptTokens: 10 } });
    for (const garbage of [42, null, "a", [1, 2], [{ content: "a" }], { answers: ["a"] }]) expect(copyResampleResult(garbage)).toBeUndefined();
  });

  it("admits calls within the per-minute budget (a sliding window) and the concurrency bound, never waiting without bound", async () => {
    let t = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const options = resolveMonitorOptions({ env: ENV, resample: { n: 2, maxCallsPerMinute: 5, maxConcurrent: 1, sample: () => (calls++, gate.then(() => ["a", "b"])) } }).resample!;
    const r = createResampler(options, { now: () => t, random: Math.random });
    const input = { route: "/r", question: "q", context: ["c"], answer: "a", parent: ROOT_CONTEXT };
    const draw = (): Promise<string> => new Promise((resolve) => r.submit(input, (d) => resolve(d.outcome)));
    const sync: string[] = [];
    // One runs, one waits; a third finds both taken and is turned away at once (busy), not queued.
    const first = [draw(), draw()];
    r.submit(input, (d) => sync.push(d.outcome));
    expect(sync).toEqual(["busy"]);
    expect(calls).toBe(0); // the host's function is never called inside submit
    release();
    expect(await Promise.all(first)).toEqual(["ok", "ok"]);
    expect(calls).toBe(2);
    // Budget: 5 admitted in the last minute (2 above, 3 more now), then over it until the first is a minute old.
    expect(await Promise.all([draw(), draw()])).toEqual(["ok", "ok"]);
    expect(await draw()).toBe("ok");
    expect(await draw()).toBe("budget");
    t = 59_999;
    expect(await draw()).toBe("budget");
    t = 60_000;
    expect(await draw()).toBe("ok");
    r.close();
    expect(await draw()).toBe("skipped");
  });
});
