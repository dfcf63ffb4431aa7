/** The SDK benchmarks load the built monitor (dist/), the code hosts run, and refuse a stale build. */
import { existsSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as MonitorModule from "../src/sdk/monitor.ts";

export async function builtMonitor(): Promise<typeof MonitorModule> {
  const built = fileURLToPath(new URL("../dist/sdk/monitor.js", import.meta.url));
  const source = fileURLToPath(new URL("../src/sdk", import.meta.url));
  if (!existsSync(built)) throw new Error("bench:sdk measures the built package: run `npx tsx scripts/build.ts` first");
  for (const f of ["monitor.ts", "types.ts", "scheduler.ts", "resample-stage.ts", "route-tally.ts", "startup-checks.ts", "input.ts", "resample.ts", "options.ts", "copy.ts", "worker.ts"]) {
    const src = `${source}/${f}`;
    if (existsSync(src) && statSync(src).mtimeMs > statSync(built).mtimeMs) throw new Error(`dist/ is older than src/sdk/${f}: run \`npx tsx scripts/build.ts\` first`);
  }
  return (await import(pathToFileURL(built).href)) as typeof MonitorModule;
}
