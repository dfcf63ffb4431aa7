/**
 * guardSse's bookkeeping between the frames an app writes and the stream guard's events, which are in
 * original-answer offsets: each text frame covers the range of the answer its delta adds, and is
 * written, its original bytes, once all of that range is released; a frame without text keeps its
 * place after the text before it. Text that goes out otherwise (released text whose frame straddles a
 * check boundary and will not go out whole, a correction, the replacement) is written as a
 * synthesized frame. No I/O of its own: it calls `write` in the order the client must read.
 */
import type { SseTextKind } from "./guard-sse-frames.ts";

/** One frame held until its place in the answer goes out. */
interface Held {
  readonly raw: Buffer;
  /** The answer range its delta covers; start === end for a frame without text. */
  readonly start: number;
  readonly end: number;
  /** Its delta (for the part re-sent alone when the frame cannot go out whole). */
  readonly text: string;
  /** It repeats the whole answer: held to the end, dropped when the answer was changed. */
  readonly echo: boolean;
}

export interface SseLedgerSink {
  /** Writes bytes to the client. */
  write(chunk: Buffer | string): void;
  /** A synthesized text frame. */
  frame(text: string, kind: SseTextKind): string;
}

export interface SseLedger {
  /** The app wrote a frame carrying `delta` (undefined: no text). Held or written at once. */
  add(raw: Buffer, delta: string | undefined, echo: boolean): void;
  /** The guard released original [start, end). */
  release(end: number): void;
  /** The guard corrected original [start, end) into `text`. */
  correct(start: number, end: number, text: string): void;
  /** The guard blocked the answer from `at`: what was released before goes out, then `replacement`; later text frames are dropped. */
  block(at: number, replacement: string): void;
  /** The stream's decision came: everything held that may go out goes out (echoes only when the answer was not changed). */
  finish(): void;
  /** Stop guarding: every held frame goes out as it came, and so does every later one (a pass-through bypass). */
  passThrough(): void;
  /** Bytes of the frames held. */
  readonly heldBytes: number;
  /** The answer's characters received so far. */
  readonly total: number;
  /** True once a correction or a replacement was written. */
  readonly changed: boolean;
  /** True once blocked. */
  readonly blocked: boolean;
}

/**
 * The ledger of one response. Each call does work proportional to the frames it writes or drops:
 * the held frames are a queue consumed from its head.
 */
export function createSseLedger(sink: SseLedgerSink): SseLedger {
  const queue: Array<Held | undefined> = [];
  let head = 0;
  let heldBytes = 0;
  let total = 0;
  /** Original offset up to which the client has the answer (as original bytes or synthesized). */
  let out = 0;
  let released = 0;
  let changed = false;
  let blocked = false;
  let finished = false;
  let passing = false;

  const shift = (): Held => {
    const h = queue[head] as Held;
    queue[head++] = undefined;
    heldBytes -= h.raw.length;
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    return h;
  };
  const synth = (text: string, kind: SseTextKind): void => {
    if (text !== "") sink.write(sink.frame(text, kind));
  };

  /**
   * Writes from the head what may go out now: frames whose text is all released (as they came), and
   * frames without text once the text before them is out. With `upTo`, released text of a frame
   * that cannot go out whole is re-sent alone up to there.
   */
  const flush = (upTo?: number): void => {
    while (head < queue.length) {
      const h = queue[head] as Held;
      if (h.echo && !finished) return;
      if (h.start === h.end) {
        if (h.start > out) return;
        shift();
        if (!(h.echo && changed)) sink.write(h.raw);
        continue;
      }
      if (h.end <= out) {
        // its text went out already (corrected, or re-sent alone)
        shift();
        continue;
      }
      if (h.end <= released && h.start === out) {
        shift();
        sink.write(h.raw);
        out = h.end;
        continue;
      }
      if (h.end <= released) {
        shift();
        synth(h.text.slice(out - h.start), "text");
        out = h.end;
        continue;
      }
      if (upTo !== undefined && upTo > out) {
        synth(h.text.slice(out - h.start, upTo - h.start), "text");
        out = upTo;
      }
      return;
    }
  };

  return {
    add(raw, delta, echo) {
      if (passing) return sink.write(raw);
      const start = total;
      if (delta !== undefined && delta !== "") total += delta.length;
      if (blocked) {
        // later text was not released; a frame without text (the end of the stream) still goes out
        if (start === total && !echo) sink.write(raw);
        return;
      }
      queue.push({ raw, start, end: total, text: delta ?? "", echo });
      heldBytes += raw.length;
      flush();
    },
    release(end) {
      released = Math.max(released, end);
      flush();
    },
    correct(start, end, text) {
      flush(start);
      changed = true;
      synth(text, "correction");
      out = Math.max(out, end);
      released = Math.max(released, end);
      flush();
    },
    block(at, replacement) {
      flush(Math.min(at, released));
      changed = true;
      blocked = true;
      synth(replacement, "replacement");
      out = Math.max(out, total);
      released = out;
      finished = true;
      // what is held: text frames dropped, frames without text written, echoes dropped
      while (head < queue.length) {
        const h = shift();
        if (h.start === h.end && !h.echo) sink.write(h.raw);
      }
    },
    finish() {
      finished = true;
      flush();
      // anything left was never released (an aborted stream): text dropped, the rest kept in order
      while (head < queue.length) {
        const h = shift();
        if (h.start === h.end && !(h.echo && changed)) sink.write(h.raw);
      }
    },
    passThrough() {
      passing = true;
      while (head < queue.length) {
        const h = shift();
        if (h.start === h.end || h.start >= out) sink.write(h.raw);
        else if (h.end > out) synth(h.text.slice(out - h.start), "text");
      }
      out = total;
    },
    get heldBytes() {
      return heldBytes;
    },
    get total() {
      return total;
    },
    get changed() {
      return changed;
    },
    get blocked() {
      return blocked;
    },
  };
}
