/**
 * Does `groundwatch score` stream? Scores a small and a 10× larger generated input
 * through the real binary and compares peak resident memory (polled from /proc).
 * Constant memory means the two peaks are close, not 10× apart.
 *
 *   npm run bench:score-memory [-- --mb 100]
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rng } from "../src/core/rng.ts";

const ROOT = join(import.meta.dirname, "..");
const WORDS = "river tower budget council museum refund station library ticket harbour bridge engine forest garden market village school doctor patient winter summer".split(" ");

async function writeRows(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  const r = rng(42);
  const pick = (): string => WORDS[Math.floor(r() * WORDS.length)] ?? "river";
  let bytes = 0;
  let rows = 0;
  while (bytes < megabytes * 1e6) {
    const docs = Array.from({ length: 4 }, () => Array.from({ length: 8 }, () => `The ${pick()} near the ${pick()} opened in ${1900 + Math.floor(r() * 120)} and cost $${Math.floor(r() * 900)} million.`).join(" "));
    const line = JSON.stringify({ id: rows, context: docs, answer: `The ${pick()} opened in ${1900 + Math.floor(r() * 120)}. It cost $${Math.floor(r() * 900)} million.` }) + "\n";
    bytes += Buffer.byteLength(line);
    rows++;
    if (!out.write(line)) await new Promise<void>((res) => out.once("drain", () => res()));
  }
  await new Promise<void>((res) => out.end(res));
  return rows;
}

function peakRss(input: string): Promise<{ peakMb: number; seconds: number; code: number | null }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["bin/groundwatch.js", "score", "--input", input, "--output", "/dev/null"], { cwd: ROOT, stdio: ["ignore", "ignore", "ignore"] });
    let peak = 0;
    const timer = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m?.[1]) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {
        // the child has exited between polls
      }
    }, 50);
    child.on("close", (code) => {
      clearInterval(timer);
      resolve({ peakMb: peak, seconds: (Date.now() - started) / 1000, code });
    });
  });
}

const mbArg = process.argv.indexOf("--mb");
const large = mbArg >= 0 ? Number(process.argv[mbArg + 1]) : 100;
const dir = mkdtempSync(join(tmpdir(), "gw-mem-"));
try {
  const results: string[] = [];
  for (const mb of [large / 10, large]) {
    const path = join(dir, `rows-${mb}.jsonl`);
    const rows = await writeRows(path, mb);
    const r = await peakRss(path);
    results.push(`| ${(statSync(path).size / 1e6).toFixed(0)} MB | ${rows} | ${r.peakMb.toFixed(0)} MB | ${r.seconds.toFixed(1)} s | ${(rows / r.seconds).toFixed(0)} | ${r.code} |`);
  }
  console.log("| input | rows | peak RSS | wall time | rows/s | exit |");
  console.log("|---|---|---|---|---|---|");
  console.log(results.join("\n"));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
