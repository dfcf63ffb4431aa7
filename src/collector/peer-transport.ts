/**
 * The transport under the bounded client (net/bounded-fetch.ts, its `fetch` option) for peers called
 * over https with the collector's own CA and a server name: Node's global fetch takes neither, and a
 * headless Service's peers are dialled by pod address, which no certificate names. It only moves
 * bytes: every bound (time, size, abort) stays the bounded client's. A list may mix http and https peers.
 * A request may carry a body given whole (a string or bytes: a forwarded label), sent with its length.
 */
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** How a peer's certificate is checked: against `ca` (default Node's trust store) for `serverName` (default the URL's host). */
export interface PeerTlsOptions {
  readonly ca?: Buffer | undefined;
  readonly serverName?: string | undefined;
}

/** A status that carries no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** The response's headers as a Headers (repeated ones joined as Node joins them). */
function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** A request body given whole, as bytes; undefined for none (a stream or form is not a peer's). */
function bodyOf(body: RequestInit["body"]): Buffer | undefined | TypeError {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new TypeError("a peer request's body is a string or bytes");
}

/** A fetch for requests over http, or https with `tls`'s CA and server name. */
export function peerTransport(tls: PeerTlsOptions): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const https = url.protocol === "https:";
    if (!https && url.protocol !== "http:") return Promise.reject(new TypeError(`unsupported protocol ${url.protocol}`));
    const body = bodyOf(init?.body);
    if (body instanceof TypeError) return Promise.reject(body);
    return new Promise<Response>((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      if (body !== undefined) headers["content-length"] = String(body.length);
      const secure = https ? { ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.serverName ? { servername: tls.serverName } : {}) } : {};
      const req = (https ? httpsRequest : httpRequest)(
        url,
        { method: init?.method ?? "GET", headers, ...secure, ...(init?.signal ? { signal: init.signal } : {}) },
        (res) => {
          const status = res.statusCode ?? 502;
          const reply = NO_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          if (reply === null) res.resume();
          resolve(new Response(reply, { status, headers: headersOf(res) }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }) as typeof fetch;
}
