import { createInterface } from "node:readline";
import type { ReadStream } from "node:tty";
import type { SpoolRecord } from "../../review/record.ts";
import { conflictText } from "./conflict.ts";
import type { ReviewSession } from "../../review/session.ts";
import { openReviewSession } from "../../review/session.ts";
import type { ReviewStore } from "../../review/store.ts";
import type { CommandIo } from "../shared/io.ts";
import { reportSessionReads } from "./skips.ts";
import { renderRecord } from "./render.ts";
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
  /** Where answers and labels are read and labels written (default: a directory store over `dirs` and `labels`). */
  readonly store?: ReviewStore | undefined;
  /** The spool directories (replicas), merged (without `store`). */
  readonly dirs?: readonly string[] | undefined;
  /** The labels file read and appended to (without `store`). */
  readonly labels?: string | undefined;
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

const KEYS_HELP = "a agree  d disagree  c claim by claim  w mark spans wrong  s skip  u undo  q quit";
const SPAN_KEYS_HELP = "j/k or arrows move  space or w mark wrong / take back  enter or esc back (marks go with the label)";
const CLAIM_KEYS_HELP = "j/k or arrows move  space toggle  1 supported  0 not supported  enter save  esc back";
const CLEAR = "\u001b[2J\u001b[3J\u001b[H";
const safeId = (id: string): string => id.slice(0, 80).replace(/[^\w.-]/g, "?");

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
  const session: ReviewSession = await openReviewSession({ store: options.store, dirs: options.dirs, labelsFile: options.labels, reviewer: options.reviewer, now: options.now });
  reportSessionReads("review", session, io.stderr);
  const stdin = io.stdin as Partial<ReadStream>;
  const tty = stdin.isTTY === true && typeof stdin.setRawMode === "function";
  const color = io.stdout.isTTY === true && !io.env.NO_COLOR;
  const input = tty ? rawInput(io.stdin as ReadStream) : lineInput(io);
  let message: string | undefined;

  const show = (r: SpoolRecord, mode: ReviewMode): void => {
    // This session's position: labelled and skipped so far, out of those plus what is left.
    const { skipped, remaining } = session.progress();
    const seen = session.labelledNow() + skipped;
    const position = `[${seen + 1}/${seen + remaining}]`;
    const marking = mode.kind === "claims" ? { marks: mode.marks, cursor: mode.cursor } : undefined;
    const spanMarking = { wrong: mode.wrong ?? [], cursor: mode.kind === "spans" ? mode.cursor : undefined };
    const lines = renderRecord(r, { color }, marking, spanMarking);
    const help = mode.kind === "claims" ? CLAIM_KEYS_HELP : mode.kind === "spans" ? SPAN_KEYS_HELP : KEYS_HELP;
    const prompt = `${position} ${safeId(r.id)}  ${help}`;
    io.stdout.write(`${tty && io.stdout.isTTY ? CLEAR : "\n"}${lines.join("\n")}\n${message ? `${message}\n` : ""}${prompt}\n`);
    message = undefined;
  };

  const showFinished = (): void => {
    const { skipped } = session.progress();
    io.stdout.write(`${tty && io.stdout.isTTY ? CLEAR : "\n"}all answers shown: ${session.labelledNow()} labelled${skipped > 0 ? `, ${skipped} skipped` : ""}\n${message ? `${message}\n` : ""}u undo the last label  q quit\n`);
    message = undefined;
  };

  /** Asks whether to label anyway (y) or skip (n, s); true for y. */
  const confirm = async (question: string): Promise<boolean | undefined> => {
    for (;;) {
      io.stdout.write(`${question}  y label anyway  n skip\n`);
      const got = await input.next();
      if (got === undefined) return undefined;
      const keys: string[] = "line" in got ? [got.line.trim().toLowerCase()] : got.keys;
      for (const key of keys) {
        if (key === "y") return true;
        if (key === "n" || key === "s") return false;
        if (key === "q" || key === "interrupt") return undefined;
      }
    }
  };

  /**
   * Labels `r`; when the store refuses it for labels of others this reviewer had not seen, says whose
   * and asks: label anyway (written now that they are known) or skip. Undefined: the reviewer quit.
   */
  const labelAnswer = async (r: SpoolRecord, action: Extract<ReviewAction, { type: "label" }>): Promise<boolean> => {
    const request = { id: r.id, label: action.label, claims: action.claims, spans: action.spans };
    for (;;) {
      const outcome = await session.label(request);
      if (!("conflict" in outcome)) return false;
      const anyway = await confirm(`${safeId(r.id)}: ${conflictText(outcome.conflict)} since you started —`);
      if (anyway === undefined) return true;
      if (!anyway) {
        session.skip(r.id);
        return false;
      }
    }
  };

  /** Performs an action (on `r`, the answer shown; undefined once all are); true when the session ends. */
  const perform = async (r: SpoolRecord | undefined, action: ReviewAction): Promise<boolean> => {
    switch (action.type) {
      case "label":
        return r ? labelAnswer(r, action) : false;
      case "skip":
        if (r) session.skip(r.id);
        return false;
      case "undo": {
        const undone = await session.undo();
        message = undone === undefined ? "nothing to undo in this session" : `undone: the label of ${safeId(undone)}`;
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
    reviewing: for (;;) {
      const r = session.next();
      if (r === undefined) {
        // Nothing left: the last label can still be undone, until the reviewer quits.
        if (session.labelledNow() === 0) break;
        showFinished();
        const got = await input.next();
        if (got === undefined) break;
        const keys: Key[] = "line" in got ? [(got.line.trim() as Key) || "enter"] : got.keys;
        for (const key of keys) {
          const action: ReviewAction = key === "u" ? { type: "undo" } : key === "q" || key === "interrupt" ? { type: "quit" } : { type: "none", message: "nothing left to review: u undo, q quit" };
          if (await perform(r, action)) break reviewing;
          if (session.next() !== undefined) break;
        }
        continue;
      }
      show(r, mode);
      const got = await input.next();
      if (got === undefined) break;
      if ("line" in got) {
        if (await perform(r, lineAction(r, got.line))) break;
        continue;
      }
      for (const key of got.keys) {
        const next = step(r, mode, key);
        mode = next.mode;
        if (await perform(r, next.action)) break reviewing;
        if (session.next()?.id !== r.id) {
          mode = ANSWER_MODE;
          break; // the rest of the chunk belonged to a typed-ahead answer view: drop it
        }
      }
    }
  } finally {
    input.close();
  }
  const { skipped, remaining } = session.progress();
  const result = { labelled: session.labelledNow(), left: remaining + skipped };
  io.stdout.write(`${tty && io.stdout.isTTY ? "\n" : ""}labelled ${result.labelled}, ${result.left} left\n`);
  return result;
}
