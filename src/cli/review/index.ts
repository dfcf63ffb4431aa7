import type { CommandIo } from "../io.ts";
import { sanitizeForTerminal } from "../io.ts";
import { EXIT } from "../exit-codes.ts";

export const REVIEW_HELP = `groundwatch review — people review flagged answers; their labels become data

Usage:
  groundwatch review export --dir D... --out FILE [--labels FILE] [--only disagreements|all] [--reviewer NAME]

Run "groundwatch review <subcommand> --help" for a subcommand's options.
`;

/** Runs `groundwatch review`: dispatches to its subcommand (each loaded only when it runs); resolves to the exit code. */
export async function runReview(argv: readonly string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "export":
      return (await import("./export.ts")).runReviewExport(rest, io);
    case undefined:
    case "--help":
    case "-h":
      io.stdout.write(REVIEW_HELP);
      return sub === undefined ? EXIT.usage : EXIT.ok;
    default:
      io.stderr.write(`groundwatch review: unknown subcommand ${JSON.stringify(sanitizeForTerminal(sub))}\nRun "groundwatch review --help" for usage.\n`);
      return EXIT.usage;
  }
}
