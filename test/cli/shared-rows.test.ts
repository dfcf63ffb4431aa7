import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { EntailmentBackend } from "../../src/core/backend.ts";
import type { CommandIo } from "../../src/cli/shared/io.ts";
import { writeLine } from "../../src/cli/shared/io.ts";
import type { RowCommandOptions } from "../../src/cli/shared/rows.ts";
import { runRowCommand } from "../../src/cli/shared/rows.ts";
import { tempDir } from "../helpers/cli.ts";

/** An in-process io reading `input` on standard input; what is written is collected. */
function memoryIo(input: string): CommandIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  // Each write is collected as it is made, so nothing is still in flight when the command returns.
  const stdout = new Writable({ write: (chunk: Buffer, _encoding, done) => ((out += chunk.toString()), done()) });
  const stderr = new Writable({ write: (chunk: Buffer, _encoding, done) => ((err += chunk.toString()), done()) });
  return { stdin: Readable.from([input]), stdout, stderr, env: {}, cwd: process.cwd(), out: () => out, err: () => err };
}

const BACKEND = { name: "fake", version: "1", tier: "triage" } as unknown as EntailmentBackend;

/** A row command over numbered lines ("1", "2", …); `fail` decides what handling a row throws. */
function command(io: CommandIo, fail: (n: number) => Error | undefined, closed: string[], output?: string): RowCommandOptions<number> {
  let handled = 0;
  return {
    name: "test",
    io,
    source: "-",
    output,
    skipInvalid: false,
    backend: BACKEND,
    close: () => {
      closed.push("backend");
      return Promise.resolve();
    },
    parse: (line, n) => (/^\d+$/.test(line) ? { row: Number(line) } : { error: `line ${n}: not a number` }),
    handle: async (row, out) => {
      const error = fail(row);
      if (error) throw error;
      handled++;
      await writeLine(out, String(row));
    },
    summary: (invalid) => `${handled} handled, ${invalid} invalid`,
  };
}

describe("runRowCommand", () => {
  it("stops quietly when the reader goes away (EPIPE), closing the backend once and summing up", async () => {
    const io = memoryIo("1\n2\n3\n");
    const closed: string[] = [];
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    const exit = await runRowCommand(command(io, (n) => (n === 2 ? epipe : undefined), closed));
    expect(exit).toBe(0);
    expect(closed).toEqual(["backend"]);
    expect(io.out()).toBe("1\n");
    expect(io.err()).toBe("groundwatch test: 1 handled, 0 invalid\n");
  });

  it("reports a failure while running, exit 1, and still closes the backend and sums up", async () => {
    const io = memoryIo("1\n2\n");
    const closed: string[] = [];
    const exit = await runRowCommand(command(io, (n) => (n === 2 ? new Error("backend went away") : undefined), closed));
    expect(exit).toBe(1);
    expect(closed).toEqual(["backend"]);
    expect(io.err()).toBe("groundwatch test: backend went away\ngroundwatch test: 1 handled, 0 invalid\n");
  });

  it("writes --output and closes it before the summary", async () => {
    const io = memoryIo("1\n\n2\n");
    const closed: string[] = [];
    const output = join(tempDir(), "out.jsonl");
    const exit = await runRowCommand(command(io, () => undefined, closed, output));
    expect(exit).toBe(0);
    expect(io.out()).toBe("");
    expect(readFileSync(output, "utf8")).toBe("1\n2\n");
    expect(io.err()).toBe("groundwatch test: 2 handled, 0 invalid\n");
  });
});
