import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

// When dist/ is stale: the one rule that test/global-setup.ts and `tsx scripts/build.ts --if-stale`
// (npm start) share.

/** The newest modification time of any file under `dir`. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);
}

/**
 * Whether `root`'s dist/ is missing or older than its inputs: any source under src/ or proto/,
 * the build script or its tsconfig is newer than dist/.built, which the build writes last.
 */
export function distIsStale(root: string): boolean {
  const stamp = join(root, "dist", ".built");
  if (!existsSync(stamp)) return true;
  const inputs = Math.max(newest(join(root, "src")), newest(join(root, "proto")), statSync(join(root, "scripts", "build.ts")).mtimeMs, statSync(join(root, "tsconfig.build.json")).mtimeMs);
  return statSync(stamp).mtimeMs < inputs;
}
