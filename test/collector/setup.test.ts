import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { startCollector } from "../../src/collector/server.ts";
import { resolveCollectorSetup } from "../../src/collector/setup.ts";
import { tempDir } from "../helpers/cli.ts";
import { COLLECTOR_TEST_ENV } from "../helpers/collector.ts";

/** A config file whose collector and monitor sections set the trace cap and the review spool's folder. */
function writeConfig(path: string, maxTraces: number, spool: string): void {
  writeFileSync(path, JSON.stringify({ collector: { maxTraces }, monitor: { captureContent: true, review: { dir: spool } } }));
}

describe("the collector's configuration, resolved once", () => {
  it("runs the resolution it is handed, as reported, though the config file changed after it was read", async () => {
    const dir = tempDir();
    const configFile = join(dir, "groundwatch.json");
    writeConfig(configFile, 111, "spool-reported");
    const options = { env: COLLECTOR_TEST_ENV, port: 0, configFile, monitor: { scoring: { backend: "offline" as const } } };
    const setup = resolveCollectorSetup(options);
    expect(setup.collector.maxTraces).toBe(111);
    expect(setup.monitor.review?.dir).toBe(join(dir, "spool-reported"));
    // Edited between the report (serve's banner, --print-config) and the start: the process runs what was reported.
    writeConfig(configFile, 333, "spool-edited");
    const running = await startCollector({ ...options, resolved: setup });
    onTestFinished(() => running.close(2000));
    expect(running.options.maxTraces).toBe(111);
    expect(running.monitor.reviewDir).toBe(join(dir, "spool-reported"));
  });

  it("resolves the monitor with the collector's config file and resampler, a code option outranking the file", () => {
    const dir = tempDir();
    const configFile = join(dir, "groundwatch.json");
    writeFileSync(configFile, JSON.stringify({ collector: { resampleUrl: "http://127.0.0.1:9/v1", resampleModel: "m" }, monitor: { queueSize: 7, workers: 3 } }));
    const setup = resolveCollectorSetup({ env: COLLECTOR_TEST_ENV, configFile, monitor: { workers: 2 } });
    expect(setup.monitor.configFile).toBe(configFile);
    expect(setup.monitor.queueSize).toBe(7);
    expect(setup.monitor.workers).toBe(2);
    expect(setup.monitor.resample?.n).toBe(setup.collector.resample?.n);
  });
});
