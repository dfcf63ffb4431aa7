/** Replicas of the review API (collector/routes/review.ts) over spool directories, without the scorer: for the route and store tests. */
import type { Server } from "node:http";
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import express from "express";
import { createRefusal } from "../../src/collector/refuse.ts";
import type { PeerOutcome, PeersOptions } from "../../src/collector/peers.ts";
import { createPeers } from "../../src/collector/peers.ts";
import type { ReviewPeers } from "../../src/collector/routes/review.ts";
import { addReviewRoutes } from "../../src/collector/routes/review.ts";

/** A running replica: its base URL, its name, and close(). */
export interface ReviewReplica {
  readonly url: string;
  readonly replica: string;
  close(): Promise<void>;
}

/**
 * The collector's own peers (collector/peers.ts) over the base URLs `bases()` gives at each call (the
 * replicas of a test start one after another) and `options.urls`: the one bounded client, each reply's
 * x-groundwatch-replica read, itself left out; `count` told of each call's outcome.
 */
export function testPeers(self: string, token: string | undefined, bases: () => readonly string[], options: Partial<PeersOptions> & { readonly count?: (outcome: PeerOutcome) => void } = {}): ReviewPeers {
  const { count, ...rest } = options;
  const now = (): ReturnType<typeof createPeers> => createPeers({ ...rest, urls: [...bases(), ...(rest.urls ?? [])], replica: self, token }, { ...(count ? { count } : {}) });
  return {
    configured: true,
    fanOut: (path, query, parse) => now().fanOut(path, query, parse),
    post: (peer, path, body, parse) => now().post(peer, path, body, parse),
  };
}

/** Starts one replica's review API over `dir` (undefined: no spool), with `peers` when given. */
export async function startReviewReplica(options: { readonly dir: string | undefined; readonly replica: string; readonly token?: string; readonly peers?: (self: string) => ReviewPeers; readonly tls?: ReviewTls }): Promise<ReviewReplica> {
  const app = express();
  const refusal = createRefusal({ bodyLimit: 1024 * 1024, token: options.token, countRefused: () => undefined });
  addReviewRoutes(app, { refusal, reviewDir: options.dir, replica: options.replica, peers: options.peers?.(options.replica) });
  app.use((error: Error & { status?: number }, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    void next;
    res.status(error.status ?? 500).json({ error: error.message });
  });
  const server: Server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, app) : createServer(app);
  const host = options.tls?.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://${host}:${port}`,
    replica: options.replica,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A replica served over https: its certificate and key, and the address it listens on (default 127.0.0.1). */
export interface ReviewTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly host?: string;
}

/** Starts replicas that are each other's peers (a static list, as --peers gives it); over https with `tls`, their peers checked as `peers` says (ca, serverName), each call's outcome told to `peers.count`. */
export async function startReviewDeployment(
  dirs: ReadonlyArray<{ readonly dir: string; readonly replica: string; readonly tls?: ReviewTls }>,
  token?: string,
  peers: Partial<PeersOptions> & { readonly count?: (outcome: PeerOutcome) => void } = {},
): Promise<{ replicas: ReviewReplica[]; close(): Promise<void> }> {
  const urls: string[] = [];
  const replicas: ReviewReplica[] = [];
  for (const d of dirs) {
    const r = await startReviewReplica({ dir: d.dir, replica: d.replica, ...(token ? { token } : {}), ...(d.tls ? { tls: d.tls } : {}), peers: (self) => testPeers(self, token, () => urls, peers) });
    urls.push(r.url);
    replicas.push(r);
  }
  return { replicas, close: async () => void (await Promise.all(replicas.map((r) => r.close()))) };
}
