import type { Socket } from "node:net";
import { connect, createServer } from "node:net";
import { onTestFinished } from "vitest";

/** A port nothing listens on: bound once on 127.0.0.1, then closed (an OTLP endpoint that is down). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A raw TCP connection to an HTTP server (see rawConnection). */
export interface RawConnection {
  readonly socket: Socket;
  /** What the server has sent so far (latin1); always empty for a connection that does not read. */
  readonly answer: () => string;
  /** Resolves once connected (rejects if the connection fails). */
  readonly connected: Promise<void>;
  /** Resolves when the connection closes; a connection that does not read sees the server close it only when it is destroyed here. */
  readonly closed: Promise<void>;
}

/** How a raw connection behaves. */
export interface RawConnectionOptions {
  /** Whether it reads what the server sends (default true); false: a peer that never reads, so the server's answers pile up in the socket buffers. */
  readonly read?: boolean;
  /** The local address to connect from, e.g. 127.0.0.2 for a second loopback peer. */
  readonly localAddress?: string;
  /** Bytes written once connected. */
  readonly send?: string;
}

/** A raw TCP connection to `url`'s host and port, destroyed when the test ends. */
export function rawConnection(url: string, options: RawConnectionOptions = {}): RawConnection {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
  let answer = "";
  if (options.read !== false) socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
  const connected = new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  // Awaited or not: a failed connection is what `connected` says, never an unhandled rejection.
  connected.catch(() => undefined);
  socket.on("error", () => undefined);
  if (options.send !== undefined) socket.write(options.send);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  onTestFinished(() => void socket.destroy());
  return { socket, answer: () => answer, connected, closed };
}
