/**
 * Child processes for tests: each started in its own process group (so a signal reaches the whole
 * pipeline, workers and shells included), its output kept, awaited by the lines it prints, and the
 * group killed when the test ends.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { onTestFinished } from "vitest";

/** How a process ended: its exit code (null when a signal ended it), the signal, and when (epoch ms). */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly at: number;
}

export interface GroupProcess {
  readonly child: ChildProcess;
  /** The process id, which is also the process group's id. */
  readonly pid: number;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** stdout so far. */
  stdout(): string;
  /** stderr so far. */
  stderr(): string;
  /** Resolves once the process has exited and its output is all read. */
  readonly exited: Promise<Exit>;
  /** Sends a signal to the whole process group; nothing once it is gone. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Resolves with the first match of `pattern` in the output; rejects when the process exits first
   * or after `timeout` ms (default 30,000), with the output so far.
   */
  waitFor(pattern: RegExp, timeout?: number): Promise<RegExpExecArray>;
}

export interface SpawnGroupOptions {
  /** The working directory (default: the test's). */
  readonly cwd?: string;
  /** The whole environment of the child (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Kill the group with SIGKILL when the current test ends (default true); false: the caller stops it. */
  readonly killAfterTest?: boolean;
}

/** The line `groundwatch serve` (and the example services) print once they listen, with the URL (https with TLS). */
export const LISTENING = /listening on (https?:\/\/127\.0\.0\.1:\d+)/;

/** Starts `command args` in a process group of its own, stdin closed, stdout and stderr kept. */
export function spawnGroup(command: string, args: readonly string[], options: SpawnGroupOptions = {}): GroupProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let all = "";
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
    all += d.toString("utf8");
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString("utf8");
    all += d.toString("utf8");
  });
  let gone = false;
  const exited = new Promise<Exit>((resolve) => {
    child.on("error", (error) => {
      gone = true;
      all += `\n[spawn ${command}: ${error.message}]`;
      resolve({ code: null, signal: null, at: Date.now() });
    });
    child.on("close", (code, signal) => {
      gone = true;
      resolve({ code, signal, at: Date.now() });
    });
  });
  const signal = (s: NodeJS.Signals): void => {
    if (gone || child.pid === undefined) return;
    try {
      process.kill(-child.pid, s);
    } catch {
      // already gone
    }
  };
  if (options.killAfterTest ?? true)
    onTestFinished(async () => {
      if (gone) return;
      signal("SIGKILL");
      await exited;
    });
  const waitFor = (pattern: RegExp, timeout = 30_000): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        child.stdout?.off("data", check);
        child.stderr?.off("data", check);
      };
      const check = (): void => {
        const m = pattern.exec(all);
        if (!m) return;
        done();
        resolve(m);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${pattern.source} within ${timeout} ms from ${command} ${args.join(" ")}:\n${all}`));
      }, timeout);
      child.stdout?.on("data", check);
      child.stderr?.on("data", check);
      check();
      void exited.then((e) => {
        if (pattern.exec(all)) return check();
        done();
        reject(new Error(`${command} ${args.join(" ")} exited (${e.code ?? e.signal}) before ${pattern.source}:\n${all}`));
      });
    });
  return { child, pid: child.pid ?? 0, output: () => all, stdout: () => out, stderr: () => err, exited, signal, waitFor };
}

/** Resolves with the URL of the LISTENING line once `p` prints it; rejects if it exits first or after `timeout` ms. */
export async function listeningUrl(p: GroupProcess, timeout = 30_000): Promise<string> {
  return (await p.waitFor(LISTENING, timeout))[1] ?? "";
}

/** A command that ran to its end. */
export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ShellOptions {
  /** The working directory. */
  readonly cwd: string;
  /** The whole environment of the shell. */
  readonly env: NodeJS.ProcessEnv;
}

/** Runs `command` in `bash -c` to its end; past `timeoutMs` its whole group is killed and the run fails with its output. */
export async function runShell(command: string, options: ShellOptions & { readonly timeoutMs: number }): Promise<Finished> {
  const p = spawnGroup("bash", ["-c", command], { cwd: options.cwd, env: options.env });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      p.signal("SIGKILL");
      reject(new Error(`still running after ${options.timeoutMs} ms: ${command}\n--- stdout\n${p.stdout()}\n--- stderr\n${p.stderr()}`));
    }, options.timeoutMs);
  });
  try {
    const exit = await Promise.race([p.exited, timeout]);
    return { code: exit.code, signal: exit.signal, stdout: p.stdout(), stderr: p.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** A command that keeps running (a server), started by startShell. */
export interface LongRunning {
  /** The URL from its listening line. */
  readonly url: string;
  output(): { stdout: string; stderr: string };
  /** Sends SIGTERM (what Ctrl-C's SIGINT also triggers) and resolves when the process has exited; SIGKILL to the group after 15 s. */
  stop(): Promise<Finished>;
  /** Kills its whole group at once. */
  kill(): void;
}

/**
 * Starts `command` in `bash -c` and resolves once its output matches `listening` (the URL is the first
 * group); if it exits first or does not say so within `timeoutMs` (default 30,000), its group is
 * killed and the start fails with its output.
 */
export async function startShell(command: string, options: ShellOptions & { readonly listening: RegExp; readonly timeoutMs?: number; readonly killAfterTest?: boolean }): Promise<LongRunning> {
  const p = spawnGroup("bash", ["-c", command], { cwd: options.cwd, env: options.env, killAfterTest: options.killAfterTest ?? true });
  let url: string;
  try {
    url = (await p.waitFor(options.listening, options.timeoutMs ?? 30_000))[1] ?? "";
  } catch (error) {
    p.signal("SIGKILL");
    throw new Error(`${command}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n--- stdout\n${p.stdout()}\n--- stderr\n${p.stderr()}`, { cause: error });
  }
  const finished = async (): Promise<Finished> => {
    const exit = await p.exited;
    return { code: exit.code, signal: exit.signal, stdout: p.stdout(), stderr: p.stderr() };
  };
  return {
    url,
    output: () => ({ stdout: p.stdout(), stderr: p.stderr() }),
    stop: async () => {
      // bash runs a simple command in its own place (exec), so the signal reaches the command itself.
      p.child.kill("SIGTERM");
      const timer = setTimeout(() => p.signal("SIGKILL"), 15_000);
      try {
        return await finished();
      } finally {
        clearTimeout(timer);
      }
    },
    kill: () => p.signal("SIGKILL"),
  };
}
