import { spawn } from "node:child_process";
import { UsageError, numberFlag, parseFlags, runCommand } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import type { CommandIo } from "./io.ts";
import { sanitizeForTerminal } from "./io.ts";

export const DOCTOR_HELP = `groundwatch doctor — check that a sampler really samples

Usage:
  groundwatch doctor --sampler-cmd CMD [--samples N] [--prompt TEXT] [--timeout SECONDS]

Runs CMD (through the shell) once for a fixed prompt. The prompt arrives on standard input and in
GROUNDWATCH_PROMPT, the number of samples wanted in GROUNDWATCH_SAMPLES. CMD prints the samples:
a JSON array of strings, or one sample a line. Semantic entropy over samples that do not differ is
0 whatever the model knows, so doctor fails when the samples are too few or all identical, and
names the likely cause.

Exit codes: 0 ready, 1 not ready (each failure printed with its fix), 2 bad flags.
`;

const DEFAULT_PROMPT = "Name a city in Australia and say one thing about it.";

function parseSamples(stdout: string): string[] {
  const trimmed = stdout.trim();
  if (trimmed.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(trimmed);
      if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v;
    } catch {
      // not JSON after all: read it as lines
    }
  }
  return trimmed === "" ? [] : trimmed.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** Runs `groundwatch doctor`; resolves to the exit code. */
export function runDoctor(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("doctor", DOCTOR_HELP, io, async () => {
    const { values: args } = parseFlags(argv, { "sampler-cmd": { type: "string" }, samples: { type: "string" }, prompt: { type: "string" }, timeout: { type: "string" } });
    const cmd = args["sampler-cmd"];
    if (!cmd) throw new UsageError("--sampler-cmd is required", true);
    const wanted = numberFlag("samples", args.samples, (n) => Number.isInteger(n) && n >= 2, "an integer of at least 2") ?? 5;
    const timeoutS = numberFlag("timeout", args.timeout, (n) => n > 0, "a positive number of seconds") ?? 120;
    return checkSampler(cmd, wanted, timeoutS, args.prompt, io);
  });
}

async function checkSampler(cmd: string, wanted: number, timeoutS: number, promptFlag: string | undefined, io: CommandIo): Promise<number> {
  const prompt = promptFlag ?? DEFAULT_PROMPT;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolvePromise) => {
    const child = spawn(cmd, { shell: true, env: { ...io.env, GROUNDWATCH_PROMPT: prompt, GROUNDWATCH_SAMPLES: String(wanted) }, cwd: io.cwd });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutS * 1000);
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", (e) => (stderr += e.message));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, timedOut });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(prompt);
  });
  const failures: string[] = [];
  const line = (status: string, what: string, detail: string): void => {
    io.stdout.write(`[${status}] ${what.padEnd(18)} ${detail}\n`);
  };
  if (run.timedOut) failures.push("timeout");
  if (run.timedOut) line("FAIL", "sampler runs", `no result after ${timeoutS} s`);
  else if (run.code !== 0) {
    failures.push("exit");
    line("FAIL", "sampler runs", `exited ${run.code}: ${sanitizeForTerminal(run.stderr.trim().slice(0, 200))}`);
  } else line("PASS", "sampler runs", `exit 0`);
  const samples = parseSamples(run.stdout);
  if (!run.timedOut && run.code === 0) {
    if (samples.length < wanted) {
      failures.push("count");
      line("FAIL", "sample count", `${samples.length} of ${wanted} samples`);
      io.stdout.write("       -> A short batch hides disagreement. Check for rate limits or partial errors, and that the command prints every sample (one a line, or a JSON array).\n");
    } else line("PASS", "sample count", `${samples.length} samples`);
    const distinct = new Set(samples).size;
    if (samples.length >= 2 && distinct === 1) {
      failures.push("identical");
      line("FAIL", "sample diversity", `${samples.length} samples, 1 distinct string`);
      io.stdout.write(
        "       -> The sampler looks deterministic: temperature 0, a response cache in front of the model, or a fixed seed. Semantic entropy over identical samples is 0 whether or not the model knows the answer. Sample at a temperature near 1.0 with independent draws.\n",
      );
    } else if (samples.length >= 2) line("PASS", "sample diversity", `${distinct} distinct of ${samples.length}`);
  }
  io.stdout.write(failures.length === 0 ? "READY: the sampler produces independent samples.\n" : `NOT READY: ${failures.length} failure(s).\n`);
  return failures.length === 0 ? EXIT.ok : EXIT.failure;
}
