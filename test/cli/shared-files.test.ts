import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

// Regression (issue 13): an input starting with a UTF-8 byte order mark failed on line 1
// ("not valid JSON"), and an output path that was a directory or could not be created ended
// in an unhandled stream error (a stack trace) instead of a message naming the path.

const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
const GOOD = "Unopened items may be returned within 30 days of delivery.";
const BAD = "Items may be returned within 90 days in any condition.";
const Q = "In what year was the Zorbex Protocol ratified?";
const BOM = "\ufeff";

/** A JSONL file of `rows`, starting with a byte order mark and using CRLF line ends, as Windows tools write it. */
function bomFile(rows: unknown[]): string {
  const path = join(tempDir(), "input.jsonl");
  writeFileSync(path, BOM + rows.map((r) => JSON.stringify(r)).join("\r\n") + "\r\n");
  return path;
}

const PAIRS = [
  { id: 1, premise: "the tower is in paris.", hypothesis: "the tower is in paris." },
  { id: 2, premise: "refunds are issued within five business days.", hypothesis: "refunds take five days." },
];
const SAMPLES = [{ id: "s", question: Q, samples: ["It was 1998.", "It was ratified in 2004.", "1976."] }];
const LABELLED = Array.from({ length: 8 }, (_, i) => ({ id: `r${i}`, context: [DOC], answer: i % 2 ? BAD : GOOD, label: i % 2 ? 0 : 1 }));

describe("inputs with a byte order mark", () => {
  it("nli reads a pairs file and standard input that start with one", async () => {
    const file = await runCli(["nli", "--input", bomFile(PAIRS), "--backend", "offline"]);
    expect(file.code, file.stderr).toBe(0);
    expect(file.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2]);
    const stdin = await runCli(["nli", "--input", "-", "--backend", "offline"], { stdin: `${BOM}${JSON.stringify(PAIRS[0])}\n` });
    expect(stdin.code, stdin.stderr).toBe(0);
  });

  it("entropy reads an input that starts with one", async () => {
    const run = await runCli(["entropy", "--input", bomFile(SAMPLES), "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: "s" });
  });

  it("calibrate reads a labelled set that starts with one", async () => {
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", bomFile(LABELLED), "--out", out, "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({ dataset: { rows: 8, positives: 4 } });
  });

  it("still reports a byte order mark in the middle of a file as bad JSON", async () => {
    const path = join(tempDir(), "pairs.jsonl");
    writeFileSync(path, `${JSON.stringify(PAIRS[0])}\n${BOM}${JSON.stringify(PAIRS[1])}\n`);
    const run = await runCli(["nli", "--input", path, "--backend", "offline"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("line 2: not valid JSON");
  });
});

describe("output paths that cannot be written", () => {
  const cases: Array<{ name: string; argv: (input: string) => string[]; rows: unknown[]; flag: string }> = [
    { name: "nli --output", argv: (input) => ["nli", "--input", input, "--backend", "offline", "--output"], rows: PAIRS, flag: "--output" },
    { name: "entropy --output", argv: (input) => ["entropy", "--input", input, "--backend", "offline", "--output"], rows: SAMPLES, flag: "--output" },
    { name: "calibrate --out", argv: (input) => ["calibrate", "--set", input, "--backend", "offline", "--out"], rows: LABELLED, flag: "--out" },
  ];
  for (const c of cases) {
    it(`${c.name} to a directory, under a file, or in a missing directory: exit 2 naming the path`, async () => {
      const dir = tempDir();
      const file = join(dir, "file");
      writeFileSync(file, "");
      const input = bomFile(c.rows);
      const expected: Array<[string, string]> = [
        [dir, "it is a directory"],
        [join(file, "out.jsonl"), "a part of the path is not a directory"],
        [join(dir, "missing", "out.jsonl"), `its directory ${join(dir, "missing")} does not exist`],
      ];
      for (const [path, why] of expected) {
        const run = await runCli([...c.argv(input), path]);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toBe(`groundwatch ${c.name.split(" ")[0]}: cannot write ${c.flag} ${path}: ${why}\n`);
      }
    });
  }

  it("nli --output relative to the command's directory still works", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "out"));
    const run = await runCli(["nli", "--input", bomFile(PAIRS), "--backend", "offline", "--output", "out/r.jsonl"], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(cwd, "out", "r.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);
  });
});
