import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { tempDir } from "../helpers/cli.ts";

const configFile = (collector: Record<string, unknown>): string => {
  const path = join(tempDir(), "gw.json");
  writeFileSync(path, JSON.stringify({ collector }));
  return path;
};

describe("collector options", () => {
  // Issue 26: logContent from a config file was never validated ("yes" was read as false, "maybe" passed).
  it("reads logContent from a config file with the one boolean parser", () => {
    expect(resolveCollectorOptions({ env: {}, configFile: configFile({ logContent: "yes" }) }).logContent).toBe(true);
    expect(resolveCollectorOptions({ env: {}, configFile: configFile({ logContent: true }) }).logContent).toBe(true);
    expect(resolveCollectorOptions({ env: {} }).logContent).toBe(false);
    expect(() => resolveCollectorOptions({ env: {}, configFile: configFile({ logContent: "maybe" }) })).toThrow('invalid config file collector.logContent: "maybe" (expected true or false)');
  });

  it("checks bodyLimit with the size parser the server uses, naming where it came from", () => {
    expect(resolveCollectorOptions({ env: {}, configFile: configFile({ bodyLimit: "512kb" }) }).bodyLimit).toBe("512kb");
    expect(resolveCollectorOptions({ env: {}, bodyLimit: "1MB" }).bodyLimit).toBe("1MB");
    expect(() => resolveCollectorOptions({ env: {}, configFile: configFile({ bodyLimit: "2 gigs" }) })).toThrow('invalid config file collector.bodyLimit: "2 gigs"');
    expect(() => resolveCollectorOptions({ env: {}, bodyLimit: "2gb" })).toThrow('invalid bodyLimit: "2gb" (expected a size such as "512kb" or "2mb")');
  });

  it("names the section in config-file errors, as the scoring and monitor sections do", () => {
    expect(() => resolveCollectorOptions({ env: {}, configFile: configFile({ port: 70000 }) })).toThrow("invalid config file collector.port: 70000");
    expect(() => resolveCollectorOptions({ env: { GROUNDWATCH_PORT: "http" } })).toThrow('invalid GROUNDWATCH_PORT: "http"');
  });

  // Issue 29: the collector's heap growth bound (collector/heap.ts) is an option like the others.
  it("resolves heapGrowthPercent: 100 by default, from the env or the config file, refused outside 0–300 by name", () => {
    expect(resolveCollectorOptions({ env: {} }).heapGrowthPercent).toBe(100);
    expect(resolveCollectorOptions({ env: { GROUNDWATCH_HEAP_GROWTH_PERCENT: "0" } }).heapGrowthPercent).toBe(0);
    expect(resolveCollectorOptions({ env: {}, configFile: configFile({ heapGrowthPercent: 50 }) }).heapGrowthPercent).toBe(50);
    expect(resolveCollectorOptions({ env: { GROUNDWATCH_HEAP_GROWTH_PERCENT: "25" }, configFile: configFile({ heapGrowthPercent: 50 }) }).heapGrowthPercent).toBe(25);
    expect(() => resolveCollectorOptions({ env: { GROUNDWATCH_HEAP_GROWTH_PERCENT: "400" } })).toThrow("invalid GROUNDWATCH_HEAP_GROWTH_PERCENT: 400 (expected an integer from 0 to 300)");
    expect(() => resolveCollectorOptions({ env: {}, heapGrowthPercent: 1.5 })).toThrow("invalid heapGrowthPercent: 1.5");
  });
});
