import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";

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
