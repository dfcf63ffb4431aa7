import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { distIsStale } from "../../scripts/build-freshness.ts";
import { tempDir } from "../helpers/cli.ts";

/** A checkout's build inputs and a dist/.built stamp, each with its own modification time (seconds). */
function checkout(times: { source: number; stamp?: number }): string {
  const root = tempDir();
  const files: Array<[string, number]> = [["src/cli/a.ts", times.source], ["proto/x.proto", 1000], ["scripts/build.ts", 1000], ["tsconfig.build.json", 1000]];
  if (times.stamp !== undefined) files.push(["dist/.built", times.stamp]);
  for (const [file, t] of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "x");
    utimesSync(join(root, file), t, t);
  }
  return root;
}

// npm start (tsx scripts/build.ts --if-stale) and the tests' global setup share this rule.
describe("dist/ is stale", () => {
  it("when it was never built", () => expect(distIsStale(checkout({ source: 2000 }))).toBe(true));
  it("when a source is newer than the last build", () => expect(distIsStale(checkout({ source: 3000, stamp: 2000 }))).toBe(true));
  it("not when the last build is newer than every input", () => expect(distIsStale(checkout({ source: 2000, stamp: 3000 }))).toBe(false));
});
