import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isBrokenPipe, sanitizeForTerminal, writeLine } from "../../src/cli/shared/io.ts";

const ESC = "\u001b";

describe("sanitizeForTerminal", () => {
  it("removes escape sequences (an OSC hyperlink's URL with them), controls and bidi characters", () => {
    expect(sanitizeForTerminal(`${ESC}]8;;http://evil${ESC}\\click${ESC}]8;;${ESC}\\ ${ESC}[2J${ESC}[31mred\u0007\u202e`)).toBe("click red");
  });

  it("keeps tabs and line feeds, and a carriage return cannot overwrite the line", () => {
    expect(sanitizeForTerminal("a\tb\nc")).toBe("a\tb\nc");
    expect(sanitizeForTerminal("safe\rEVIL")).toBe("safe\nEVIL");
    expect(sanitizeForTerminal("a\r\nb")).toBe("a\nb");
  });
});

describe("writeLine", () => {
  it("writes the line with a newline", async () => {
    const out = new PassThrough();
    await writeLine(out, "hello");
    expect(String(out.read())).toBe("hello\n");
  });

  it("waits for the stream to drain when its buffer is full", async () => {
    const out = new PassThrough({ highWaterMark: 4 });
    let resolved = false;
    const written = writeLine(out, "a line longer than four bytes").then(() => {
      resolved = true;
    });
    // Nothing drains it yet: the write waits.
    await Promise.resolve();
    expect(resolved).toBe(false);
    out.resume();
    await written;
    expect(resolved).toBe(true);
  });

  it("rejects at once on a stream that is closed", async () => {
    const out = new Writable({ write: (_c, _e, done) => done() });
    out.destroy();
    await expect(writeLine(out, "x")).rejects.toThrow("the output is closed");
  });
});

describe("isBrokenPipe", () => {
  it("is true for EPIPE only", () => {
    expect(isBrokenPipe(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))).toBe(true);
    expect(isBrokenPipe(Object.assign(new Error("nope"), { code: "ENOENT" }))).toBe(false);
    expect(isBrokenPipe(null)).toBe(false);
  });
});
