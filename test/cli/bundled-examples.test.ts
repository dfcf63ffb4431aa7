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
