import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { EvalReport } from "../../src/cli/eval/types.ts";
import type { CliRun } from "./cli.ts";
import { runCli, tempDir } from "./cli.ts";

/** One document, an answer it supports and one it does not: the eval tests' rows. */
export const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
export const GOOD = "Unopened items may be returned within 30 days of delivery.";
export const BAD = "Items may be returned within 90 days in any condition.";

/** Writes an eval set (JSONL) into a temporary directory; returns its path. */
export function set(rows: unknown[]): string {
  const path = join(tempDir(), "eval.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

/** `total` rows on one document, the first `bad` of them answered wrongly. */
export const rows = (bad: number, total = 10): unknown[] => Array.from({ length: total }, (_, i) => ({ id: `q${i}`, question: "How long can I return items?", context: [DOC], answer: i < bad ? BAD : GOOD }));

/** Every report eval writes, read back. */
export interface Reports {
  json: EvalReport;
  md: string;
  html: string;
  junit: string;
}

export function reports(out: string): Reports {
  const read = (name: string): string => readFileSync(join(out, name), "utf8");
  return { json: JSON.parse(read("report.json")) as EvalReport, md: read("report.md"), html: read("report.html"), junit: read("junit.xml") };
}

/** Runs eval on the offline backend into a fresh --out; returns the run and its reports. */
export async function evalRun(setPath: string, flags: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliRun & Reports> {
  const out = tempDir();
  const run = await runCli(["eval", "--set", setPath, "--out", out, "--backend", "offline", ...flags], options);
  expect(existsSync(join(out, "report.json")), run.stderr).toBe(true);
  return { ...run, ...reports(out) };
}

/** The failures attribute of a JUnit element (testsuites, or the suite with that name). */
export function junitFailures(junit: string, suite?: string): number {
  const re = suite ? new RegExp(`<testsuite name="${suite}" [^>]*failures="(\\d+)"`) : /<testsuites [^>]*failures="(\d+)"/;
  return Number(re.exec(junit)?.[1] ?? NaN);
}
