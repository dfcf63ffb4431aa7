import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { distIsStale } from "../scripts/build-freshness.ts";

const ROOT = join(import.meta.dirname, "..");

/**
 * Tests that run the `groundwatch` binary or pack the tarball use dist/: rebuild it when any
 * source (or the build itself) is newer than the last build, so they never test stale output.
 */
export default function setup(): void {
  // For quick loops over tests that do not run dist/ (never set in CI).
  if (process.env.GROUNDWATCH_TEST_SKIP_BUILD === "1") return;
  if (!distIsStale(ROOT)) return;
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), join(ROOT, "scripts", "build.ts")], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
}
