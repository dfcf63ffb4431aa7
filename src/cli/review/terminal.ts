import { createInterface } from "node:readline";
import type { ReadStream } from "node:tty";
import type { LabelRecord, SpoolRecord } from "../../review/record.ts";
import { REVIEW_RECORD_VERSION, agreementOf } from "../../review/record.ts";
import { reviewQueue } from "../../review/queue.ts";
import { appendLabel, readLabelRecords, readSpools } from "../../review/spool-files.ts";
import { describeSkip } from "../../review/spool-fs.ts";
import { UsageError } from "../command.ts";
import type { CommandIo } from "../io.ts";
import { sanitizeForTerminal } from "../io.ts";
import { reportSkippedFiles } from "./skips.ts";
import { renderRecord, viewableRecord } from "./render.ts";
import type { Key, ReviewAction, ReviewMode } from "./state.ts";
import { ANSWER_MODE, decodeKeys, lineAction, step } from "./state.ts";

/**
 * `groundwatch review` in the terminal: the answers a reviewer has not labelled yet, one at a time,
 * each label appended to the labels file at once (so a rerun shows only what is left). On a TTY the
 * keys act at once (raw mode, restored on exit, SIGINT and SIGTERM); otherwise one command a line
 * is read from standard input so a session can be scripted.
 */

/** What a terminal review session needs. */
export interface TerminalReviewOptions {
  /** The spool directories (replicas), merged. */
  readonly dirs: readonly string[];
  /** The labels file read and appended to. */
  readonly labels: string;
  /** The reviewer's name, recorded on every label. */
  readonly reviewer: string;
  /** The clock (ISO time of each label); default the system clock. */
  readonly now?: () => Date;
}

/** What a session did: labels written (undone ones not counted) and answers still unlabelled. */
export interface TerminalReviewResult {
  readonly labelled: number;
  readonly left: number;
}

const KEYS_HELP = "a agree  d disagree  c claim by claim  s skip  u undo  q quit";
const CLAIM_KEYS_HELP = "j/k or arrows move  space toggle  1 supported  0 not supported  enter save  esc back";
const CLEAR = "\u001b[2J\u001b[3J\u001b[H";

/** The source of commands: raw keys on a TTY, lines otherwise. Each `next` resolves with the next key or line (undefined at end of input). */
interface Input {
  next(): Promise<{ keys: Key[] } | { line: string } | undefined>;
  close(): void;
}

function rawInput(stdin: ReadStream): Input {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const onData = (d: Buffer | string): void => {
    queue.push(d.toString());
    wake?.();
  };
  const onEnd = (): void => {
    ended = true;
    wake?.();
  };
  const restore = (): void => {
    if (stdin.isRaw) stdin.setRawMode(false);
  };
  // A signal ends the session: raw mode off first, so the shell gets its terminal back as it was.
  const onSignal = (): void => {
    restore();
    onEnd();
  };
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  process.on("exit", restore);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  stdin.resume();
  return {
    async next() {
      while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      const chunk = queue.shift();
      return chunk === undefined ? undefined : { keys: decodeKeys(chunk) };
    },
    close() {
      restore();
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      process.off("exit", restore);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      stdin.pause();
    },
  };
}

function lineInput(io: CommandIo): Input {
  const rl = createInterface({ input: io.stdin, crlfDelay: Infinity });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next() {
      const r = await lines.next();
      return r.done ? undefined : { line: String(r.value) };
    },
    close: () => rl.close(),
  };
}

/** Runs a review session; resolves when the reviewer quits, input ends or nothing is left. */
export async function runTerminalReview(options: TerminalReviewOptions, io: CommandIo): Promise<TerminalReviewResult> {
  const now = options.now ?? (() => new Date());
  const read = readLabelRecords(options.labels);
  if (read.skipped !== undefined) throw new UsageError(`--labels: ${sanitizeForTerminal(options.labels)} is ${describeSkip(read.skipped)}: labels are read from and appended to a regular file only`);
  const { labels, unreadable } = read;
  const spools = readSpools(options.dirs);
  reportSkippedFiles("review", spools.skipped, io.stderr);
  if (spools.unreadable > 0) io.stderr.write(`groundwatch review: ${spools.unreadable} spool lines could not be read (a partial last write is expected after a crash)\n`);
  if (unreadable > 0) io.stderr.write(`groundwatch review: ${unreadable} label lines could not be read\n`);
  const queue = reviewQueue(spools.records, labels, options.reviewer).map(viewableRecord);
  const stdin = io.stdin as Partial<ReadStream>;
  const tty = stdin.isTTY === true && typeof stdin.setRawMode === "function";
  const color = io.stdout.isTTY === true && !io.env.NO_COLOR;
  const input = tty ? rawInput(io.stdin as ReadStream) : lineInput(io);
  const done: Array<{ record: SpoolRecord; label: LabelRecord }> = [];
  let skipped = 0;
  let message: string | undefined;

  const show = (r: SpoolRecord, mode: ReviewMode): void => {
    const position = `[${done.length + skipped + 1}/${done.length + queue.length + skipped}]`;
    const marking = mode.kind === "claims" ? { marks: mode.marks, cursor: mode.cursor } : undefined;
    const lines = renderRecord(r, { color }, marking);
    const prompt = `${position} ${r.id.slice(0, 80).replace(/[^\w.-]/g, "?")}  ${mode.kind === "claims" ? CLAIM_KEYS_HELP : KEYS_HELP}`;
    io.stdout.write(`${tty && io.stdout.isTTY ? CLEAR : "\n"}${lines.join("\n")}\n${message ? `${message}\n` : ""}${prompt}\n`);
    message = undefined;
  };

  const showFinished = (): void => {
    io.stdout.write(`${tty && io.stdout.isTTY ? CLEAR : "\n"}all answers shown: ${done.length} labelled${skipped > 0 ? `, ${skipped} skipped` : ""}\n${message ? `${message}\n` : ""}u undo the last label  q quit\n`);
    message = undefined;
  };

  /** Performs an action (on `r`, the answer shown; undefined once all are); true when the session ends. */
  const perform = (r: SpoolRecord | undefined, action: ReviewAction): boolean => {
    switch (action.type) {
      case "label": {
        if (!r) return false;
        const label: LabelRecord = { v: REVIEW_RECORD_VERSION, id: r.id, reviewer: options.reviewer, time: now().toISOString(), label: action.label, agreement: agreementOf(r.kind, action.label), ...(action.claims ? { claims: action.claims } : {}), kind: r.kind };
        appendLabel(options.labels, label);
        done.push({ record: r, label });
        queue.shift();
        return false;
      }
      case "skip":
        queue.shift();
        skipped++;
        return false;
      case "undo": {
        const last = done.pop();
        if (!last) {
          message = "nothing to undo in this session";
          return false;
        }
        appendLabel(options.labels, { v: REVIEW_RECORD_VERSION, id: last.record.id, reviewer: options.reviewer, time: now().toISOString(), kind: last.record.kind, undo: true });
        queue.unshift(last.record);
        message = `undone: the label of ${last.record.id.slice(0, 80).replace(/[^\w.-]/g, "?")}`;
        return false;
      }
      case "quit":
        return true;
      case "none":
        message = action.message;
        return false;
    }
  };

  try {
    let mode: ReviewMode = ANSWER_MODE;
    session: for (;;) {
      const r = queue[0];
      if (r === undefined) {
        // Nothing left: the last label can still be undone, until the reviewer quits.
        if (done.length === 0) break;
        showFinished();
        const got = await input.next();
        if (got === undefined) break;
        const keys: Key[] = "line" in got ? [(got.line.trim() as Key) || "enter"] : got.keys;
        for (const key of keys) {
          const action: ReviewAction = key === "u" ? { type: "undo" } : key === "q" || key === "interrupt" ? { type: "quit" } : { type: "none", message: "nothing left to review: u undo, q quit" };
          if (perform(r, action)) break session;
          if (queue.length > 0) break;
        }
        continue;
      }
      show(r, mode);
      const got = await input.next();
      if (got === undefined) break;
      if ("line" in got) {
        if (perform(r, lineAction(r, got.line))) break;
        continue;
      }
      for (const key of got.keys) {
        const next = step(r, mode, key);
        mode = next.mode;
        if (perform(r, next.action)) break session;
        if (queue[0] !== r) {
          mode = ANSWER_MODE;
          break; // the rest of the chunk belonged to a typed-ahead answer view: drop it
        }
      }
    }
  } finally {
    input.close();
  }
  const result = { labelled: done.length, left: queue.length + skipped };
  io.stdout.write(`${tty && io.stdout.isTTY ? "\n" : ""}labelled ${result.labelled}, ${result.left} left\n`);
  return result;
}
