/** Replicas of the review API (collector/routes/review.ts) over spool directories, without the scorer: for the route and store tests. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createRefusal } from "../../src/collector/refuse.ts";
import type { ReviewPeerFailure, ReviewPeers } from "../../src/collector/routes/review.ts";
import { addReviewRoutes } from "../../src/collector/routes/review.ts";

/** A running replica: its base URL, its name, and close(). */
export interface ReviewReplica {
  readonly url: string;
  readonly replica: string;
  close(): Promise<void>;
}

/**
 * Peers as the collector's peers module calls them (a test stand-in: the same headers, each reply's
 * x-groundwatch-replica read, itself left out): every base URL `bases()` gives, in parallel.
 */
export function testPeers(self: string, token: string | undefined, bases: () => readonly string[]): ReviewPeers {
  return {
    configured: true,
    async fanOut<T>(path: string, query: URLSearchParams, parse: (body: unknown) => T) {
      const answered: Array<{ replica: string; value: T }> = [];
      const failed: ReviewPeerFailure[] = [];
      await Promise.all(
        bases().map(async (base) => {
          try {
            const res = await fetch(`${base}${path}?${query.toString()}`, { headers: { "x-groundwatch-peer": "1", ...(token ? { authorization: `Bearer ${token}` } : {}) }, signal: AbortSignal.timeout(2000) });
            const replica = res.headers.get("x-groundwatch-replica") ?? undefined;
            if (replica === self) return;
            if (res.status === 401) return void failed.push({ peer: base, ...(replica ? { replica } : {}), reason: "unauthorized" });
            if (!res.ok || replica === undefined) return void failed.push({ peer: base, ...(replica ? { replica } : {}), reason: "bad_reply" });
            answered.push({ replica, value: parse(await res.json()) });
          } catch {
            failed.push({ peer: base, reason: "unreachable" });
          }
        }),
      );
      answered.sort((a, b) => a.replica.localeCompare(b.replica));
      return { local: self, answered, failed };
    },
  };
}

/** Starts one replica's review API over `dir` (undefined: no spool), with `peers` when given. */
export async function startReviewReplica(options: { readonly dir: string | undefined; readonly replica: string; readonly token?: string; readonly peers?: (self: string) => ReviewPeers }): Promise<ReviewReplica> {
  const app = express();
  const refusal = createRefusal({ bodyLimit: 1024 * 1024, token: options.token, countRefused: () => undefined });
  addReviewRoutes(app, { refusal, reviewDir: options.dir, replica: options.replica, token: options.token, peers: options.peers?.(options.replica) });
  app.use((error: Error & { status?: number }, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    void next;
    res.status(error.status ?? 500).json({ error: error.message });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    replica: options.replica,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Starts replicas that are each other's peers (a static list, as --peers gives it). */
export async function startReviewDeployment(dirs: ReadonlyArray<{ readonly dir: string; readonly replica: string }>, token?: string): Promise<{ replicas: ReviewReplica[]; close(): Promise<void> }> {
  const urls: string[] = [];
  const replicas: ReviewReplica[] = [];
  for (const d of dirs) {
    const r = await startReviewReplica({ dir: d.dir, replica: d.replica, ...(token ? { token } : {}), peers: (self) => testPeers(self, token, () => urls) });
    urls.push(r.url);
    replicas.push(r);
  }
  return { replicas, close: async () => void (await Promise.all(replicas.map((r) => r.close()))) };
}
