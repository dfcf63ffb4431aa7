import { describe, expect, it } from "vitest";
import { escapeHtml, escapeXml, mdText, plainText } from "../../src/cli/shared/escape.ts";

const ESC = "\u001b";

describe("plainText", () => {
  it("makes one line: escape sequences and controls removed, each break or tab run one space", () => {
    expect(plainText(`row ${ESC}[1mbold${ESC}[0m\r\n\tnext\u0000 line\u202e`)).toBe("row bold next line");
    expect(plainText(`see ${ESC}]8;;https://evil.example${ESC}\\here${ESC}]8;;${ESC}\\`)).toBe("see here");
  });

  it("keeps runs of spaces without a break, and non-strings as their String()", () => {
    expect(plainText("a   b")).toBe("a   b");
    expect(plainText(42)).toBe("42");
    expect(plainText(null)).toBe("null");
  });

  it("cuts at `max` code points with an ellipsis, never inside a surrogate pair", () => {
    expect(plainText("abcdef", 3)).toBe("abc…");
    expect(plainText("😀😀😀", 2)).toBe("😀😀…");
    expect(plainText("abc", 3)).toBe("abc");
  });
});

describe("mdText", () => {
  it("escapes every character that opens Markdown or HTML", () => {
    expect(mdText("[link](http://x) *em* `code` # | $x$ ~s~ !img")).toBe("\\[link\\]\\(http://x\\) \\*em\\* \\`code\\` \\# \\| \\$x\\$ \\~s\\~ \\!img");
    expect(mdText("<script>&amp;")).toBe("&lt;script&gt;&amp;amp;");
  });

  it("is one line: a row cannot break a table", () => {
    expect(mdText("a\n| b | c |")).toBe("a \\| b \\| c \\|");
  });
});

describe("escapeHtml", () => {
  it("escapes the five HTML specials", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  });

  it("removes escape sequences and controls, keeping tabs and line breaks", () => {
    expect(escapeHtml(`a\t${ESC}[31mred${ESC}[0m\nb\u0007\u202e`)).toBe("a\tred\nb");
  });
});

describe("escapeXml", () => {
  it("drops what XML 1.0 cannot carry: controls, escape sequences, unpaired surrogates, U+FFFE/U+FFFF", () => {
    expect(escapeXml(`a\u0001${ESC}[2Jb\ud800c\udc00d\ufffee\uffff😀`)).toBe("abcde😀");
  });

  it("writes tabs and line breaks in an attribute as character references", () => {
    expect(escapeXml("a\tb\nc\r\nd", true)).toBe("a&#9;b&#10;c&#10;d");
    expect(escapeXml("a\tb\nc", false)).toBe("a\tb\nc");
  });
});
