import type { Server } from "node:http";
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { Server as TlsServer } from "node:tls";
import type { Express, NextFunction, Request, RequestHandler, Response } from "express";
import type { HandshakeRefusal } from "./connections.ts";
import { answerAndClose, guardHandshakes, limitPerAddress } from "./connections.ts";
import { isLoopbackHostHeader } from "../net/bind-policy.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";
import { COLLECTOR_ENV } from "../config/env.ts";

/** Binding the port failed: the message names port, address and why; `systemCode` is the system's (EADDRINUSE, EACCES, …). */
export class ListenError extends GroundwatchError {
  override readonly name = "ListenError";
  override readonly code = "listen";
  constructor(
    message: string,
    readonly systemCode: string | undefined,
  ) {
    super(message);
  }
}

/** Why a connection was closed before a request reached the app (groundwatch.collector.refused's reason). */
export type ConnectionRefusal = "too_many_connections" | "too_many_per_address" | HandshakeRefusal;

/** How the collector's HTTP server listens: address, timeouts and connection caps (see CollectorOptions). */
export interface HttpServerOptions {
  /** Port to bind (0 = any free port). */
  readonly port: number;
  /** Address to bind. */
  readonly host: string;
  /** Longest wait for a request's headers, ms; with TLS, also for the handshake, from connection. */
  readonly headersTimeoutMs: number;
  /** Longest wait for a whole request (headers and body), ms. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open, ms. */
  readonly keepAliveTimeoutMs: number;
  /** Most connections open at once; one over it is closed at once. */
  readonly maxConnections: number;
  /** Most connections open at once from one address (an IPv6 /64); one over it is closed at once. */
  readonly maxConnectionsPerAddress: number;
  /** The certificate and key to serve https with (TlsCredentials); plain http without. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  /**
   * Told of each connection closed without the app answering: `too_many_connections`,
   * `too_many_per_address`, `timeout` (a TLS handshake, headers or body too slow, or an answer the
   * peer stopped reading for requestTimeoutMs), and with TLS `plain_http` (answered 400) or
   * `tls_handshake` (the handshake failed).
   */
  readonly onRefused: (reason: ConnectionRefusal) => void;
}

/** Whether an answer is being written on a connection (Node's server keeps it as the socket's `_httpMessage`). */
const responseInFlight = (socket: Duplex): boolean => (socket as Duplex & { _httpMessage?: unknown })._httpMessage != null;

/** The status line Node's own clientError handling answers with, by error code. */
function clientErrorStatus(code: string | undefined): string {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return "408 Request Timeout";
  if (code === "HPE_HEADER_OVERFLOW") return "431 Request Header Fields Too Large";
  return "400 Bad Request";
}

/**
 * Listens on port and host with explicit timeouts and connection caps (Node's defaults let a body
 * trickle in for 300 s, take any number of connections and keep a socket answered 408 open until
 * the peer closes it); a failure (the port in use, no permission) rejects with a ListenError saying so.
 * Every connection closed for a timeout or an error is closed whatever the peer does, so its slot
 * comes back.
 */
export function listen(app: Express, options: HttpServerOptions): Promise<Server> {
  const { port, host } = options;
  // Timeouts are checked this often (Node's default, 30 s, would let a short timeout run far over).
  const checkEveryMs = Math.max(50, Math.min(30_000, Math.floor(options.headersTimeoutMs / 4)));
  const settings = {
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkEveryMs,
  };
  // Not app.listen(): Express 5 hands a listen error to the callback, which would then run as if listening.
  // With TLS, the handshake's deadline is guardHandshakes' (from connection, counted), not Node's handshakeTimeout.
  const https = options.tls ? createHttpsServer({ ...settings, cert: options.tls.cert, key: options.tls.key, handshakeTimeout: 0 }, app) : undefined;
  const server: Server = https ?? createServer(settings, app);
  server.maxConnections = options.maxConnections;
  server.on("drop", () => options.onRefused("too_many_connections"));
  limitPerAddress(server, options.maxConnectionsPerAddress, () => options.onRefused("too_many_per_address"));
  if (https) guardHandshakes(https, options.headersTimeoutMs, options.onRefused);
  // Nothing sent or read either way for requestTimeoutMs (and two checks, so that a request too slow
  // is answered 408 first) while an answer is being written: the peer has stopped reading (pipelined
  // requests whose answers fill the buffers). Idle keep-alive connections end here too (after
  // keepAliveTimeoutMs), uncounted.
  server.setTimeout(options.requestTimeoutMs + 2 * checkEveryMs, (socket: Duplex) => {
    if (responseInFlight(socket)) options.onRefused("timeout");
    socket.destroy();
  });
  // Node's own answer to a malformed or too slow request, counted when it is a timeout.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") options.onRefused("timeout");
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === "ECONNRESET" || !socket.writable || started) {
      socket.destroy();
      return;
    }
    answerAndClose(socket, `HTTP/1.1 ${clientErrorStatus(error.code)}\r\nConnection: close\r\n\r\n`);
  });
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off("listening", onListening);
      const why =
        error.code === "EADDRINUSE" ? "is already in use" : error.code === "EACCES" ? "needs privileges this process does not have" : error.code === "EADDRNOTAVAIL" ? `cannot be used: ${host} is not an address of this machine` : `cannot be used: ${error.message}`;
      reject(new ListenError(`port ${port} on ${host} ${why}`, error.code));
    };
    const onListening = (): void => {
      server.off("error", onError);
      resolve(server);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/** The URL a listening server answers on: http://address:port, or https:// with TLS (an IPv6 address in brackets). */
export function serverUrl(server: Server): string {
  const address = server.address() as AddressInfo;
  return `${server instanceof TlsServer ? "https" : "http"}://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
}

/** Stops a server at once: no new connections, and every open one closed. */
export function stopNow(server: Server): void {
  server.close();
  server.closeAllConnections();
}

/**
 * On a loopback bind a web page can reach the collector through DNS rebinding (its own name resolving
 * to 127.0.0.1): such requests carry the page's host name. This refuses any request whose Host is not
 * a loopback name with 421, telling `onRefused`; with a token or without, since a token is then the
 * only thing between the page and the collector.
 */
export function loopbackHostGuard(onRefused: (req: Request) => void): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (isLoopbackHostHeader(req.headers.host)) return next();
    onRefused(req);
    res.setHeader("Connection", "close");
    res.status(421).json({ error: `this collector listens on loopback and answers only requests addressed to localhost, 127.0.0.1 or [::1]; send one of those as Host (a proxy: its upstream Host), or bind another address (--host, with ${COLLECTOR_ENV.token})` });
  };
}
