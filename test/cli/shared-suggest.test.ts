import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../src/config/file.ts";
import { didYouMean } from "../../src/cli/shared/suggest.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ANSWERS = join(ROOT, "examples", "answers.jsonl");

describe("CLI conventions", () => {
  it("takes the input file as a positional argument", async () => {
    const run = await runCli(["score", ANSWERS]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").length).toBe(readFileSync(ANSWERS, "utf8").trim().split("\n").length);
  });

  it("reads standard input when rows are piped and no file is given (nli and entropy too)", async () => {
    const row = readFileSync(ANSWERS, "utf8").split("\n")[0] ?? "";
    const score = await runCli(["score"], { stdin: `${row}\n` });
    expect(score.code).toBe(0);
    expect(JSON.parse(score.stdout) as { id: string }).toMatchObject({ id: "refund-ok" });
    const nli = await runCli(["nli", "--backend", "offline"], { stdin: '{"id":"p","premise":"The shop opens at nine.","hypothesis":"The shop opens at nine."}\n' });
    expect(nli.code).toBe(0);
    expect(nli.stdout).toContain('"id":"p"');
    const entropy = await runCli(["entropy", "--backend", "offline"], { stdin: '{"id":"e","question":"When?","samples":["At nine.","At nine.","At ten."]}\n' });
    expect(entropy.code).toBe(0);
    expect(entropy.stdout).toContain('"id":"e"');
  });

  it("refuses an input given twice, and a second positional file", async () => {
    expect((await runCli(["score", "--input", ANSWERS, ANSWERS])).stderr).toContain("give the input once");
    expect((await runCli(["score", ANSWERS, ANSWERS])).stderr).toContain("one input file at a time");
  });

  it("writes one JSON array with --format json", async () => {
    const run = await runCli(["score", ANSWERS, "--format", "json"]);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as Array<{ id: string; verdict: string }>;
    expect(Array.isArray(rows)).toBe(true);
    expect(rows[0]).toMatchObject({ id: "refund-ok" });
    const empty = await runCli(["score", "--format", "json"], { stdin: "" });
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it("answers a flag error with one line and a pointer to --help, suggesting the flag meant", async () => {
    const run = await runCli(["score", "--thresold", "0.5", ANSWERS]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('groundwatch score: unknown flag --thresold (did you mean --threshold?)\nRun "groundwatch score --help" for usage.\n');
    const missing = await runCli(["score", ANSWERS, "--threshold"]);
    expect(missing.stderr).toContain("--threshold needs a value");
  });

  it("suggests the command meant, without printing the whole help", async () => {
    const run = await runCli(["evals"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('groundwatch: unknown command "evals" (did you mean "eval"?)\nRun "groundwatch --help" for the list of commands.\n');
    expect((await runCli(["zzzz"])).stderr).not.toContain("did you mean");
  });

  it("shows a command's help with `groundwatch help COMMAND`", async () => {
    const help = await runCli(["help", "score"]);
    const flag = await runCli(["score", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(flag.stdout);
    expect(help.stdout).toContain("groundwatch score —");
  });

  it("finds likely typos and nothing else", () => {
    expect(didYouMean("scroe", ["score", "serve", "eval"])).toBe("score");
    expect(didYouMean("--ouptut", ["--output", "--input"])).toBe("--output");
    expect(didYouMean("--calib", ["--calibration", "--config"])).toBe("--calibration");
    expect(didYouMean("xyz", ["score", "serve"])).toBeUndefined();
  });

  it("names an unwritable output path cleanly, before any scoring", async () => {
    const run = await runCli(["score", ANSWERS, "-o", "/nonexistent/x.jsonl"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot write --output /nonexistent/x.jsonl: its directory /nonexistent does not exist");
    expect(run.stderr).not.toContain("    at ");
    const dir = tempDir();
    expect((await runCli(["score", ANSWERS, "-o", dir])).stderr).toContain("it is a directory");
  });

  it("stops quietly when the reader goes away (`| head`)", async () => {
    const dir = tempDir();
    const many = join(dir, "many.jsonl");
    const row = readFileSync(ANSWERS, "utf8").split("\n")[0] ?? "";
    writeFileSync(many, `${Array.from({ length: 3000 }, () => row).join("\n")}\n`);
    const child = spawn(process.execPath, ["bin/groundwatch.js", "score", many, "--backend", "offline"], { cwd: ROOT, env: { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home" }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // Read the first result, then close the pipe as `head -1` does.
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
  });

  it("init writes a commented config that loads and an eval set the gate can run, and never overwrites unasked", async () => {
    const dir = tempDir();
    const run = await runCli(["init", "--dir", join(dir, "proj")]);
    expect(run.code).toBe(0);
    const config = join(dir, "proj", "groundwatch.yaml");
    const text = readFileSync(config, "utf8");
    expect(text).toContain("# groundwatch configuration");
    expect(loadConfigFile(config)).toMatchObject({ scoring: { backend: "auto" }, sampling: { default: 0.05 }, collector: { port: 4319 } });
    const set = join(dir, "proj", "groundwatch-eval.jsonl");
    const scored = await runCli(["score", set, "--config", config]);
    expect(scored.code).toBe(0);
    expect(scored.stdout.trim().split("\n")).toHaveLength(6);
    const again = await runCli(["init", "--dir", join(dir, "proj")]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exist");
    expect((await runCli(["init", "--dir", join(dir, "proj"), "--force"])).code).toBe(0);
  });
});
