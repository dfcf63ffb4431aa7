/** The monitor's guard defaults from the environment and the config file flow down as values: to every guard() call and to the collector's POST /v1/guard, with a call's own options still over them. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.ts";
import { COLLECTOR_TEST_ENV, postJson, startTestCollector } from "../helpers/collector.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
/** Over the scorer's maxAnswerChars (100 here): a bypass, over_limits, at once, whatever the backend. */
const LONG = { route: "/r", context: CONTEXT, answer: `${"Returns are accepted within 30 days of delivery. ".repeat(4)}` };
/** One supported sentence and one invented number: corrected when the action is correct, blocked when it is block. */
const PARTLY = { route: "/r", context: CONTEXT, answer: "Returns are accepted within 30 days of delivery. Shipping is free on orders over $20." };
const SCORING = { backend: "offline", maxAnswerChars: 100 } as const;

const configFile = (content: unknown): string => {
  const path = join(tempDir(), "gw.json");
  writeFileSync(path, JSON.stringify(content));
  return path;
};

describe("guard defaults from the environment and the config file", () => {
  it("decide what a monitor's guard() does, and a call's options still go over them", async () => {
    const file = configFile({ monitor: { guard: { replacement: "Checked answers only." } } });
    const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_CONFIG: file, GROUNDWATCH_GUARD_ON_FAIL: "pass", GROUNDWATCH_GUARD_ACTION: "correct" }, scoring: SCORING });
    await monitor.ready();
    // onFail from the environment: the long answer goes out unchecked.
    expect(await monitor.guard(LONG)).toMatchObject({ decision: "bypass", reason: "over_limits", outcome: "pass", text: LONG.answer });
    // The call's onFail over it; the replacement from the config file.
    expect(await monitor.guard(LONG, { onFail: "block" })).toMatchObject({ decision: "bypass", outcome: "block", text: "Checked answers only." });
    // action correct from the environment; the call's action block over it, with the file's replacement.
    expect(await monitor.guard(PARTLY, { budgetMs: 20_000 })).toMatchObject({ decision: "correct", correction: "remove" });
    expect(await monitor.guard(PARTLY, { budgetMs: 20_000, action: "block" })).toMatchObject({ decision: "block", text: "Checked answers only." });
  });

  it("are POST /v1/guard's defaults on the collector; a request's options go over them", async () => {
    const file = configFile({ monitor: { guard: { replacement: "Not verified." } }, scoring: SCORING });
    const c = await startTestCollector({ env: { ...COLLECTOR_TEST_ENV, GROUNDWATCH_GUARD_ON_FAIL: "pass" }, configFile: file, monitor: { sampling: { default: 1 } } });
    const ask = async (options?: object): Promise<unknown> => (await postJson(`${c.url}/v1/guard`, { ...LONG, ...(options ? { options } : {}) })).json();
    expect(await ask()).toMatchObject({ decision: "bypass", reason: "over_limits", outcome: "pass", text: LONG.answer });
    expect(await ask({ onFail: "block" })).toMatchObject({ decision: "bypass", outcome: "block", text: "Not verified." });
  });

  it("refuse to start a monitor with a bad one, naming it", () => {
    expect(() => testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_GUARD_BUDGET_MS: "soon" } })).toThrow(/GROUNDWATCH_GUARD_BUDGET_MS/);
  });
});
