/**
 * Where a guarded stream may check what it has: a sentence boundary, found in the deltas as they
 * arrive. A boundary is a trigger only (the scorer's own claim splitting decides what a claim is):
 * terminal punctuation (closing quotes and brackets allowed after it) followed by whitespace, a
 * newline, or `maxPendingChars` characters without either (a forced check, so a stream without
 * boundaries cannot stall the user). Each character is looked at once, in the delta it came in:
 * linear in the stream, whatever its shape, and no string is re-read or joined here.
 */

/** Finds sentence boundaries in a stream fed delta by delta. */
export interface SentenceTrigger {
  /**
   * Scans `delta` (the text after everything fed before) and returns the boundaries in it,
   * ascending, as offsets into the whole text: each the end of a unit (exclusive). The whitespace
   * after terminal punctuation begins the next unit; a newline ends its own.
   */
  feed(delta: string): number[];
}

const NEWLINE = 0x0a;
/** . ! ? … and the ideographic full stop and fullwidth ! ?. */
const TERMINAL = new Set([0x2e, 0x21, 0x3f, 0x2026, 0x3002, 0xff01, 0xff1f]);
/** What may stand between terminal punctuation and the whitespace: " ' ) ] » ” ’ ）. */
const CLOSING = new Set([0x22, 0x27, 0x29, 0x5d, 0xbb, 0x201d, 0x2019, 0xff09]);
/** Whitespace other than the newline: space, tab, carriage return, form feed, no-break space, ideographic space. */
const BLANK = new Set([0x20, 0x09, 0x0d, 0x0c, 0xa0, 0x3000]);

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** A trigger forcing a boundary after `maxPendingChars` characters without one (never inside a surrogate pair). */
export function createSentenceTrigger(maxPendingChars: number): SentenceTrigger {
  /** Characters fed so far. */
  let fed = 0;
  /** The last boundary (the start of the unit being read). */
  let last = 0;
  /** The characters since the last terminal punctuation were only closing quotes and brackets. */
  let afterTerminal = false;
  return {
    feed(delta) {
      const found: number[] = [];
      const mark = (at: number): void => {
        if (at > last) {
          found.push(at);
          last = at;
        }
      };
      for (let i = 0; i < delta.length; i++) {
        const c = delta.charCodeAt(i);
        const at = fed + i;
        if (c === NEWLINE) {
          mark(at + 1);
          afterTerminal = false;
        } else if (BLANK.has(c)) {
          if (afterTerminal) mark(at);
          afterTerminal = false;
        } else if (TERMINAL.has(c)) afterTerminal = true;
        else if (!CLOSING.has(c)) afterTerminal = false;
        if (at + 1 - last >= maxPendingChars && !isHighSurrogate(c)) mark(at + 1);
      }
      fed += delta.length;
      return found;
    },
  };
}
