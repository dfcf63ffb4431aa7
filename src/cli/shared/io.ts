import type { Readable, Writable } from "node:stream";
import { stripControls } from "../../core/safe-text.ts";

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

/**
 * Strips ANSI escapes (an OSC's payload with it), control and bidi characters, keeping tabs and line
 * breaks (a carriage return becomes a line feed): answers are untrusted text. See core/safe-text.ts.
 */
export function sanitizeForTerminal(text: string): string {
  return stripControls(text, { keepWhitespace: true });
}

/** Whether an error means the reader of our output has gone (`… | head`): stop quietly, not as a failure. */
export function isBrokenPipe(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EPIPE";
}
