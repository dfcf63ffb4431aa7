import type { Readable, Writable } from "node:stream";

/** The process surface a command uses, injected so tests run commands in-process. */
export interface CommandIo {
  readonly stdin: Readable;
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** Writes and waits for the stream to drain when its buffer is full, so output stays bounded. */
export async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(line + "\n")) {
    await new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        out.off("error", onError);
        resolve();
      };
      const onError = (error: Error): void => {
        out.off("drain", onDrain);
        reject(error);
      };
      out.once("drain", onDrain);
      out.once("error", onError);
    });
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Strips ANSI escapes, control and bidi characters: answers are untrusted text. */
export function sanitizeForTerminal(text: string): string {
  return text.replace(CONTROL, "");
}
