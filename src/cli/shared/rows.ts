import type { Writable } from "node:stream";
import type { EntailmentBackend } from "../../core/backend.ts";
import { EXIT } from "./exit-codes.ts";
import { closeOutputStream, inputLines, openOutputStream, readsOnce } from "./files.ts";
import type { CommandIo } from "./io.ts";
import { isBrokenPipe } from "./io.ts";
import { describeUsage } from "./usage.ts";

// The loop of the row commands (score, nli, entropy): JSONL in, one result per row out. What
// every such command does the same way lives here, once: malformed rows and --skip-invalid, the
// hint on silent standard input, `| head` closing the output, closing --output and the backend,
// and the usage and summary lines.

/** Milliseconds of silence on piped standard input before saying what the command is waiting for. */
const STDIN_HINT_MS = 3000;

/** A row command: how it reads a row, runs it, and sums up. */
export interface RowCommandOptions<Row> {
  /** The command's name: every line it writes to standard error starts "groundwatch NAME: ". */
  readonly name: string;
  /** Standard streams, environment and working directory. */
  readonly io: CommandIo;
  /** The input file, or "-" for standard input. */
  readonly source: string;
  /** The --output path, checked beforehand and opened (truncated) here; undefined writes to standard output. */
  readonly output: string | undefined;
  /** Report and skip malformed rows instead of stopping at the first one (--skip-invalid). */
  readonly skipInvalid: boolean;
  /** The backend whose usage (judge calls and tokens) is reported after the rows. */
  readonly backend: EntailmentBackend;
  /** Releases the backend (or the scorer holding it); called once, whatever happened. */
  readonly close: () => Promise<void>;
  /** The row on a non-blank line (numbered from 1), or why it is malformed, naming the line. */
  readonly parse: (line: string, lineNumber: number) => { readonly row: Row } | { readonly error: string };
  /** Runs one row and writes its result to `out`. */
  readonly handle: (row: Row, out: Writable) => Promise<void>;
  /** Writes what comes before the first row (a table header, "["). */
  readonly start?: (out: Writable) => Promise<void>;
  /** Runs after the last row read, also after a stop at a malformed row: rows already read are not lost. */
  readonly finish?: (out: Writable) => Promise<void>;
  /** Runs once the output is closed, before the usage and summary lines (ends a progress line). */
  readonly done?: () => void;
  /** The summary line, without the "groundwatch NAME: " lead, given how many rows were malformed. */
  readonly summary: (invalid: number) => string;
}

/**
 * Runs a row command over its input; resolves to the exit code: 0, 3 at a malformed row (without
 * --skip-invalid), 1 on a failure while running or writing --output. A closed output (`| head`)
 * stops the run quietly.
 */
export async function runRowCommand<Row>(o: RowCommandOptions<Row>): Promise<number> {
  const { io, name } = o;
  let file: ReturnType<typeof openOutputStream> | undefined;
  try {
    file = o.output !== undefined ? openOutputStream("--output", o.output) : undefined;
  } catch (error) {
    await o.close();
    throw error;
  }
  const out: Writable = file ?? io.stdout;
  let invalid = 0;
  let exit: number = EXIT.ok;
  // Reading standard input or a pipe that never sends anything would look like a hang: say what is awaited.
  let received = false;
  const awaited = o.source === "-" ? `standard input (give a file, or pipe JSONL in; "groundwatch ${name} --help")` : readsOnce(o.source) ? `the pipe ${o.source} (nothing has been written to it yet)` : undefined;
  const hint =
    awaited !== undefined
      ? setTimeout(() => {
          if (!received) io.stderr.write(`groundwatch ${name}: waiting for rows on ${awaited}\n`);
        }, STDIN_HINT_MS)
      : undefined;
  hint?.unref();
  try {
    await o.start?.(out);
    let n = 0;
    for await (const line of inputLines(o.source, io)) {
      received = true;
      n++;
      if (line.trim() === "") continue;
      const parsed = o.parse(line, n);
      if ("error" in parsed) {
        invalid++;
        io.stderr.write(`groundwatch ${name}: ${parsed.error}\n`);
        if (!o.skipInvalid) {
          io.stderr.write(`groundwatch ${name}: stopped at the first malformed row (use --skip-invalid to report and skip such rows)\n`);
          exit = EXIT.invalidInput;
          break;
        }
        continue;
      }
      await o.handle(parsed.row, out);
    }
    await o.finish?.(out);
  } catch (error) {
    // `| head` closed the output: what was asked for has been written; stop quietly.
    if (!isBrokenPipe(error)) {
      io.stderr.write(`groundwatch ${name}: ${(error as Error).message}\n`);
      exit = EXIT.failure;
    }
  } finally {
    clearTimeout(hint);
    if (file) {
      await closeOutputStream(file).catch((error: unknown) => {
        io.stderr.write(`groundwatch ${name}: cannot write --output ${o.output ?? ""}: ${(error as Error).message}\n`);
        exit = EXIT.failure;
      });
    }
    await o.close();
  }
  o.done?.();
  const usage = describeUsage(o.backend);
  if (usage) io.stderr.write(`groundwatch ${name}: ${usage}\n`);
  io.stderr.write(`groundwatch ${name}: ${o.summary(invalid)}\n`);
  return exit;
}
