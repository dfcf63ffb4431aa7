import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));

// Issue 25: outside the repository, the README's `examples/…` paths failed with a bare "no such
// file": nothing said where the bundled examples are, nor that `groundwatch init` starts a user's own set.
describe("a bundled example path used outside the repository", () => {
  const hint = `groundwatch's bundled examples are in ${EXAMPLES} (in a project that installed groundwatch: node_modules/groundwatch/examples/); for your own data, \`groundwatch init\` writes a starter set (groundwatch-eval.jsonl) to label and extend`;

  it.each([
    [["calibrate", "--set", "examples/labelled.jsonl"]],
    [["eval", "--set", "examples/eval-set.jsonl", "--backend", "offline"]],
    [["score", "examples/answers.jsonl", "--backend", "offline"]],
    [["nli", "node_modules/groundwatch/examples/nli-pairs.jsonl", "--backend", "offline"]],
    [["entropy", "examples/entropy-samples.jsonl", "--backend", "offline"]],
  ])("%j names where the bundled examples are and says groundwatch init writes a starter set", async (argv) => {
    const run = await runCli(argv, { cwd: tempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no such file. ${hint}`);
  });

  it("a missing file elsewhere is only 'no such file'", async () => {
    const run = await runCli(["score", "rows.jsonl", "--backend", "offline"], { cwd: tempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot read rows.jsonl: no such file\n");
  });
});

// Issue 25: the bundled nli and entropy examples that the offline backend gets wrong are marked as such.
describe("examples/README.md marks the bundled rows the offline backend gets wrong", () => {
  const notes = readFileSync(join(EXAMPLES, "README.md"), "utf8");
  /** The rows the README's table marks for a file. */
  const marked = (file: string): string[] => [...notes.matchAll(new RegExp(`^\\| \`${file.replace(".", "\\.")}\` \\| \`([^\`]+)\``, "gm"))].map((m) => m[1] ?? "");

  it("nli-pairs.jsonl: exactly the rows whose offline label is not the expected one", async () => {
    const run = await runCli(["nli", join(EXAMPLES, "nli-pairs.jsonl"), "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    const expected = new Map(readFileSync(join(EXAMPLES, "nli-pairs.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; expected: string }).map((r) => [r.id, r.expected]));
    const wrong = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; label: string }).filter((r) => r.label !== expected.get(r.id)).map((r) => r.id);
    expect(wrong.length).toBeGreaterThan(0);
    expect(marked("nli-pairs.jsonl")).toEqual(wrong);
  });

  it("entropy-samples.jsonl: exactly the rows of one meaning that the offline backend splits", async () => {
    const run = await runCli(["entropy", join(EXAMPLES, "entropy-samples.jsonl"), "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    // "consistent" and "identical" say one thing five times; "scattered" five different things.
    const split = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; clusters: unknown[] }).filter((r) => r.id !== "scattered" && r.clusters.length > 1).map((r) => r.id);
    expect(marked("entropy-samples.jsonl")).toEqual(split);
  });
});
