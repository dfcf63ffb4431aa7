import { createServer } from "node:net";

/** A port nothing listens on: bound once on 127.0.0.1, then closed (an OTLP endpoint that is down). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
