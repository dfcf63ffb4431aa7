/**
 * Two costs the fourth red-team pass found on the collector's main thread (issue 35), measured the
 * same way on any checkout whose APIs these are (copy this file into one for a before figure):
 *
 * - L7, the onnx batcher: CPU time to dispatch a queue of N pairs (one submission of N pairs of
 *   seeded lengths, a few identical, every slot free, no wait bound, batches of 32 that never settle:
 *   only the choosing of batches is timed), N = 2,000 / 8,000 / 32,000, the fastest of 5 runs each.
 * - M2, the review labels gauge: a labels file of about 60 MB (374,000 labels of 25,000 answers, 3
 *   reviewers), read by createLabelCounts as a scrape reads it; CPU time of each call to counts()
 *   until the counts are complete (the longest is how long one scrape holds the main thread), then
 *   of one call after 100 more labels were appended.
 *
 *   npx tsx bench/hardening.ts
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { rng } from "../src/core/rng.ts";
import { createDynamicBatcher } from "../src/workers/batcher.ts";
import { createLabelCounts } from "../src/review/labels-gauge.ts";

const ROOT = join(import.meta.dirname, "..");

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** CPU ms of `fn` (user + system of this process). */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

interface Pair {
  readonly key: string;
  readonly length: number;
}

function dispatchMs(n: number): number {
  const random = rng(n);
  const pairs: Pair[] = Array.from({ length: n }, (_, i) => {
    const length = 40 + Math.floor(random() * 2_000);
    return { key: i % 17 === 0 ? `same-${length}` : `pair-${i}`, length };
  });
  const batcher = createDynamicBatcher<Pair, number>({
    maxBatch: 32,
    waitMs: 0,
    slots: () => Number.MAX_SAFE_INTEGER,
    lengthOf: (p) => p.length,
    keyOf: (p) => p.key,
    run: () => new Promise<readonly number[]>(() => undefined),
  });
  const ms = cpuMs(() => void batcher.submit(pairs));
  if (batcher.queued !== 0) throw new Error(`${batcher.queued} pairs left queued`);
  return ms;
}

function labelLine(i: number, answers: number): string {
  const id = `answer-${i % answers}`;
  const reviewer = `reviewer-${Math.floor(i / answers) % 3}`;
  const label = (i * 7) % 3 === 0 ? 0 : 1;
  return `${JSON.stringify({ v: 1, id, reviewer, time: "2026-11-20T12:00:00.000Z", label, kind: "flagged", agreement: label === 0 ? "agree" : "disagree", note: "x".repeat(22) })}\n`;
}

function gauge(): { file: number; calls: number; cpu: number[]; afterAppend: number } {
  const dir = mkdtempSync(join(tmpdir(), "gw-bench-labels-"));
  try {
    const path = join(dir, "labels.jsonl");
    const total = 374_000;
    const chunk: string[] = [];
    writeFileSync(path, "");
    for (let i = 0; i < total; i++) {
      chunk.push(labelLine(i, 25_000));
      if (chunk.length === 10_000) appendFileSync(path, chunk.splice(0).join(""));
    }
    appendFileSync(path, chunk.join(""));
    let clock = 0;
    // Every call is a look: the interval is 0 and the clock moves on.
    const reader = createLabelCounts({ path, minIntervalMs: 0, now: () => (clock += 1) }) as { counts(): unknown; behind?: () => boolean };
    const cpu: number[] = [];
    do cpu.push(cpuMs(() => void reader.counts()));
    while (reader.behind?.() === true && cpu.length < 100_000);
    appendFileSync(path, Array.from({ length: 100 }, (_, i) => labelLine(total + i, 25_000)).join(""));
    const afterAppend = cpuMs(() => void reader.counts());
    return { file: statSync(path).size, calls: cpu.length, cpu, afterAppend };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, commit ${gitCommit()}, ${new Date().toISOString()}`);
console.log("");
console.log("| queued pairs | batcher: CPU ms to dispatch them all |");
console.log("|---|---|");
dispatchMs(2_000); // untimed: the first dispatch compiles the code
// The fastest of 5 runs of each size: the least disturbed by collection and other processes.
for (const n of [2_000, 8_000, 32_000]) console.log(`| ${n} | ${Math.min(...Array.from({ length: 5 }, () => dispatchMs(n))).toFixed(1)} |`);
const g = gauge();
console.log("");
console.log(`labels file: ${(g.file / 1e6).toFixed(1)} MB; calls to counts() until complete: ${g.calls}`);
console.log(`CPU ms per call: median ${quantile(g.cpu, 0.5).toFixed(1)}, p99 ${quantile(g.cpu, 0.99).toFixed(1)}, max ${Math.max(...g.cpu).toFixed(1)}, total ${g.cpu.reduce((a, b) => a + b, 0).toFixed(0)}`);
console.log(`one call after 100 more labels: ${g.afterAppend.toFixed(1)} ms CPU`);
