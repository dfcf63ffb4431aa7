import { main } from "./main.ts";

// The process entry point: the only place that touches process globals.

// `groundwatch score rows.jsonl | head`: once the reader has gone, stop quietly, as Unix tools do
// (no "write EPIPE" error, no stack trace). The results already written are what was asked for.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    throw error;
  });
}
main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`groundwatch: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
