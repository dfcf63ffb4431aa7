/**
 * An express app that streams server-sent events as a RAG proxy does, for guardSse's tests: the same
 * handler on a guarded route and on a plain one, so a test can compare the bytes each sends. The
 * handler writes its writes one per turn of the event loop (or when `gate` lets it), and stops when
 * the client goes away (`res.on("close")`), as the docs tell a handler to.
 */
import type { AddressInfo } from "node:net";
import express from "express";
import type { Request, Response } from "express";
import { onTestFinished } from "vitest";

export interface SseAppHandler {
  /** What the handler writes, in order (each one res.write call). */
  readonly writes: ReadonlyArray<string | Buffer>;
  /** Awaited before write i (default: the next turn of the event loop). */
  readonly gate?: (i: number) => Promise<void>;
  /** Set the content type with writeHead instead of setHeader. */
  readonly writeHead?: boolean;
  /** The content type (default text/event-stream). */
  readonly contentType?: string;
}

export interface SseApp {
  /** Base URL; the guarded route is /guarded/:id, the same handler unguarded /plain/:id. */
  readonly url: string;
  /** Requests whose response closed before the handler ended it (the handler saw the client go). */
  readonly closedEarly: () => number;
}

type Middleware = (req: Request, res: Response, next: () => void) => void;

/** Starts the app on a free port; closed when the test ends. */
export async function startSseApp(middleware: Middleware, handler: SseAppHandler): Promise<SseApp> {
  const app = express();
  let closedEarly = 0;
  const handle = async (_req: Request, res: Response): Promise<void> => {
    let closed = false;
    res.on("close", () => {
      if (!res.writableEnded) {
        closed = true;
        closedEarly += 1;
      }
    });
    const type = handler.contentType ?? "text/event-stream";
    if (handler.writeHead) res.writeHead(200, { "content-type": type, "cache-control": "no-cache" });
    else res.setHeader("content-type", type);
    for (let i = 0; i < handler.writes.length; i++) {
      await (handler.gate ? handler.gate(i) : new Promise<void>((resolve) => setImmediate(resolve)));
      if (closed) return;
      res.write(handler.writes[i]);
    }
    if (!closed) res.end();
  };
  app.get("/guarded/:id", middleware as express.RequestHandler, (req, res) => void handle(req, res));
  app.get("/plain/:id", (req, res) => void handle(req, res));
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closedEarly: () => closedEarly };
}
