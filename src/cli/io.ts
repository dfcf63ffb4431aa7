import type { Readable, Writable } from "node:stream";

/** The process surface a command uses, injected so tests run commands in-process. */
export interface CommandIo {
  readonly stdin: Readable;
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/**
 * Writes and waits for the stream to drain when its buffer is full, so output stays bounded.
 * A stream that has failed or closed rejects at once (it would never drain).
 */
export async function writeLine(out: Writable, line: string): Promise<void> {
  if (out.errored || out.destroyed) throw out.errored ?? new Error("the output is closed");
  if (!out.write(line + "\n")) {
    if (out.errored || out.destroyed) throw out.errored ?? new Error("the output is closed");
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        out.off("drain", onDrain);
        out.off("error", onError);
        out.off("close", onClose);
      };
      const onDrain = (): void => {
        done();
        resolve();
      };
      const onError = (error: Error): void => {
        done();
        reject(error);
      };
      const onClose = (): void => {
        done();
        reject(out.errored ?? new Error("the output closed"));
      };
      out.once("drain", onDrain);
      out.once("error", onError);
      out.once("close", onClose);
    });
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Strips ANSI escapes, control and bidi characters: answers are untrusted text. */
export function sanitizeForTerminal(text: string): string {
  return text.replace(CONTROL, "");
}

/** Whether an error means the reader of our output has gone (`… | head`): stop quietly, not as a failure. */
export function isBrokenPipe(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EPIPE";
}
