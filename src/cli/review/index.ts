import { UsageError, runCommand } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import type { CommandIo } from "../io.ts";

/**
 * `groundwatch review`: one command folder, a subcommand a file. Minimal dispatcher from part S
 * (only `delete`); part T owns this file and merges its subcommands in.
 */
export const REVIEW_HELP = `groundwatch review — label spooled answers; manage the review spool

Usage:
  groundwatch review delete --dir DIR --trace TRACE_ID [--labels FILE]

Exit codes: 0 ok, 1 failure, 2 bad flags.
`;

/** Runs `groundwatch review <subcommand>`. */
export async function runReview(argv: readonly string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "delete":
      return (await import("./delete.ts")).runReviewDelete(rest, io);
    case "--help":
    case "-h":
      io.stdout.write(REVIEW_HELP);
      return EXIT.ok;
    default:
      return runCommand("review", REVIEW_HELP, io, () => Promise.reject(new UsageError(`unknown subcommand ${JSON.stringify(sub ?? "")}`, true)));
  }
}
