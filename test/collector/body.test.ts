import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { checkDeclaredLength, mediaType, parseSize, readBody } from "../../src/collector/body.ts";
import { HttpError } from "../../src/net/http-error.ts";

/** A request body stream with the given headers; `chunks` are written and the stream ended unless `open`. */
function request(headers: Record<string, string>, chunks: readonly Buffer[] = [], open = false): IncomingMessage & PassThrough {
  const stream = Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
  for (const c of chunks) stream.write(c);
  if (!open) stream.end();
  return stream;
}

/** The HTTP status readBody rejects with (or throws), or "ok". */
async function statusOf(read: () => Promise<Buffer>): Promise<number | "ok"> {
  try {
    await read();
    return "ok";
  } catch (e) {
    if (e instanceof HttpError) return e.status;
    throw e;
  }
}

describe("parseSize", () => {
  it.each([
    ["10b", 10],
    ["512kb", 512 * 1024],
    ["2mb", 2 * 1024 * 1024],
    ["2MB", 2 * 1024 * 1024],
    [" 64KB ", 64 * 1024],
  ])("reads %j as %d bytes", (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(["", "kb", "1.5mb", "-1kb", "1gb", "1e3b", "12", "1 kb", "0x10kb"])("refuses %j", (text) => {
    expect(() => parseSize(text)).toThrow(RangeError);
  });
});

describe("mediaType", () => {
  it("lowercases the type and drops its parameters, and is empty when absent", () => {
    expect(mediaType("Application/JSON; charset=utf-8")).toBe("application/json");
    expect(mediaType(undefined)).toBe("");
  });
});

describe("checkDeclaredLength", () => {
  it("refuses a declared Content-Length over the limit with 413 naming the limit, before anything is read", () => {
    const req = request({ "content-length": "1025" }, [], true);
    expect(() => checkDeclaredLength(req, 1024, "1kb")).toThrow(expect.objectContaining({ status: 413, message: "the body is larger than the limit of 1kb" }));
  });

  it("lets a declared length at the limit, or none, through", () => {
    expect(() => checkDeclaredLength(request({ "content-length": "1024" }), 1024, "1kb")).not.toThrow();
    expect(() => checkDeclaredLength(request({}), 1024, "1kb")).not.toThrow();
  });
});

describe("readBody: every body bounded by the limit, compressed or not", () => {
  it("reads a plain body up to the limit, whole", async () => {
    const body = Buffer.alloc(1024, "a");
    await expect(readBody(request({}, [body.subarray(0, 500), body.subarray(500)]), 1024, "1kb")).resolves.toEqual(body);
  });

  it("refuses a plain body one byte over the limit with 413, though no length was declared", async () => {
    expect(await statusOf(() => readBody(request({}, [Buffer.alloc(1025)]), 1024, "1kb"))).toBe(413);
  });

  it("stops a stream that never ends at the limit", async () => {
    const req = request({}, [Buffer.alloc(600), Buffer.alloc(600)], true);
    expect(await statusOf(() => readBody(req, 1024, "1kb"))).toBe(413);
  });

  it("throws 413 at once for a declared length over the limit", () => {
    expect(() => readBody(request({ "content-length": String(10 * 1024 * 1024) }, [], true), 1024, "1kb")).toThrow(HttpError);
  });

  it.each([
    ["gzip", gzipSync],
    ["x-gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("undoes %s", async (encoding, compress) => {
    const text = Buffer.from("Returns: unopened items within 30 days. ".repeat(10));
    await expect(readBody(request({ "content-encoding": encoding }, [compress(text)]), 1024, "1kb")).resolves.toEqual(text);
  });

  it("stops a decompression bomb at the limit: a small gzip body that inflates past it is 413", async () => {
    const bomb = gzipSync(Buffer.alloc(1024 * 1024));
    expect(bomb.length).toBeLessThan(2048);
    expect(await statusOf(() => readBody(request({ "content-encoding": "gzip" }, [bomb]), 64 * 1024, "64kb"))).toBe(413);
  });

  it("bounds the compressed bytes too: a stream of empty gzip members, which inflates to nothing, is 413 past the limit", async () => {
    const empty = gzipSync(Buffer.alloc(0));
    const members = Array.from({ length: Math.ceil(4096 / empty.length) + 1 }, () => empty);
    const req = request({ "content-encoding": "gzip" }, members, true);
    expect(await statusOf(() => readBody(req, 4 * 1024, "4kb"))).toBe(413);
  });

  it("refuses an unknown encoding with 415 and a corrupt compressed body with 400", async () => {
    expect(await statusOf(() => readBody(request({ "content-encoding": "zstd" }, [Buffer.from("x")]), 1024, "1kb"))).toBe(415);
    expect(await statusOf(() => readBody(request({ "content-encoding": "gzip" }, [Buffer.from("not gzip at all")]), 1024, "1kb"))).toBe(400);
  });

  it("answers 400 when the client aborts", async () => {
    const req = request({}, [Buffer.from("{")], true);
    const read = statusOf(() => readBody(req, 1024, "1kb"));
    req.emit("aborted");
    expect(await read).toBe(400);
  });
});
