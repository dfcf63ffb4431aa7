/** guardSse's frame splitter and its ledger between frames and original-answer offsets, without an app or a scorer. */
import { describe, expect, it } from "vitest";
import { createSseSplitter, defaultTextFrame, frameJson, openAiFrameText, templateOf } from "../../src/sdk/guard-sse-frames.ts";
import type { SseFrame, SseTextKind } from "../../src/sdk/guard-sse-frames.ts";
import { createSseLedger } from "../../src/sdk/guard-sse-ledger.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const chunk = (content: string): string => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** Splits `text` written in pieces of `size` bytes, every frame's raw bytes and fields. */
function splitAll(text: string, size: number, max = 1 << 20): { raws: string[]; frames: SseFrame[]; rest: string } {
  const bytes = Buffer.from(text, "utf8");
  const s = createSseSplitter(max);
  const frames: SseFrame[] = [];
  for (let i = 0; i < bytes.length; i += size) frames.push(...s.push(bytes.subarray(i, i + size)).frames);
  return { raws: frames.map((f) => f.raw.toString("utf8")), frames, rest: s.rest().toString("utf8") };
}

describe("the SSE frame splitter", () => {
  const stream = `: a comment\n\n${chunk("Héllo wörld ✓ 😀.")}event: message\r\ndata: two\r\ndata: lines\r\n\r\ndata: cr\r\rdata: [DONE]\n\n`;

  it("gives the same frames, byte for byte, however the writes cut the bytes (multi-byte characters included)", () => {
    const whole = splitAll(stream, stream.length * 4);
    expect(whole.raws.join("") + whole.rest).toBe(stream);
    for (const size of [1, 2, 3, 5, 7, 64]) {
      const cut = splitAll(stream, size);
      expect(cut.raws.join("") + cut.rest).toBe(stream);
      expect(cut.frames.map((f) => [f.event, f.data])).toEqual(whole.frames.map((f) => [f.event, f.data]));
    }
    expect(whole.frames.map((f) => [f.event, f.data])).toEqual([
      [undefined, undefined],
      [undefined, JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "Héllo wörld ✓ 😀." }, finish_reason: null }] })],
      ["message", "two\nlines"],
      [undefined, "cr"],
      [undefined, "[DONE]"],
    ]);
  });

  it("keeps an unfinished last frame for the end, and the LF of a CRLF split from its CR with the frame after", () => {
    const s = createSseSplitter(1024);
    expect(s.push(Buffer.from("data: a\r\r")).frames.map((f) => f.raw.toString())).toEqual(["data: a\r\r"]);
    expect(s.push(Buffer.from("\ndata: b\n\ndata: c")).frames.map((f) => f.raw.toString())).toEqual(["\ndata: b\n\n"]);
    expect(s.rest().toString()).toBe("data: c");
  });

  it("stops at a frame over maxFrameBytes, handing back its bytes and the rest of the write", () => {
    const s = createSseSplitter(1024);
    const big = `data: ${"x".repeat(2000)}\n\n`;
    const out = s.push(Buffer.from(`data: ok\n\n${big}data: after\n\n`));
    expect(out.frames.map((f) => f.data)).toEqual(["ok"]);
    expect(out.overflow?.toString()).toBe(`${big}data: after\n\n`);
    expect(s.push(Buffer.from("data: later\n\n")).frames).toEqual([]);
    // a frame that grows over the limit across writes, without ever ending
    const t = createSseSplitter(1024);
    expect(t.push(Buffer.from(`data: ${"y".repeat(1000)}`)).overflow).toBeUndefined();
    expect(t.push(Buffer.from("y".repeat(100))).overflow?.length).toBe(1106);
  });

  it("splits in time linear in the bytes, however they are cut (N vs 4N)", () => {
    const make = (n: number): Buffer[] => {
      const text = Buffer.from(`${chunk("Returns within 30 days. ")}: c\r\n\r\n`.repeat(n));
      const parts: Buffer[] = [];
      for (let i = 0; i < text.length; i += 37) parts.push(text.subarray(i, i + 37));
      return parts;
    };
    const run = (parts: Buffer[]): number => {
      const s = createSseSplitter(262_144);
      let n = 0;
      for (const p of parts) n += s.push(p).frames.length;
      return n;
    };
    expectLinear("SSE splitting", measureGrowth(make, run, { n: 32, factor: 4, maxN: 256 }));
    // one frame of many small writes: no re-scan, no re-copy per write
    const one = (n: number): Buffer[] => Array.from({ length: n * 64 }, () => Buffer.from("ab"));
    expectLinear("one frame in small writes", measureGrowth(one, (parts) => run([Buffer.from("data: "), ...parts, Buffer.from("\n\n")]), { n: 16, factor: 4, maxN: 64 }));
  });
});

describe("reading an OpenAI frame", () => {
  it("finds the chat chunk's content, the Responses delta, and the Responses events that repeat the answer", () => {
    const read = (data: string | undefined) => openAiFrameText(frameJson(data));
    expect(read(chunk("hi").slice(6, -2))).toEqual({ delta: "hi", echo: false });
    expect(read('{"choices":[{"index":0,"delta":{"role":"assistant"}}]}')).toEqual({ delta: undefined, echo: false });
    expect(read('{"type":"response.output_text.delta","delta":"yo"}')).toEqual({ delta: "yo", echo: false });
    expect(read('{"type":"response.completed","response":{}}')).toEqual({ delta: undefined, echo: true });
    expect(read("[DONE]")).toEqual({ delta: undefined, echo: false });
    expect(read("{broken")).toEqual({ delta: undefined, echo: false });
    expect(read(undefined)).toEqual({ delta: undefined, echo: false });
  });

  it("synthesizes a text frame in the stream's own shape", () => {
    const chat = templateOf(frameJson(chunk("x").slice(6, -2))!);
    expect(defaultTextFrame("Hi", chat)).toBe(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n`);
    const resp = templateOf({ type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "x", sequence_number: 9 });
    expect(defaultTextFrame("Hi", resp)).toBe(`event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}\n\n`);
  });
});

/** A ledger over frames of `raw` bytes, counting what it writes. */
function ledgerOf(raw: Buffer) {
  const out: unknown[] = [];
  const l = createSseLedger({ write: (c) => out.push(c), frame: (text) => text });
  return { l, out, add: (_: undefined, delta?: string) => l.add(raw, delta, false) };
}

describe("the ledger between frames and answer offsets", () => {
  /** A ledger writing to a list: original frames as their text, synthesized ones as `<kind:text>`. */
  function ledger() {
    const out: string[] = [];
    const l = createSseLedger({ write: (c) => out.push(String(c)), frame: (text: string, kind: SseTextKind) => `<${kind}:${text}>` });
    const add = (raw: string, delta?: string, echo = false): void => l.add(Buffer.from(raw), delta, echo);
    return { l, out, add };
  }

  it("writes a frame once all its text is released, a frame without text after the text before it", () => {
    const { l, out, add } = ledger();
    add("role");
    add("A", "One. Tw");
    add("B", "o. ");
    add("ping");
    expect(out).toEqual(["role"]);
    l.release(5); // "One. " released: frame A straddles the boundary and waits
    expect(out).toEqual(["role"]);
    l.release(10);
    expect(out).toEqual(["role", "A", "B", "ping"]);
  });

  it("re-sends the released part of a straddling frame alone when a correction follows it", () => {
    const { l, out, add } = ledger();
    add("A", "One. Tw");
    add("B", "o. Three.");
    l.release(5);
    l.correct(5, 10, "");
    expect(out).toEqual(["<text:One. >"]);
    l.release(16);
    expect(out).toEqual(["<text:One. >", "<text:Three.>"]);
    expect(l.changed).toBe(true);
  });

  it("on a block, sends what was released and the replacement, drops later text but keeps frames without text in order", () => {
    const { l, out, add } = ledger();
    add("A", "One. Tw");
    l.release(5);
    add("B", "o.");
    l.block(5, "Sorry.");
    add("C", " Three.");
    add("finish");
    add("done-echo", undefined, true);
    add("[DONE]");
    expect(out).toEqual(["<text:One. >", "<replacement:Sorry.>", "finish", "[DONE]"]);
  });

  it("holds an echo of the whole answer to the end, and drops it when the answer was changed", () => {
    const passed = ledger();
    passed.add("A", "Fine.");
    passed.add("echo", undefined, true);
    passed.add("completed");
    passed.l.release(5);
    expect(passed.out).toEqual(["A"]);
    passed.l.finish();
    expect(passed.out).toEqual(["A", "echo", "completed"]);
    const corrected = ledger();
    corrected.add("A", "Bad.");
    corrected.add("echo", undefined, true);
    corrected.l.correct(0, 4, "");
    corrected.l.finish();
    expect(corrected.out).toEqual([]);
  });

  it("holds and releases frames in time linear in their number (N vs 4N): all held then released at once, or released as they come", () => {
    const raw = Buffer.from(chunk("word "));
    const held = (n: number): number => {
      const { l, out, add } = ledgerOf(raw);
      for (let i = 0; i < n; i++) add(undefined, "word ");
      l.release(n * 5);
      return out.length;
    };
    const streamed = (n: number): number => {
      const { l, out, add } = ledgerOf(raw);
      for (let i = 0; i < n; i++) {
        add(undefined, "word ");
        if (i % 3 === 2) l.release((i + 1) * 5);
      }
      l.finish();
      return out.length;
    };
    expectLinear("ledger, all held", measureGrowth((n) => n, held, { n: 256, factor: 4, maxN: 2048 }));
    expectLinear("ledger, streamed", measureGrowth((n) => n, streamed, { n: 256, factor: 4, maxN: 2048 }));
  });

  it("passes every held frame through as it came, and every later one", () => {
    const { l, out, add } = ledger();
    add("A", "One.");
    add("B", " Two.");
    l.passThrough();
    add("C", " Three.");
    expect(out).toEqual(["A", "B", "C"]);
  });
});
