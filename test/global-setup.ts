import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");

function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);
}

/**
 * Tests that run the `groundwatch` binary or pack the tarball use dist/: rebuild it when any
 * source (or the build itself) is newer than the last build, so they never test stale output.
 */
export default function setup(): void {
  // For quick loops over tests that do not run dist/ (never set in CI).
  if (process.env.GROUNDWATCH_TEST_SKIP_BUILD === "1") return;
  const stamp = join(ROOT, "dist", ".built");
  const inputs = Math.max(newest(join(ROOT, "src")), newest(join(ROOT, "proto")), statSync(join(ROOT, "scripts", "build.ts")).mtimeMs, statSync(join(ROOT, "tsconfig.build.json")).mtimeMs);
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) return;
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), join(ROOT, "scripts", "build.ts")], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
}
