import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type * as TextFile from "../../src/config/text-file.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// Every config file is read through readTextFile: counted here, per path.
const reads = vi.hoisted(() => new Map<string, number>());
vi.mock("../../src/config/text-file.ts", async (importOriginal) => {
  const real = await importOriginal<typeof TextFile>();
  return {
    ...real,
    readTextFile: (path: string): string => {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return real.readTextFile(path);
    },
  };
});

describe("groundwatch serve's configuration, resolved once", () => {
  it("reads the config file once for the collector's and the monitor's options, and prints that resolution", async () => {
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ collector: { maxTraces: 123 }, monitor: { queueSize: 45 } }));
    const run = await runCli(["serve", "--backend", "offline", "--config", config, "--print-config"]);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { collector: { maxTraces: number }; monitor: { queueSize: number } };
    expect([printed.collector.maxTraces, printed.monitor.queueSize]).toEqual([123, 45]);
    expect(reads.get(config)).toBe(1);
  });
});
