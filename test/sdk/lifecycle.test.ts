import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { MANY_MONITORS } from "../../src/sdk/live-monitors.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { tempDir } from "../helpers/cli.ts";
import { captureWarnings } from "../helpers/diag.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };

/** Runs a module script that imports the built package as GROUNDWATCH; resolves with its exit code and output once it exits by itself. */
function runScript(source: string): Promise<{ code: number | null; out: string }> {
  const script = join(tempDir(), "host.mjs");
  writeFileSync(script, source.replace("GROUNDWATCH", pathToFileURL(join(ROOT, "dist", "index.js")).href));
  const child = spawn(process.execPath, [script], { cwd: ROOT, env: { ...process.env, ...ENV }, stdio: ["ignore", "pipe", "pipe"] });
  onTestFinished(() => void child.kill("SIGKILL"));
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

describe("monitor lifecycle in a host process", () => {
  it("lets a script that never calls shutdown() exit once its observations are scored", async () => {
    const { code, out } = await runScript(`
      import { createMonitor } from "GROUNDWATCH";
      const monitor = createMonitor({ scoring: { backend: "offline" }, onEvaluation: (e) => console.log("scored", e.result.verdict) });
      monitor.observe({ route: "/r", sample: "always", context: ["Returns are accepted within 30 days."], answer: "Returns are accepted within 30 days." });
    `);
    expect(code).toBe(0);
    expect(out).toContain("scored grounded");
  }, 60_000);

  it("lets a script that creates a monitor and never uses it exit", async () => {
    const { code } = await runScript(`
      import { createMonitor } from "GROUNDWATCH";
      createMonitor({ scoring: { backend: "offline" } });
    `);
    expect(code).toBe(0);
  }, 60_000);

  it(`warns once when more than ${MANY_MONITORS} monitors are alive in one process, and not after they are shut down`, async () => {
    const warnings = captureWarnings();
    const make = (): ReturnType<typeof createMonitor> => createMonitor({ env: ENV, scoring: { backend: "offline" }, workers: 1 });
    const monitors = Array.from({ length: MANY_MONITORS }, make);
    expect(warnings.filter((w) => w.includes("monitors are alive"))).toHaveLength(0);
    monitors.push(make(), make());
    const said = warnings.filter((w) => w.includes("monitors are alive"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`${MANY_MONITORS + 1} monitors are alive in this process, with ${MANY_MONITORS + 1} scoring worker threads`);
    await Promise.all(monitors.map((m) => m.shutdown(1000)));
  }, 60_000);
});
