import { createHash } from "node:crypto";
import type { WriteStream } from "node:fs";
import { accessSync, constants, createReadStream, createWriteStream, mkdirSync, openSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { stripBom } from "../../config/text-file.ts";
import { UsageError } from "./command.ts";
import type { CommandIo } from "./io.ts";

// The files a command reads and writes. Inputs may start with a UTF-8 byte order mark (Windows
// editors and PowerShell write one); outputs are checked before the work starts, so a directory
// or unwritable path is a clean error naming it (exit 2) rather than a stream error later.

export { readTextFile, stripBom } from "../../config/text-file.ts";

/**
 * Whether an input can be read only once: standard input ("-"), or a pipe (a named pipe, or the
 * /dev/fd/N of a shell's `<(…)`). Such an input is never opened a second time (to hash it, say):
 * what it held is gone once read.
 */
export function readsOnce(source: string): boolean {
  if (source === "-") return true;
  try {
    return statSync(source).isFIFO();
  } catch {
    return false;
  }
}

/** The sha256 of a file's bytes (hex), read as a stream. */
export function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolvePromise(hash.digest("hex")));
  });
}

/** The lines of an input file or pipe, or of standard input for "-", the first without its byte order mark. */
export async function* inputLines(source: string, io: CommandIo): AsyncGenerator<string> {
  const input = source === "-" ? io.stdin : createReadStream(source);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let first = true;
  try {
    for await (const line of lines) {
      yield first ? stripBom(line) : line;
      first = false;
    }
  } finally {
    lines.close();
    if (input !== io.stdin) input.destroy();
  }
}

/** What a file-system error means, in words (the path is named by the caller). */
function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EISDIR":
      return "it is a directory";
    case "ENOTDIR":
      return "a part of the path is not a directory";
    case "ENOENT":
      return "its directory does not exist";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    case "ENOSPC":
      return "no space left on the device";
    default:
      return code ?? (error as Error).message;
  }
}

function statOrUndefined(path: string, flag: string, value: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UsageError(`cannot write ${flag} ${value}: ${why(error)}`);
  }
}

function checkWritable(path: string, flag: string, value: string, mode: number): void {
  try {
    accessSync(path, mode);
  } catch (error) {
    throw new UsageError(`cannot write ${flag} ${value}: ${why(error)}`);
  }
}

/**
 * The absolute path of an output file, checked without creating it: not a directory, and its
 * directory exists and is writable. A failure is a UsageError naming the flag and the path.
 */
export function outputFile(flag: string, value: string, io: CommandIo): string {
  const path = resolve(io.cwd, value);
  const stat = statOrUndefined(path, flag, value);
  if (stat) {
    if (stat.isDirectory()) throw new UsageError(`cannot write ${flag} ${value}: it is a directory`);
    checkWritable(path, flag, value, constants.W_OK);
    return path;
  }
  const parent = statOrUndefined(dirname(path), flag, value);
  if (!parent) throw new UsageError(`cannot write ${flag} ${value}: its directory ${dirname(path)} does not exist`);
  if (!parent.isDirectory()) throw new UsageError(`cannot write ${flag} ${value}: ${dirname(path)} is not a directory`);
  checkWritable(dirname(path), flag, value, constants.W_OK | constants.X_OK);
  return path;
}

/**
 * The absolute path of an output directory, checked without creating it: a writable
 * directory, or one that can be created under the nearest existing (writable) directory.
 */
export function outputDir(flag: string, value: string, io: CommandIo): string {
  const path = resolve(io.cwd, value);
  for (let at = path; ; at = dirname(at)) {
    const stat = statOrUndefined(at, flag, value);
    if (stat) {
      if (!stat.isDirectory()) throw new UsageError(`cannot write ${flag} ${value}: ${at === path ? "it is not a directory" : `${at} is not a directory`}`);
      checkWritable(at, flag, value, constants.W_OK | constants.X_OK);
      return path;
    }
    if (dirname(at) === at) return path;
  }
}

/**
 * The absolute path of an output file whose directory may not exist yet: checked as outputFile
 * when its directory exists, else that directory must be creatable (as outputDir). The caller
 * creates it (makeOutputDir(dirname(path))) when it writes.
 */
export function outputFileCreatingDir(flag: string, value: string, io: CommandIo): string {
  const path = resolve(io.cwd, value);
  if (statOrUndefined(dirname(path), flag, value)) return outputFile(flag, value, io);
  outputDir(flag, dirname(path), io);
  return path;
}

/** Creates an output directory (and its parents); a failure is a UsageError naming the flag and the path. */
export function makeOutputDir(flag: string, path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw new UsageError(`cannot write ${flag} ${path}: ${why(error)}`);
  }
}

/** Writes a whole output file; a failure is a UsageError naming the flag and the path. */
export function writeOutputFile(flag: string, path: string, data: string): void {
  try {
    writeFileSync(path, data);
  } catch (error) {
    throw new UsageError(`cannot write ${flag} ${path}: ${why(error)}`);
  }
}

/**
 * Opens an output file for streaming. Opening is synchronous so a bad path fails here, as a
 * UsageError; a later write error (a full disk) is kept on the stream (`errored`), never thrown
 * as an unhandled 'error' event.
 */
export function openOutputStream(flag: string, path: string): WriteStream {
  let fd: number;
  try {
    fd = openSync(path, "w");
  } catch (error) {
    throw new UsageError(`cannot write ${flag} ${path}: ${why(error)}`);
  }
  const stream = createWriteStream(path, { fd });
  stream.on("error", () => {
    // Kept in stream.errored; writeLine and closeOutputStream report it.
  });
  return stream;
}

/** Ends an output stream and waits until its data is written; rejects with its error, if any. */
export function closeOutputStream(stream: WriteStream): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (stream.errored || stream.closed) {
      if (stream.errored) reject(stream.errored);
      else resolve();
      return;
    }
    stream.once("close", () => (stream.errored ? reject(stream.errored) : resolve()));
    stream.end();
  });
}
