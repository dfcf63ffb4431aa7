import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { makeOutputDir, writeOutputFile } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import { reportHtml } from "./html.ts";
import { reportJunit } from "./junit.ts";
import { reportMarkdown } from "./markdown.ts";
import type { EvalReport } from "./types.ts";

/**
 * Writes report.json, report.md, junit.xml and report.html to `out` (checked before the run),
 * appends report.md to $GITHUB_STEP_SUMMARY when set, and prints it.
 */
export function writeReports(out: string, report: EvalReport, io: CommandIo): void {
  makeOutputDir("--out", out);
  const md = reportMarkdown(report);
  writeOutputFile("--out", resolve(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeOutputFile("--out", resolve(out, "report.md"), md);
  writeOutputFile("--out", resolve(out, "junit.xml"), reportJunit(report));
  writeOutputFile("--out", resolve(out, "report.html"), reportHtml(report));
  if (io.env.GITHUB_STEP_SUMMARY) {
    // The summary is a courtesy copy: failing to append it must not hide the gate's result.
    try {
      appendFileSync(io.env.GITHUB_STEP_SUMMARY, md);
    } catch (error) {
      io.stderr.write(`groundwatch eval: WARNING: cannot append to $GITHUB_STEP_SUMMARY ${sanitizeForTerminal(io.env.GITHUB_STEP_SUMMARY)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    }
  }
  io.stdout.write(md);
  io.stdout.write(`\nreports in ${out}: report.json, report.md, junit.xml, report.html\n`);
}
