/**
 * Collector throughput and overload behaviour, against the real `groundwatch serve`
 * process (its memory is polled from /proc):
 *  1. 60 s of sustained load at 5% sampling: observations/s accepted, peak RSS;
 *  2. 30 s at 100% sampling, offered as fast as the clients can send — at least 10× what
 *     the scorer can take: the share answered 429, whether the process survives, peak RSS.
 *
 *   npm run bench:collector [-- --seconds 60]
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const BATCH = 10;
const CONCURRENCY = 8;
const DOCS = ["Returns: You may return most new, unopened items within 30 days of delivery for a full refund.", "Shipping: Standard shipping is free on orders over $50."];

function start(rate: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["bin/groundwatch.js", "serve", "--port", "0", "--sample-rate", String(rate), "--backend", "offline"], { cwd: ROOT, env: { ...process.env, HF_HOME: "/nonexistent" }, stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m?.[1]) resolve({ child, port: Number(m[1]) });
    });
    child.on("exit", (code) => reject(new Error(`collector exited ${code}: ${err}`)));
  });
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function load(port: number, pid: number, seconds: number): Promise<{ accepted: number; rejected429: number; other: number; peakRss: number; alive: boolean }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const counts = { accepted: 0, rejected429: 0, other: 0 };
  let peakRss = 0;
  const poll = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid))), 200);
  const end = Date.now() + seconds * 1000;
  let n = 0;
  const send = (): Promise<void> =>
    new Promise((resolve) => {
      const rows = Array.from({ length: BATCH }, () => ({ route: `/api/r${n++ % 5}`, context: DOCS, answer: `You can return unopened items within ${n % 2 ? 30 : 90} days of delivery.` }));
      const body = JSON.stringify(rows);
      const req = request({ host: "127.0.0.1", port, path: "/v1/observations", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode === 202) counts.accepted += BATCH;
          else if (res.statusCode === 429) counts.rejected429 += BATCH;
          else counts.other += BATCH;
          resolve();
        });
      });
      req.on("error", () => {
        counts.other += BATCH;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < end) await send();
  }));
  clearInterval(poll);
  agent.destroy();
  let alive = true;
  try {
    alive = (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  } catch {
    alive = false;
  }
  return { ...counts, peakRss, alive };
}

async function stats(port: number): Promise<{ scored: number; dropped: number; failed: number; seen: number; sampled: number; notSampled: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sum = (name: string): number => [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)`, "gm"))].reduce((a, m) => a + Number(m[1]), 0);
  return { sampled: sum("groundwatch_observations_sampled_total"), notSampled: sum("groundwatch_observations_not_sampled_total"), seen: sum("groundwatch_observations_seen_total"), scored: sum("groundwatch_observations_scored_total"), dropped: sum("groundwatch_observations_dropped_total"), failed: sum("groundwatch_observations_failed_total") };
}

async function main(): Promise<void> {
  const i = process.argv.indexOf("--seconds");
  const seconds = i >= 0 ? Number(process.argv[i + 1]) : 60;
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; ${CONCURRENCY} keep-alive clients posting batches of ${BATCH}`);
  console.log("");
  console.log("| phase | duration | sampling | offered obs/s | accepted obs/s | answered 429 | scored obs/s | peak RSS | alive after | accounting after the run |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const [label, rate, secs] of [["sustained", 0.05, seconds], ["overload", 1, Math.round(seconds / 2)]] as const) {
    const { child, port } = await start(rate);
    const r = await load(port, child.pid ?? 0, secs);
    await new Promise((res) => setTimeout(res, 1500));
    const s = await stats(port);
    const offered = r.accepted + r.rejected429 + r.other;
    child.kill("SIGTERM");
    await new Promise((res) => child.once("exit", res));
    console.log(
      `| ${label} | ${secs} s | ${rate} | ${(offered / secs).toFixed(0)} | ${(r.accepted / secs).toFixed(0)} | ${((100 * r.rejected429) / Math.max(1, offered)).toFixed(1)}% | ${(s.scored / secs).toFixed(0)} | ${r.peakRss.toFixed(0)} MB | ${r.alive ? "yes" : "NO"} | seen ${s.seen} = sampled ${s.sampled} + not sampled ${s.notSampled}; sampled = scored ${s.scored} + dropped ${s.dropped} + failed ${s.failed}${s.sampled === s.scored + s.dropped + s.failed ? "" : ` + ${s.sampled - s.scored - s.dropped - s.failed} pending`} |`,
    );
  }
}

await main();
