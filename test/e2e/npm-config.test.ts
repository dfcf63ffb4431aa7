import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

// Issue 25: the project .npmrc key `onnxruntime-node-install=skip` made every npm and npx command in
// the repository print `npm warn Unknown project config "onnxruntime-node-install"`.
describe("npm in the repository", () => {
  it("prints no unknown-config warning", () => {
    expect(existsSync(join(ROOT, ".npmrc"))).toBe(false);
    for (const args of [["exec", "--", "node", "-e", ""], ["config", "list"]]) {
      const run = spawnSync("npm", args, { cwd: ROOT, encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr, args.join(" ")).not.toContain("Unknown project config");
    }
  });

  it("still skips onnxruntime-node's CUDA download (its postinstall) in npm ci, through package.json's allowScripts", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
    expect(pkg.allowScripts?.["onnxruntime-node"]).toBe(false);
    expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toMatch(/^ONNXRUNTIME_NODE_INSTALL=skip npm ci /m);
  });
});
