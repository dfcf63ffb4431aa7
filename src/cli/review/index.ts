import { COLLECTOR_ENV, REVIEW_ENV } from "../../config/env.ts";
import { parseFlags, runCommand } from "../shared/command.ts";
import { EXIT } from "../shared/exit-codes.ts";
import type { CommandIo } from "../shared/io.ts";
import { resolveReviewSource } from "./options.ts";
import { runTerminalReview } from "./terminal.ts";

/** Environment variables of `groundwatch review`: the spool directory and the reviewer (config/env.ts). */
export { REVIEW_ENV };

export const REVIEW_HELP = `groundwatch review — label the answers groundwatch spooled for review

Usage:
  groundwatch review [--dir D]... --reviewer NAME [--labels FILE]
  groundwatch review --url URL [--token T] --reviewer NAME
  groundwatch review --web [--dir D]... --reviewer NAME [--labels FILE] [--host H] [--port N] [--token T]
  groundwatch review --web --url URL [--collector-token T] --reviewer NAME [--host H] [--port N] [--token T]
  groundwatch review export (--dir D... [--labels FILE] | --url URL [--token T]) --out FILE [--only disagreements|all]
  groundwatch review delete --dir D --trace TRACE_ID

review (in the terminal) shows each answer this reviewer has not labelled yet, flagged answers
first, then the grounded sample, oldest first: route, time, verdict, score and cause, the question,
the answer, each document with the claims' evidence highlighted (cut around the evidence), and each
claim with its verdict, score and cause. Each label is appended to the labels file at once: quit at
any time, and a rerun shows only what is left.

  --dir D           a spool directory (repeat for several replicas; they merge);
                    default ${REVIEW_ENV.dir}
  --reviewer NAME   who is labelling, recorded on each label (default ${REVIEW_ENV.reviewer})
  --labels FILE     the labels file (default: labels.jsonl of every --dir read, the first one's
                    appended to)
  --url URL         a collector (groundwatch serve with --review-dir) instead of --dir: the answers
                    of every replica of its deployment, read over its API; each label is written by
                    the replica that holds the answer. Replicas that do not answer are named on
                    stderr. When someone else labelled the answer since you started, you are told
                    who and how (agree/disagree) and asked: y label anyway, n skip
  --token T         the collector's bearer token with --url (default ${COLLECTOR_ENV.token})

Keys at a terminal:
  a  agree with groundwatch's verdict     d  disagree
  c  mark claim by claim: j/k or arrows move, space toggles, 1 supported, 0 not supported,
     enter saves (the answer is grounded iff every claim is supported), esc goes back
  s  skip (shown again next time)         u  undo this session's last label
  q  quit (prints how many were labelled and how many are left); Ctrl-C quits too
Without a terminal, one command a line is read from standard input (scripts):
  a, d, s, u, q, or "c 1 0 1" (a 1 or 0 per claim, in order).

review --web serves the same review as a local page (loopback by default).
review export writes the reviewed answers as eval-set rows (eval --set, calibrate --set take them).
review delete removes one trace's spooled answers and their labels.

Exit codes: 0 ok, 1 failure while running, 2 bad flags.
`;

type Subcommand = (argv: readonly string[], io: CommandIo) => Promise<number>;

/**
 * The subcommands of `groundwatch review` other than the terminal review, each loaded only when it
 * runs (one line per subcommand file).
 */
const SUBCOMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  "--web": async () => (await import("./web.ts")).runReviewWeb,
  delete: async () => (await import("./delete.ts")).runReviewDelete,
  export: async () => (await import("./export.ts")).runReviewExport,
};

/** `groundwatch review` in the terminal. */
function runReviewTerminal(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("review", REVIEW_HELP, io, async () => {
    const { values } = parseFlags(argv, {
      dir: { type: "string", multiple: true },
      reviewer: { type: "string" },
      labels: { type: "string" },
      url: { type: "string" },
      token: { type: "string" },
    });
    const { store, reviewer } = resolveReviewSource({ ...values, collectorToken: values.token }, io);
    await runTerminalReview({ store, reviewer }, io);
    return EXIT.ok;
  });
}

/** Runs `groundwatch review` and its subcommands; resolves to the exit code. */
export async function runReview(argv: readonly string[], io: CommandIo): Promise<number> {
  const [first, ...rest] = argv;
  const load = first !== undefined && Object.hasOwn(SUBCOMMANDS, first) ? SUBCOMMANDS[first] : undefined;
  if (load) return (await load())(rest, io);
  if (argv.includes("--web") && Object.hasOwn(SUBCOMMANDS, "--web")) return (await (SUBCOMMANDS["--web"] as () => Promise<Subcommand>)())(argv.filter((a) => a !== "--web"), io);
  if (first !== undefined && !first.startsWith("-")) {
    io.stderr.write(`groundwatch review: unknown subcommand ${JSON.stringify(first.slice(0, 40))}\nRun "groundwatch review --help" for usage.\n`);
    return EXIT.usage;
  }
  return runReviewTerminal(argv, io);
}
