/**
 * The one sanitiser for untrusted text shown to people: metric labels, terminal output, and the
 * reports eval writes. A terminal acts on escape sequences (colours, cursor moves, OSC 8 hyperlinks
 * whose payload is a URL nobody sees), control characters (a carriage return overwrites the line)
 * and Unicode bidirectional controls (which reorder what is displayed: a route could be shown as
 * another). All of them go, whole: an OSC sequence with its payload, not just its introducer.
 *
 * One pass of one pattern whose every alternative starts at an escape or control character and
 * reads one bounded or self-delimiting run, so the cost is linear in the text. Built from escapes so
 * this file holds none of them literally.
 */

/** The Unicode bidirectional controls (marks, embeddings, overrides, isolates), as a character-class body. */
const BIDI_CONTROLS = String.raw`\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069`;

// Alternatives, in order: a CSI, 7-bit (ESC [) or 8-bit, with its parameter, intermediate and final
// bytes; an OSC, DCS, SOS, PM or APC string (7- or 8-bit), payload included, up to BEL or ST (or the
// end of the text, as a terminal would swallow it); any other escape (a few intermediate bytes, one
// final byte); a line end (CR LF is one); one C0 or C1 control, DEL, or bidirectional control.
const ESCAPES_AND_CONTROLS = new RegExp(
  String.raw`(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]{0,8}[0-~]|\r\n?|[\u0000-\u001f\u007f-\u009f${BIDI_CONTROLS}]`,
  "g",
);

export interface StripControlsOptions {
  /**
   * Keep tabs and line breaks (a carriage return, alone or before a line feed, becomes one line
   * feed, so it cannot overwrite the line). Default false: each tab or line break becomes a space,
   * so the words on either side stay apart on one line.
   */
  readonly keepWhitespace?: boolean | undefined;
}

// The code points JSON.stringify leaves raw that a terminal acts on, or that reorder or break what is
// shown: DEL, the C1 controls (U+009B is an 8-bit CSI, U+009D an 8-bit OSC), the bidirectional
// controls of ESCAPES_AND_CONTROLS, and the line and paragraph separators (a line break to some
// JSONL readers). JSON.stringify already escapes U+0000-U+001F (ESC among them).
const RAW_IN_JSON = new RegExp(String.raw`[\u007f-\u009f\u2028\u2029${BIDI_CONTROLS}]`, "g");

/**
 * `JSON.stringify(value, null, space)` with every code point a terminal acts on written as a `\uXXXX`
 * escape: still valid JSON that parses to the same value, but safe to print (JSONL on standard
 * output). Such code points can only be inside the JSON's strings, so escaping them there is exact.
 */
export function jsonForTerminal(value: unknown, space?: number): string {
  // JSON.stringify gives undefined for what JSON cannot hold (undefined, a function): written as null.
  const json = (JSON.stringify(value, null, space) as string | undefined) ?? "null";
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * `text` without ANSI escape sequences (CSI; OSC, DCS, PM and APC strings with their payload;
 * two-character and other escapes), C0 and C1 control characters, DEL, and Unicode bidirectional
 * controls. Tabs and line breaks are kept with `keepWhitespace`, else each becomes a space.
 */
export function stripControls(text: string, options: StripControlsOptions = {}): string {
  const keep = options.keepWhitespace === true;
  return text.replace(ESCAPES_AND_CONTROLS, (match) => {
    if (match === "\t" || match === "\n") return keep ? match : " ";
    if (match.charCodeAt(0) === 0x0d) return keep ? "\n" : " ";
    return "";
  });
}
