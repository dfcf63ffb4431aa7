import { UsageError, runCommand } from "../command.ts";
import type { CommandIo } from "../io.ts";

const REVIEW_HELP = `groundwatch review — label spooled answers

Usage:
  groundwatch review --web --dir D... --reviewer NAME [--labels FILE] [--host H] [--port N] [--token T]

Run "groundwatch review --web --help" for the page's options.
`;

/** Dispatches `groundwatch review`: each subcommand's module loads only when it runs. */
export async function runReview(argv: readonly string[], io: CommandIo): Promise<number> {
  if (argv.includes("--web")) return (await import("./web.ts")).runReviewWeb(argv, io);
  return runCommand("review", REVIEW_HELP, io, () => {
    if (argv.includes("--help") || argv.includes("-h")) {
      io.stdout.write(REVIEW_HELP);
      return Promise.resolve(0);
    }
    throw new UsageError("give --web (the terminal review is not in this build)", true);
  });
}
