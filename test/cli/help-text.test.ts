import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// Issue 25: serve --help said "JSON config" though YAML config files work, and did not list GET /runbooks.
describe("help text says what the commands accept", () => {
  it("serve --help lists GET /runbooks and says the config file may be JSON or YAML", async () => {
    const run = await runCli(["serve", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/GET {2}\/runbooks {10}the alerts' runbooks as an HTML page/);
    expect(run.stdout).toContain("--config FILE         config file, JSON or YAML (.yaml, .yml), with sections collector, sampling,");
    expect(run.stdout).not.toContain("JSON config");
  });

  it("the scoring commands' --config says JSON or YAML", async () => {
    const run = await runCli(["score", "--help"]);
    expect(run.stdout).toContain('--config FILE         config file, JSON or YAML (.yaml, .yml), with a "scoring" section');
    expect(run.stdout).not.toContain("JSON config");
  });
});

// Issue 36: flagged --help gave 4318 (the OTLP port) as the collector's address, though serve listens
// on 4319; review --help's usage of --web left out the --reviewer it requires; -v was an unknown command.
describe("help text names what the commands do", () => {
  it("flagged --help and its missing --url error give the port serve listens on by default", async () => {
    const port = resolveCollectorOptions({ env: {} }).port;
    const help = await runCli(["flagged", "--help"]);
    expect(help.stdout).toContain(`--url URL         the collector, e.g. http://127.0.0.1:${port} (serve's default)`);
    const missing = await runCli(["flagged"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--url is required (the collector, e.g. http://127.0.0.1:${port})`);
    for (const text of [help.stdout, missing.stderr]) expect(text).not.toContain("4318");
  });

  it("review --help gives review --web's usage with the --reviewer it requires and --dir (or GROUNDWATCH_REVIEW_DIR)", async () => {
    const help = await runCli(["review", "--help"]);
    const usage = help.stdout.split("\n").find((l) => l.trimStart().startsWith("groundwatch review --web"));
    expect(usage?.trim()).toBe("groundwatch review --web [--dir D]... --reviewer NAME [--labels FILE] [--host H] [--port N] [--token T]");
    // The usage is what review --web asks for: without --reviewer it refuses, naming it.
    const run = await runCli(["review", "--web", "--dir", tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--reviewer is required");
  });

  it("groundwatch -v prints the version, as --version and version do", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    for (const flag of ["-v", "--version", "version"]) {
      const run = await runCli([flag]);
      expect({ flag, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ flag, code: 0, stdout: `${version}\n`, stderr: "" });
    }
    expect((await runCli(["--help"])).stdout).toContain("version   print the version (also --version, -v)");
  });
});
