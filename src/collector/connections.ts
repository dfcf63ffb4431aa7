import type { Server as HttpsServer } from "node:https";
import { isIPv6 } from "node:net";
import type { Server, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Duplex } from "node:stream";

/**
 * How long a connection answered with an error (408, 400, 431) may take to let the answer out before
 * it is destroyed, ms: a peer that never reads would otherwise hold it (and its connection slot)
 * forever, since Node's HTTP server keeps a socket half-open until the peer closes its side.
 */
export const CLOSE_GRACE_MS = 1000;

/**
 * The key a peer's connections are counted under: its IPv4 address (IPv4-mapped IPv6 too), or the
 * /64 prefix of its IPv6 address (one host is commonly given a whole /64).
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return "unknown";
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (v4 !== undefined) return v4;
  const bare = address.split("%")[0] ?? address;
  if (!isIPv6(bare)) return address;
  const groups = (s: string | undefined): string[] => (s ? s.split(":") : []);
  const [head, tail] = bare.split("::");
  let all = groups(head);
  if (tail !== undefined) {
    const after = groups(tail);
    // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) stands for two groups.
    const width = after.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
    all = [...all, ...Array.from({ length: Math.max(0, 8 - all.length - width) }, () => "0"), ...after];
  }
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Refuses a connection from a peer (addressKey) that already holds `max`: it is destroyed at once and
 * `onRefused` told. Counts are kept per server and dropped when a peer's last connection closes.
 */
export function limitPerAddress(server: Server, max: number, onRefused: () => void): void {
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const held = open.get(key) ?? 0;
    if (held >= max) {
      onRefused();
      socket.destroy();
      return;
    }
    open.set(key, held + 1);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/** Marks a connection the server answered and closed itself (a 408, 400 or 431 written to the socket). */
const ANSWERED = Symbol("groundwatch.answeredAtConnection");

/** Whether the server answered this connection itself (answerAndClose): its request, cut off, needs no answer and no count of its own. */
export function answeredAtConnection(socket: Duplex | null | undefined): boolean {
  return socket != null && (socket as Duplex & { [ANSWERED]?: true })[ANSWERED] === true;
}

/**
 * Sends `response` and closes the connection whatever the peer does: destroyed once the answer is
 * flushed, or after CLOSE_GRACE_MS when the peer does not read it.
 */
export function answerAndClose(socket: Duplex, response: string): void {
  (socket as Duplex & { [ANSWERED]?: true })[ANSWERED] = true;
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  socket.once("close", () => clearTimeout(timer));
  socket.end(response, () => socket.destroy());
}

/** Why a connection to the TLS port was closed before its handshake completed (counted; a client that hangs up is not). */
export type HandshakeRefusal = "timeout" | "plain_http" | "tls_handshake";

/** The answer to a plain-http request on the TLS port: said in plain http, so that the client shows it. */
export const PLAIN_HTTP_ANSWER = "this port serves https: send the request to https:// (a plain-http request reached a TLS port)\n";

/**
 * Holds the TLS port's handshakes to `deadlineMs` from connection, whatever the peer sends or does
 * not send (a deadline of its own rather than Node's handshakeTimeout, a socket idle timeout whose
 * refreshes are Node's business), so that a handshake that never completes cannot keep its
 * connection slot; counted as `timeout`. A plain-http request is answered 400 in plain http,
 * saying so; a failed handshake is counted (`tls_handshake`); a peer that hangs up is not. A server
 * closing (its closeIdleConnections) also closes the connections still in their handshake: they have
 * no request to finish.
 */
export function guardHandshakes(server: HttpsServer, deadlineMs: number, onRefused: (reason: HandshakeRefusal) => void): void {
  // Connections by peer address and port (unique among open connections), until their handshake is done.
  const pending = new Map<string, { readonly raw: Socket; readonly timer: NodeJS.Timeout }>();
  const keyOf = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string => `${s.remoteAddress ?? ""}|${s.remotePort ?? ""}`;
  /** The raw socket of a connection whose handshake ended, no longer timed. */
  const settle = (socket: TLSSocket): Socket | undefined => {
    const key = keyOf(socket);
    const entry = pending.get(key);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    pending.delete(key);
    return entry.raw;
  };
  server.on("connection", (raw: Socket) => {
    // Refused already (limitPerAddress).
    if (raw.destroyed) return;
    const key = keyOf(raw);
    const timer = setTimeout(() => {
      onRefused("timeout");
      raw.destroy();
    }, deadlineMs);
    pending.set(key, { raw, timer });
    raw.once("close", () => {
      clearTimeout(timer);
      if (pending.get(key)?.raw === raw) pending.delete(key);
    });
  });
  server.on("secureConnection", (socket: TLSSocket) => void settle(socket));
  server.on("tlsClientError", (error: NodeJS.ErrnoException, socket: TLSSocket) => {
    // The peer hung up (or this side cut it off, already counted): the close clears it.
    if (error.code === "ECONNRESET") return;
    const raw = settle(socket);
    if (error.code === "ERR_SSL_HTTP_REQUEST") {
      onRefused("plain_http");
      // The request came in with its first bytes and was read whole: no unread data turns the close into a reset.
      if (raw?.writable) answerAndClose(raw, `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(PLAIN_HTTP_ANSWER)}\r\nConnection: close\r\n\r\n${PLAIN_HTTP_ANSWER}`);
      return;
    }
    onRefused("tls_handshake");
  });
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = (): void => {
    closeIdle();
    for (const { raw, timer } of pending.values()) {
      clearTimeout(timer);
      raw.destroy();
    }
    pending.clear();
  };
}
