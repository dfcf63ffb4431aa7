import { COLLECTOR_ENV, REVIEW_ENV } from "../../config/env.ts";
import { numberFlag, parseFlags, runCommand } from "../shared/command.ts";
import { EXIT } from "../shared/exit-codes.ts";
import type { CommandIo } from "../shared/io.ts";
import { resolveReviewSource } from "./options.ts";
import { reportSessionReads } from "./skips.ts";
import { REVIEW_WEB_DEFAULT_PORT, startReviewWeb } from "./web-server.ts";

export const REVIEW_WEB_HELP = `groundwatch review --web — label spooled answers in the browser

Usage:
  groundwatch review --web [--dir D]... --reviewer NAME [--labels FILE]
                     [--host 127.0.0.1] [--port ${REVIEW_WEB_DEFAULT_PORT}] [--token T]
  groundwatch review --web --url URL [--collector-token T] --reviewer NAME [--host H] [--port N] [--token T]

Serves a local page that shows one spooled answer at a time (question, documents with the evidence
highlighted, each claim with its verdict, score and cause) and records your label in the labels
file. Keys: a agree with groundwatch, d disagree, c claim by claim (j/k move, space toggles, Enter
saves), s skip, u undo. Answers you labelled are not shown again; several spools (replicas) merge.

  --dir D           a spool directory (repeat for several replicas); default ${REVIEW_ENV.dir}
  --reviewer NAME   your name, written in every label (default ${REVIEW_ENV.reviewer})
  --labels FILE     the labels file (default: labels.jsonl of every --dir read, the first one's
                    appended to)
  --url URL         a collector (serve with --review-dir) instead of --dir: every replica's answers over
                    its API, each label written by the replica holding the answer
  --collector-token T  the collector's bearer token with --url (default ${COLLECTOR_ENV.token})
  --host H          address to bind (default 127.0.0.1); another than loopback needs --token
  --port N          port (default ${REVIEW_WEB_DEFAULT_PORT}; 0 picks a free one)
  --token T         a token (16 characters or more) every request must carry (default: ${REVIEW_ENV.token},
                    not the collector's token); open the page once as http://HOST:PORT/?token=T,
                    which opens a 12-hour session (its cookie holds a random id, not the token)

Ctrl-C stops. Exit codes: 0 ok, 1 the server could not start, 2 bad flags.
`;

/** Runs `groundwatch review --web` until SIGTERM/SIGINT; resolves to the exit code. */
export function runReviewWeb(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("review", REVIEW_WEB_HELP, io, async () => {
    const { values: args } = parseFlags(argv, {
      web: { type: "boolean" },
      dir: { type: "string", multiple: true },
      reviewer: { type: "string" },
      labels: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      url: { type: "string" },
      "collector-token": { type: "string" },
    });
    const { store, reviewer } = resolveReviewSource({ ...args, collectorToken: args["collector-token"] }, io);
    const port = numberFlag("port", args.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number");
    // The review page's own secret: the collector's GROUNDWATCH_TOKEN (ingest, /metrics) is never read here.
    const token = args.token ?? (io.env[REVIEW_ENV.token]?.trim() || undefined);
    const server = await startReviewWeb({
      store,
      dirs: [],
      reviewer,
      host: args.host,
      port: port ?? REVIEW_WEB_DEFAULT_PORT,
      token,
    });
    reportSessionReads("review", server, io.stderr);
    io.stderr.write(`groundwatch review: open ${server.url}${token ? "?token=… (your token)" : ""} — Ctrl-C stops\n`);
    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        server.close().then(done, done);
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });
    return EXIT.ok;
  });
}
