import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { routeTemplate } from "../../src/sdk/express.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { createSampler } from "../../src/sdk/sampling.ts";
import { tempDir } from "../helpers/cli.ts";

describe("routeTemplate", () => {
  it("uses the matched route template, never the URL", () => {
    expect(routeTemplate({ baseUrl: "/api", route: { path: "/advice/:id" } })).toBe("/api/advice/:id");
    expect(routeTemplate({})).toBe("unmatched");
  });
});

describe("monitor options", () => {
  it("resolve option > environment > config file > default", () => {
    const file = join(tempDir(), "gw.json");
    writeFileSync(file, JSON.stringify({ sampling: { default: 0.3, routes: { "/a": 1 } }, monitor: { queueSize: 50, workers: 2 } }));
    expect(resolveMonitorOptions({ configFile: file, env: {} })).toMatchObject({ sampling: { default: 0.3, routes: { "/a": 1 } }, queueSize: 50, workers: 2 });
    expect(resolveMonitorOptions({ configFile: file, env: { GROUNDWATCH_SAMPLE_RATE: "0.5", GROUNDWATCH_SAMPLE_ROUTES: "/b/*=0.9" } })).toMatchObject({ sampling: { default: 0.5, routes: { "/b/*": 0.9 } }, queueSize: 50 });
    expect(resolveMonitorOptions({ configFile: file, env: { GROUNDWATCH_QUEUE_SIZE: "7" }, queueSize: 9 }).queueSize).toBe(9);
    expect(resolveMonitorOptions({ env: {} })).toMatchObject({ sampling: { default: 0.05 }, queueSize: 1000, workers: 1, timeoutMs: 30000, captureContent: false });
  });

  it("reject unknown keys and bad values in the file by name", () => {
    const file = join(tempDir(), "gw.json");
    writeFileSync(file, JSON.stringify({ monitor: { queusize: 5 } }));
    expect(() => resolveMonitorOptions({ configFile: file, env: {} })).toThrow("invalid config file monitor.queusize: 5");
    writeFileSync(file, JSON.stringify({ sampling: { routes: { "/a": 3 } } }));
    expect(() => resolveMonitorOptions({ configFile: file, env: {} })).toThrow('invalid sampling.routes["/a"]: 3');
  });

  it("picks the most specific pattern", () => {
    const s = createSampler({ default: 0, routes: { "/api/*": 0.5, "/api/advice/*": 1 } }, () => 0);
    expect(s.rateFor("/api/advice/tax")).toBe(1);
    expect(s.rateFor("/api/other")).toBe(0.5);
    expect(s.rateFor("/health")).toBe(0);
  });
});
