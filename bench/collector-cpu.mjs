#!/usr/bin/env node
// CPU time of the `groundwatch serve` processes that `npm run bench:collector` starts, one per
// phase, read from /proc (Linux): with the bench's accepted and scored counts it gives observations
// per CPU-second, i.e. per core — the sizing figures of docs/deploy.md. The bench's load clients run
// on the same machine, so wall-clock obs/s alone would understate what one core of a collector takes.
//
//   npm run bench:collector-cpu -- [bench:collector arguments, e.g. --seconds 20]
//
// Prints the bench's table, then one line per collector process: its CPU seconds (user + system,
// all threads: HTTP ingest, joining, and the scoring worker) over its lifetime.
import { spawn } from "node:child_process";
import console from "node:console";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { clearInterval, setInterval } from "node:timers";

const ROOT = join(import.meta.dirname, "..");
const TICKS = 100; // USER_HZ: 100 on Linux x86-64 and arm64

/** utime + stime in seconds, and the parent pid, of a process; undefined once it is gone. */
function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS };
  } catch {
    return undefined;
  }
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** Whether `pid` descends from `ancestor` (tsx runs the bench in a child process of its own). */
function descends(pid, ancestor) {
  for (let p = pid, hops = 0; p > 1 && hops < 8; hops++) {
    const cpu = cpuOf(p);
    if (!cpu) return false;
    if (cpu.ppid === ancestor) return true;
    p = cpu.ppid;
  }
  return false;
}

const bench = spawn(process.execPath, [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), "bench/collector.ts", ...process.argv.slice(2)], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
/** pid → { first seen, last CPU seconds } of each serve process the bench started. */
const seen = new Map();
const poll = setInterval(() => {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const cpu = cpuOf(pid);
    if (!cpu) continue;
    if (!seen.has(pid) && !(cmdline(pid).includes("bin/groundwatch.js serve") && descends(pid, bench.pid))) continue;
    const entry = seen.get(pid) ?? { since: Date.now(), seconds: 0 };
    entry.seconds = cpu.seconds;
    entry.until = Date.now();
    seen.set(pid, entry);
  }
}, 100);
bench.on("exit", (code) => {
  clearInterval(poll);
  console.log("");
  let i = 0;
  for (const [pid, e] of seen) console.log(`collector ${++i} (pid ${pid}): ${e.seconds.toFixed(1)} CPU seconds over ${((e.until - e.since) / 1000).toFixed(1)} s alive`);
  process.exit(code ?? 1);
});
