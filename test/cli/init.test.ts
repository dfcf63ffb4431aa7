import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INIT_CONFIG } from "../../src/cli/init.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// Regression (issue 24, item 12): init wrote through a dangling link (creating its target), and
// init --force overwrote the file a link pointed to.
describe("init never writes through a symbolic link", () => {
  it("refuses a dangling link in place of a file, creating nothing at its target", async () => {
    const project = join(tempDir(), "proj");
    const outside = tempDir();
    mkdirSync(project);
    symlinkSync(join(outside, "planted.yaml"), join(project, "groundwatch.yaml"));
    const run = await runCli(["init", "--dir", project]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("groundwatch.yaml is a symbolic link: nothing written, and never through a link (--force replaces the link itself, not its target)");
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(project)).toEqual(["groundwatch.yaml"]);
  });

  it("refuses a link to an existing file without --force, leaving the file as it was", async () => {
    const project = join(tempDir(), "proj");
    const precious = join(tempDir(), "precious.txt");
    writeFileSync(precious, "keep me");
    mkdirSync(project);
    symlinkSync(precious, join(project, "groundwatch-eval.jsonl"));
    const run = await runCli(["init", "--dir", project]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("groundwatch-eval.jsonl is a symbolic link");
    expect(readFileSync(precious, "utf8")).toBe("keep me");
  });

  it("with --force replaces the link itself: its target is untouched and a real file takes its place", async () => {
    const project = join(tempDir(), "proj");
    const outside = tempDir();
    const precious = join(outside, "precious.txt");
    writeFileSync(precious, "keep me");
    mkdirSync(project);
    symlinkSync(precious, join(project, "groundwatch.yaml"));
    symlinkSync(join(outside, "dangling.jsonl"), join(project, "groundwatch-eval.jsonl"));
    const run = await runCli(["init", "--dir", project, "--force"]);
    expect(run.code).toBe(0);
    expect(readFileSync(precious, "utf8")).toBe("keep me");
    expect(readdirSync(outside)).toEqual(["precious.txt"]);
    expect(lstatSync(join(project, "groundwatch.yaml")).isFile()).toBe(true);
    expect(readFileSync(join(project, "groundwatch.yaml"), "utf8")).toBe(INIT_CONFIG);
    expect(lstatSync(join(project, "groundwatch-eval.jsonl")).isFile()).toBe(true);
  });

  it("with --force overwrites a regular file it wrote before", async () => {
    const project = join(tempDir(), "proj");
    mkdirSync(project);
    writeFileSync(join(project, "groundwatch.yaml"), "old");
    expect((await runCli(["init", "--dir", project, "--force"])).code).toBe(0);
    expect(readFileSync(join(project, "groundwatch.yaml"), "utf8")).toBe(INIT_CONFIG);
  });
});
