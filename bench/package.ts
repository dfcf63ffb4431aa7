// The package as a user installs it: tarball size, installed size (offline from the lockfile's
// versions, and a real `npm install` of the tarball from the registry with an empty cache and no
// configuration), and CLI start-up against bare Node in the same run.
//
//   npm run bench:package            (needs the npm registry for the online install; skipped with --offline)
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createConsumer } from "../test/helpers/consumer.ts";

const ROOT = join(import.meta.dirname, "..");
const RUNS = 15;
const offline = process.argv.includes("--offline");

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const du = (dir: string): number => Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const consumer = createConsumer({ deps: [] });
try {
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--dry-run", "--json"], { cwd: ROOT, encoding: "utf8" })) as Array<{ size: number; unpackedSize: number; entryCount: number }>;
  const installed = du(join(consumer.dir, "node_modules"));
  const own = du(join(consumer.dir, "node_modules", "groundwatch"));
  const count = execFileSync("npm", ["ls", "--all", "--parseable"], { cwd: consumer.dir, encoding: "utf8" }).split("\n").filter(Boolean).length - 1;
  console.log(`tarball: ${mb(packed!.size)} packed, ${mb(packed!.unpackedSize)} unpacked, ${packed!.entryCount} files`);
  console.log(`installed (npm ci --offline, this lockfile's versions): node_modules ${mb(installed)} (groundwatch itself ${mb(own)}), ${count} packages`);

  if (!offline) {
    // What `npm install groundwatch` does for a user: registry only, empty cache, no .npmrc, no env.
    const dir = mkdtempSync(join(tmpdir(), "groundwatch-online-"));
    const cache = mkdtempSync(join(tmpdir(), "groundwatch-npm-cache-"));
    try {
      writeFileSync(join(dir, "package.json"), '{ "name": "fresh", "version": "1.0.0", "private": true }\n');
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_|^ONNXRUNTIME_/i.test(k)));
      const t = performance.now();
      const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--cache", cache, consumer.tarball], { cwd: dir, env, encoding: "utf8" });
      const s = (performance.now() - t) / 1000;
      if (r.status !== 0) console.log(`online npm install of the tarball FAILED (exit ${r.status}):\n${r.stderr}`);
      else console.log(`online npm install of the tarball (empty cache, no config): ${s.toFixed(1)} s, node_modules ${mb(du(join(dir, "node_modules")))}, onnxruntime-node installed: ${spawnSync("node", ["-e", "require.resolve('onnxruntime-node')"], { cwd: dir }).status === 0}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
    }
  }

  // Start-up, interleaved so that machine noise hits every command alike.
  copyFileSync(join(ROOT, "examples", "answers.jsonl"), join(consumer.dir, "answers.jsonl"));
  const bin = join(consumer.dir, "node_modules", "groundwatch", "bin", "groundwatch.js");
  const commands: Array<[string, string[]]> = [
    ["node -e 0", ["-e", "0"]],
    ["groundwatch --version", [bin, "--version"]],
    ["groundwatch score (9 rows)", [bin, "score", "--input", "answers.jsonl", "--output", "/dev/null"]],
  ];
  const times = new Map<string, number[]>(commands.map(([name]) => [name, []]));
  const env = { ...process.env, HF_HOME: "/nonexistent/groundwatch-bench" };
  for (let i = 0; i < RUNS + 2; i++) {
    for (const [name, args] of commands) {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, { cwd: consumer.dir, env, stdio: "ignore" });
      const ms = performance.now() - t;
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}`);
      if (i >= 2) times.get(name)!.push(ms); // two warm-up rounds (file cache)
    }
  }
  const base = median(times.get("node -e 0")!);
  console.log(`\nstart-up, median of ${RUNS} (${cpus().length} cores, ${process.version}):`);
  for (const [name] of commands) {
    const m = median(times.get(name)!);
    console.log(`  ${name.padEnd(28)} ${m.toFixed(0).padStart(5)} ms  ${(m / base).toFixed(2)}× node -e 0`);
  }
} finally {
  consumer.remove();
}
