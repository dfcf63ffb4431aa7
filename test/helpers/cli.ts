import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { onTestFinished } from "vitest";
import { main } from "../../src/cli/main.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString("utf8");
}

/** Runs the CLI in-process with captured output. */
export async function runCli(argv: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string; stderrIsTTY?: boolean } = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr: PassThrough & { isTTY?: boolean } = new PassThrough();
  if (options.stderrIsTTY) stderr.isTTY = true;
  const out = collect(stdout);
  const err = collect(stderr);
  // Without `stdin` the command runs as at an interactive terminal; with it, as when rows are piped in.
  const stdin: Readable & { isTTY?: boolean } = Readable.from(options.stdin !== undefined ? [options.stdin] : []);
  if (options.stdin === undefined) stdin.isTTY = true;
  const code = await main(argv, {
    stdin,
    stdout,
    stderr,
    // A hub cache that does not exist, so `auto` never finds a model a developer happened to pull.
    env: { HF_HOME: "/nonexistent/groundwatch-test-hf-home", ...options.env },
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout: out(), stderr: err() };
}

/** A temporary directory, removed when the current test finishes (pass or fail). */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "groundwatch-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A hub cache (use as HF_HOME) holding the fixture model `modelDir` under the default repo
 * name, as `groundwatch model pull` would leave it; removed when the test ends.
 */
export function cacheWithDefaultModel(modelDir: string): string {
  const home = tempDir();
  const base = join(home, "hub", "models--Xenova--nli-deberta-v3-xsmall");
  cpSync(modelDir, join(base, "snapshots", "abc"), { recursive: true });
  mkdirSync(join(base, "refs"), { recursive: true });
  writeFileSync(join(base, "refs", "main"), "abc");
  return home;
}
