/**
 * A command's exit code follows the code of the error its body threw (one table), and is what it was
 * before the table: bad flags and configuration 2, --help 0, anything else 1.
 */
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { UsageError, parseFlags, runCommand } from "../../src/cli/shared/command.ts";
import { EXIT, EXIT_BY_ERROR_CODE, exitCodeOf } from "../../src/cli/shared/exit-codes.ts";
import type { CommandIo } from "../../src/cli/shared/io.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { GROUNDWATCH_ERROR_CODES } from "../../src/errors/groundwatch-error.ts";
import { HubError } from "../../src/nli/hub/errors.ts";
import { OnnxRuntimeMissingError } from "../../src/nli/onnx/runtime.ts";
import { PoolError } from "../../src/workers/pool-types.ts";

function captured(): { io: CommandIo; stdout: () => string; stderr: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = (s: PassThrough) => () => String(s.read() ?? "");
  const io = { stdin: Readable.from([]), stdout: out, stderr: err, env: {}, cwd: process.cwd() } as unknown as CommandIo;
  return { io, stdout: text(out), stderr: text(err) };
}

describe("exit codes by error code", () => {
  it.each(Object.keys(GROUNDWATCH_ERROR_CODES))("%s has an exit code", (code) => {
    expect(Object.values(EXIT)).toContain(EXIT_BY_ERROR_CODE[code as keyof typeof EXIT_BY_ERROR_CODE]);
  });

  it("maps no code that does not exist", () => {
    expect(Object.keys(EXIT_BY_ERROR_CODE).sort()).toEqual(Object.keys(GROUNDWATCH_ERROR_CODES).sort());
  });

  it("bad flags and configuration exit 2, --help 0, any other failure 1", () => {
    const usage = Object.entries(EXIT_BY_ERROR_CODE).filter(([, exit]) => exit === EXIT.usage).map(([code]) => code);
    expect(usage.sort()).toEqual(["config", "onnx_runtime_missing", "usage"]);
    expect(EXIT_BY_ERROR_CODE.help_requested).toBe(EXIT.ok);
    expect(exitCodeOf(new HubError("refused"))).toBe(EXIT.failure);
    expect(exitCodeOf(new Error("plain"))).toBe(EXIT.failure);
    expect(exitCodeOf("not even an error")).toBe(EXIT.failure);
  });
});

describe("runCommand", () => {
  const run = async (thrown: () => unknown) => {
    const c = captured();
    const code = await runCommand("demo", "HELP TEXT\n", c.io, () => {
      throw thrown();
    });
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };

  it("prints the help and exits 0 for --help", async () => {
    expect(await run(() => parseFlags(["--help"], {}))).toEqual({ code: 0, stdout: "HELP TEXT\n", stderr: "" });
  });

  it("exits 2 with the message for a UsageError, with where the help is when it asks", async () => {
    expect(await run(() => new UsageError("--rate must be a number"))).toEqual({ code: 2, stdout: "", stderr: "groundwatch demo: --rate must be a number\n" });
    expect(await run(() => new UsageError("unknown flag --x", true))).toEqual({ code: 2, stdout: "", stderr: 'groundwatch demo: unknown flag --x\nRun "groundwatch demo --help" for usage.\n' });
  });

  it("exits 2 for a ConfigError, a missing onnxruntime-node included", async () => {
    expect(await run(() => new ConfigError("threshold", 2, "a number from 0 to 1"))).toEqual({ code: 2, stdout: "", stderr: "groundwatch demo: invalid threshold: 2 (a number from 0 to 1)\n" });
    expect((await run(() => new OnnxRuntimeMissingError())).code).toBe(2);
  });

  it("exits 1 with the message for any other error", async () => {
    expect(await run(() => new PoolError("timeout", "ran past 5 ms"))).toEqual({ code: 1, stdout: "", stderr: "groundwatch demo: ran past 5 ms\n" });
    expect(await run(() => new Error("disk full"))).toEqual({ code: 1, stdout: "", stderr: "groundwatch demo: disk full\n" });
  });
});
