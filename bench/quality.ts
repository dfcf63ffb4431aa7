/**
 * Quality benchmark of the scoring pipeline on every dev set: AUROC and balanced accuracy at the
 * backend's threshold with bootstrap 95% intervals, the false-alarm and miss rates at that
 * threshold, rows/s, and the word-overlap floor beside them; then the same rows scored by another
 * revision (by default the commit before, or HEAD while src/ or scripts/ have uncommitted
 * changes): before, after, the difference with its paired interval, and a verdict per set
 * (docs/benchmarks.md, "Reading the intervals and the verdict").
 *
 *   npm run bench:quality [-- --limit N] [-- --set NAME[,NAME…]] [-- --against REV | --no-against]
 *                         [-- --resamples N] [-- --json]
 *   npx tsx bench/quality.ts --after A.json --before B.json [--before-rev REV]
 *     reports two scorings bench/quality-tree.ts wrote (bench/quality-ab.sh does)
 *
 * This checkout is scored (and timed) in this process first; the other revision after it, in a
 * child process, so it never slows the timed run. Unscorable answers (no checkable claim, …) score
 * 0: the pipeline fails closed, so they count as "not grounded"; how many there were is printed per set.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { flag } from "./args.ts";
import type { Against } from "./quality-report.ts";
import { buildReport, formatReport } from "./quality-report.ts";
import { defaultAgainst, describeRevision, scoreRevision } from "./quality-revision.ts";
import type { TreeScores } from "./quality-tree.ts";
import { scoreTree, selectedSets } from "./quality-tree.ts";

const readScores = (path: string): TreeScores => JSON.parse(readFileSync(path, "utf8")) as TreeScores;

async function main(): Promise<void> {
  const limitArg = flag("limit");
  const setArg = flag("set");
  const sets = selectedSets(setArg?.split(","), limitArg === undefined ? Infinity : Number(limitArg));
  const resamples = Number(flag("resamples") ?? 1000);
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`--resamples: expected a positive integer, got ${flag("resamples")}`);
  const afterFile = flag("after");
  const beforeFile = flag("before");
  const after = afterFile ? readScores(afterFile) : await scoreTree(resolve(import.meta.dirname, ".."), sets);
  let against: Against | undefined;
  if (beforeFile) {
    const rev = flag("before-rev");
    against = { rev: rev ?? beforeFile, ...(rev ? describeRevision(rev) : { commit: "(a directory)", subject: beforeFile }), scores: readScores(beforeFile) };
  } else if (!process.argv.includes("--no-against")) {
    const rev = flag("against") ?? defaultAgainst();
    const { commit, subject } = describeRevision(rev);
    against = { rev, commit, subject, scores: scoreRevision(commit, { set: setArg, limit: limitArg }) };
  }
  const report = buildReport(sets, after, against, { resamples });
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "unknown";
  console.log(formatReport(report, `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, one thread, CPUs allowed: ${allowed}`));
}

await main();
