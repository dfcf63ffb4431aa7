import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { runShell, spawnGroup } from "../helpers/processes.ts";

// Regression (redteam-4, "a FIFO or <(…) as CLI input"): a named pipe and the /dev/fd/N of a
// shell's process substitution were refused as "not a file". They are read line by line, as
// standard input is; a directory, a device or a socket is still refused, naming what it is.

const ROOT = join(import.meta.dirname, "..", "..");
const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
const GOOD = "Unopened items may be returned within 30 days of delivery.";
const BAD = "Items may be returned within 90 days in any condition.";
const ROWS = [
  { id: "a", context: [DOC], answer: GOOD },
  { id: "b", context: [DOC], answer: BAD },
];
const LABELLED = Array.from({ length: 8 }, (_, i) => ({ id: `r${i}`, context: [DOC], answer: i % 2 ? BAD : GOOD, label: i % 2 ? 0 : 1 }));
const jsonl = (rows: readonly unknown[]): string => rows.map((r) => `${JSON.stringify(r)}\n`).join("");

/** A named pipe in a temporary directory, and another process that writes `text` into it (it blocks until the pipe is opened for reading). */
function pipeWrittenBy(text: string): { fifo: string; writer: ReturnType<typeof spawnGroup> } {
  const dir = tempDir();
  const source = join(dir, "rows.jsonl");
  writeFileSync(source, text);
  const fifo = join(dir, "rows.fifo");
  execFileSync("mkfifo", [fifo]);
  const writer = spawnGroup("sh", ["-c", 'cat "$1" > "$2"', "sh", source, fifo]);
  return { fifo, writer };
}

const ids = (stdout: string): unknown[] => stdout.trim().split("\n").map((l) => (JSON.parse(l) as { id: unknown }).id);

describe("a pipe as the input", () => {
  it("score reads the rows another process writes into a named pipe", async () => {
    const { fifo, writer } = pipeWrittenBy(jsonl(ROWS));
    const run = await runCli(["score", fifo, "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    expect(ids(run.stdout)).toEqual(["a", "b"]);
    expect((await writer.exited).code).toBe(0);
  });

  it("eval reads its set from a named pipe (--set)", async () => {
    const { fifo } = pipeWrittenBy(jsonl(LABELLED.map(({ label: _label, ...row }) => row)));
    const run = await runCli(["eval", "--set", fifo, "--backend", "offline", "--no-gate", "--out", tempDir()]);
    expect(run.code, run.stderr).toBe(0);
  });

  it("calibrate fingerprints a pipe by its lines, as standard input, without opening it a second time", async () => {
    const text = jsonl(LABELLED);
    const { fifo } = pipeWrittenBy(text);
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", fifo, "--backend", "offline", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const dataset = (JSON.parse(readFileSync(out, "utf8")) as { dataset: { sha256: string; rows: number } }).dataset;
    expect(dataset).toMatchObject({ rows: 8, sha256: createHash("sha256").update(text).digest("hex") });
  });

  it("the built command reads a bash process substitution <(…)", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "rows.jsonl"), jsonl(ROWS));
    const run = await runShell(`"${process.execPath}" "${join(ROOT, "bin", "groundwatch.js")}" score <(cat rows.jsonl) --backend offline`, { cwd: dir, env: { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home" }, timeoutMs: 50_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(ids(run.stdout)).toEqual(["a", "b"]);
  });
});

describe("an input that is neither a file nor a pipe", () => {
  it("is refused with what it is, exit 2: a directory, a character device, a socket", async () => {
    const dir = tempDir();
    const socket = join(dir, "s.sock");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const [input, why] of [
      [dir, "it is a directory"],
      ["/dev/zero", "it is a character device"],
      [socket, "it is a socket"],
    ] as const) {
      const run = await runCli(["score", input, "--backend", "offline"]);
      expect(run.code, input).toBe(2);
      expect(run.stderr, input).toContain(`cannot read ${input}: ${why}`);
      expect(run.stdout).toBe("");
    }
  });
});
