import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// No hub cache, so `auto` resolves the same on every machine.
const env = { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home" };

describe("the groundwatch binary", () => {
  it("runs the demo as `npm start` does: collector, replayed traffic, per-route rates from /metrics", async () => {
    const { stdout } = await run(process.execPath, ["bin/groundwatch.js", "demo", "--once", "--port", "0", "--rate", "1000"], { cwd: ROOT, env });
    expect(stdout).toMatch(/replayed 120\/120 observations — metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(stdout).toContain("backend: offline (triage) — TRIAGE-GRADE");
    for (const route of ["/api/returns", "/api/shipping", "/api/warranty"]) expect(stdout).toMatch(new RegExp(`${route.replace(/\//g, "\\/")}\\s+40\\s+\\d+\\.\\d%\\s+0\\.\\d{3}`));
  });

  it("scores the bundled answers as a table", async () => {
    const { stdout, stderr } = await run(process.execPath, ["bin/groundwatch.js", "score", "--input", "examples/answers.jsonl", "--format", "table"], { cwd: ROOT, env });
    expect(stdout).toContain("refund-wrong-days");
    expect(stdout).toContain("✗ contradicted");
    expect(stdout).toContain("nearest evidence [document [1]");
    expect(stderr).toMatch(/9 scored \(\d+ grounded, \d+ ungrounded, 2 unscorable\), 0 invalid/);
  });

  it("exits 3 on a malformed row read from standard input", async () => {
    const child = execFile(process.execPath, ["bin/groundwatch.js", "score", "--input", "-"], { cwd: ROOT, env });
    child.stdin?.end('{"id": 1, "answer": "x"}\n');
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(3);
  });
});
