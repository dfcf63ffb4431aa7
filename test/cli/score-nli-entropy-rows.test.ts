import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";

// score, nli and entropy share one row loop (cli/shared/rows.ts): a malformed row stops each of them the
// same way, after writing the rows read before it, and --skip-invalid skips it in each.

const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
const Q = "In what year was the Zorbex Protocol ratified?";
const COMMANDS = [
  { name: "score", row: (id: string) => ({ id, question: "How long can I return items?", context: [DOC], answer: "Unopened items may be returned within 30 days." }) },
  { name: "nli", row: (id: string) => ({ id, premise: DOC, hypothesis: "Items may be returned within 30 days." }) },
  { name: "entropy", row: (id: string) => ({ id, question: Q, samples: ["It was 1998.", "It was 1998."] }) },
] as const;

const input = (row: (id: string) => unknown): string => `${JSON.stringify(row("a"))}\n{not json\n${JSON.stringify(row("c"))}\n`;
const ids = (stdout: string): unknown[] =>
  stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { id: unknown }).id);

describe.each(COMMANDS)("groundwatch $name, at a malformed row", ({ name, row }) => {
  it("writes the rows read before it, names its line, says how to skip it, and exits 3", async () => {
    const run = await runCli([name, "--input", "-", "--backend", "offline"], { stdin: input(row) });
    expect(run.code).toBe(3);
    expect(ids(run.stdout)).toEqual(["a"]);
    expect(run.stderr).toContain(`groundwatch ${name}: line 2: not valid JSON`);
    expect(run.stderr).toContain(`groundwatch ${name}: stopped at the first malformed row (use --skip-invalid to report and skip such rows)`);
    expect(run.stderr).toMatch(new RegExp(`groundwatch ${name}: .*1 invalid`));
  });

  it("skips it with --skip-invalid and runs the rest", async () => {
    const run = await runCli([name, "--input", "-", "--backend", "offline", "--skip-invalid"], { stdin: input(row) });
    expect(run.code).toBe(0);
    expect(ids(run.stdout)).toEqual(["a", "c"]);
    expect(run.stderr).not.toContain("stopped at the first malformed row");
    expect(run.stderr).toMatch(new RegExp(`groundwatch ${name}: .*1 invalid`));
  });
});
