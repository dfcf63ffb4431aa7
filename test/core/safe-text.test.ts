import { describe, expect, it } from "vitest";
import { plainText } from "../../src/cli/shared/escape.ts";
import { sanitizeForTerminal } from "../../src/cli/shared/io.ts";
import { jsonForTerminal, stripControls } from "../../src/core/safe-text.ts";
import { sanitizeLabel } from "../../src/telemetry/labels.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const ESC = "\u001b";
const BEL = "\u0007";
const ST = `${ESC}\\`;

/** The review's input (house review 2.4): an OSC 8 hyperlink, a coloured word, a tab. */
const HOSTILE = `a${ESC}]8;;http://evil${BEL}link${ESC}]8;;${BEL} ${ESC}[31mred${ESC}[0m\tb`;

describe("stripControls", () => {
  it("removes an OSC sequence whole, payload included, whether BEL- or ST-terminated", () => {
    expect(stripControls(`a${ESC}]8;;http://evil${BEL}link${ESC}]8;;${BEL}`)).toBe("alink");
    expect(stripControls(`a${ESC}]8;;http://evil${ST}link${ESC}]8;;${ST}`)).toBe("alink");
    expect(stripControls(`a${ESC}]0;window title${BEL}b`)).toBe("ab");
    // 8-bit OSC and ST.
    expect(stripControls("a\u009d8;;http://evil\u009clink")).toBe("alink");
    // Unterminated: the rest is payload, as a terminal would swallow it.
    expect(stripControls(`a${ESC}]8;;http://evil and more`)).toBe("a");
  });

  it("removes DCS, PM and APC strings with their payload", () => {
    expect(stripControls(`a${ESC}Pq#0;2;0;0;0${ST}b`)).toBe("ab");
    expect(stripControls(`a${ESC}^private${ST}b${ESC}_app${BEL}c`)).toBe("abc");
  });

  it("removes CSI sequences (7- and 8-bit) and other escapes, keeping the text between them", () => {
    expect(stripControls(`${ESC}[31mred${ESC}[0m ${ESC}[1;2;3 q${ESC}[?25lgreen`)).toBe("red green");
    expect(stripControls("\u009b31mred\u009b0m")).toBe("red");
    expect(stripControls(`${ESC}cclear ${ESC}7saved${ESC}8 ${ESC}(Bascii ${ESC}Mup`)).toBe("clear saved ascii up");
  });

  it("removes C0 and C1 controls, DEL and bidirectional controls", () => {
    expect(stripControls("a\u0000b\u0008c\u000bd\u000ce\u007ff\u0085g\u0099h")).toBe("abcdefgh");
    expect(stripControls("admin\u202e/nimda\u2066x\u2069\u200e\u200f\u061c")).toBe("admin/nimdax");
  });

  it("turns each tab and line break into a space by default, so words stay apart on one line", () => {
    expect(stripControls("a\tb\nc\r\nd\re")).toBe("a b c d e");
  });

  it("keeps tabs and line feeds with keepWhitespace, and a carriage return becomes a line feed", () => {
    expect(stripControls("a\tb\nc\r\nd\re", { keepWhitespace: true })).toBe("a\tb\nc\nd\ne");
  });

  it("leaves ordinary text, emoji and other scripts as they are", () => {
    const text = "Grüße, 東京 — 10 % off 🎉 (a|b) [x] {y} ~z";
    expect(stripControls(text)).toBe(text);
  });

  const texts: ReadonlyArray<readonly [string, (n: number) => string]> = [
    ["CSI with no final byte", (n) => `${ESC}[${"0".repeat(n)}`],
    ["CSI parameters then intermediates with no final byte", (n) => `${ESC}[${"0;".repeat(n / 4)}${" ".repeat(n / 2)}`],
    ["escapes with long intermediate runs", (n) => `${ESC}${" ".repeat(n)}`],
    ["repeated openers of every kind", (n) => `${ESC}[${ESC}]${ESC}P${ESC} \u009b\u009d`.repeat(n / 10)],
    ["OSC with no terminator", (n) => `${ESC}]8;;${"a".repeat(n)}`],
    ["carriage returns and line feeds", (n) => "\r\r\n\n".repeat(n / 4)],
  ];
  // 1,250 characters against 10,000: from about 16,000 up, the stripped copies are over V8's 128 KiB
  // large-object size, fresh from the kernel on every run (test/helpers/growth.ts).
  it.each(texts)("takes time linear in the text: %s", (what, make) => {
    expectLinear(what, measureGrowth(make, (s) => [stripControls(s), stripControls(s, { keepWhitespace: true })], { n: 1250, maxN: 1250 }));
  });
});

describe("the label, terminal and report sanitisers: one answer for hostile text", () => {
  it("agree on the review's input: no OSC payload, no escape residue, no run-together words", () => {
    // Before the one sanitiser: "alink redb", "a8;;http://evillink8;; red\tb", "a]8;;http://evillink]8;; [31mred[0m b".
    expect.soft(sanitizeLabel(HOSTILE)).toBe("alink red b");
    expect.soft(sanitizeForTerminal(HOSTILE)).toBe("alink red\tb");
    expect.soft(plainText(HOSTILE)).toBe("alink red b");
  });
});

describe("jsonForTerminal", () => {
  const HOSTILE_VALUES = { csi: "\u009b31mred\u009b0m", osc: "\u009d8;;http://evil\u009clink", bidi: "a\u202eb\u202cc\u2066d\u2069\u200e\u200f\u061c", del: "x\u007fy", lines: "p\u2028q\u2029r", esc: `${ESC}[2J` };

  it("writes C1 controls, DEL, bidi controls and line separators as \\u escapes: valid JSON that parses to the same value", () => {
    const json = jsonForTerminal(HOSTILE_VALUES);
    expect(json).not.toContain(ESC);
    expect(json).not.toMatch(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(json).toContain("\\u009b31mred");
    expect(json).toContain("a\\u202eb");
    expect(JSON.parse(json)).toEqual(HOSTILE_VALUES);
    expect(JSON.parse(jsonForTerminal(HOSTILE_VALUES, 2))).toEqual(HOSTILE_VALUES);
    // Text without such code points is JSON.stringify's, byte for byte.
    expect(jsonForTerminal({ a: "plain é 😀 <b>", n: [1, null] })).toBe(JSON.stringify({ a: "plain é 😀 <b>", n: [1, null] }));
  });

  it("is linear in the text", () => {
    expectLinear("jsonForTerminal", measureGrowth((n) => ({ text: "\u009b\u202ea".repeat(n) }), (value) => jsonForTerminal(value), { n: 20_000, maxN: 20_000, repeats: 25 }));
  });
});
