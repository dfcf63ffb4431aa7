import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { HttpError } from "../net/http-error.ts";
import { sizeBytes } from "../config/parse.ts";

/** A body limit resolved by the collector's options (config/parse.ts parseByteSize checked it), in bytes. */
export function parseSize(size: string): number {
  const bytes = sizeBytes(size);
  if (bytes === undefined) throw new RangeError(`not a size: ${size}`);
  return bytes;
}

/** The media type of a Content-Type header, lowercased, without parameters ("" when absent). */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function decoderFor(encoding: string): Transform | undefined {
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/**
 * Refuses a body that is declared too large before any of it is read: a Content-Length over `limit`
 * (compressed or not) gets 413 at once, however long the client would take to send it.
 */
export function checkDeclaredLength(req: IncomingMessage, limit: number, limitText: string): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) throw new HttpError(413, `the body is larger than the limit of ${limitText}`);
}

/**
 * Reads a request body of at most `limit` bytes, undoing gzip, deflate or br Content-Encoding (also
 * bounded by `limit`, so a decompression bomb stops at the limit). Over the limit: HttpError 413; an
 * unknown encoding: 415; a corrupt compressed stream: 400. The caller answers with
 * `Connection: close`, so what the client still sends is never read.
 */
export function readBody(req: IncomingMessage, limit: number, limitText: string): Promise<Buffer> {
  checkDeclaredLength(req, limit, limitText);
  const encoding = String(req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const decoder = encoding === "identity" || encoding === "" ? undefined : decoderFor(encoding);
  if (encoding !== "identity" && encoding !== "" && !decoder) return Promise.reject(new HttpError(415, `unsupported content-encoding ${JSON.stringify(encoding)}: send gzip, deflate, br or none`));
  const tooLarge = (): HttpError => new HttpError(413, `the body is larger than the limit of ${limitText}`);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let produced = 0;
    let done = false;
    const finish = (error: Error | undefined): void => {
      if (done) return;
      done = true;
      req.off("data", onRaw);
      req.off("data", onData);
      if (decoder) {
        req.unpipe(decoder);
        decoder.off("data", onData);
        decoder.on("error", () => undefined);
        if (error) decoder.destroy();
      }
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, produced));
    };
    const onData = (chunk: Buffer): void => {
      if (done) return;
      produced += chunk.length;
      if (produced > limit) return finish(tooLarge());
      chunks.push(chunk);
    };
    // The compressed bytes are bounded too: a client cannot stream an endless body that inflates to little.
    const onRaw = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) finish(tooLarge());
    };
    req.on("error", (error) => finish(error));
    req.on("aborted", () => finish(new HttpError(400, "the request was aborted")));
    if (decoder) {
      req.on("data", onRaw);
      decoder.on("data", onData);
      decoder.on("error", (error) => finish(new HttpError(400, `the body is not valid ${encoding} data (${error.message})`)));
      decoder.on("end", () => finish(undefined));
      req.pipe(decoder);
    } else {
      req.on("data", onData);
      req.on("end", () => finish(undefined));
    }
  });
}

/** readBody, parsed as JSON: a body that is not JSON is HttpError 400 (the one JSON reader of the JSON endpoints). */
export async function readJsonBody(req: IncomingMessage, limit: number, limitText: string): Promise<unknown> {
  const body = await readBody(req, limit, limitText);
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    throw new HttpError(400, "the body is not valid JSON");
  }
}
