import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "..", "..", "src");

/** Every relative import in the .ts files under `part`, as the src/ part it reaches ("nli", "core", …). */
function importsOf(part: string): Array<{ file: string; reaches: string }> {
  const out: Array<{ file: string; reaches: string }> = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith(".ts")) {
        for (const m of readFileSync(path, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
          const target = relative(SRC, resolve(dir, m[1] ?? ""));
          out.push({ file: relative(SRC, path), reaches: target.split("/")[0] ?? "" });
        }
      }
    }
  };
  walk(join(SRC, part));
  return out;
}

describe("the parts depend one way: core ← nli ← scoring ← sdk/collector/cli (net: remote bodies, runtime: the worker pool, for nli and above)", () => {
  it.each([
    ["core", ["core"]],
    ["config", ["config", "core"]],
    ["net", ["net"]],
    ["runtime", ["runtime"]],
    ["nli", ["nli", "core", "config", "net", "runtime"]],
    ["scoring", ["scoring", "nli", "core", "config", "net", "runtime"]],
  ])("%s imports only from %j", (part, allowed) => {
    const outside = importsOf(part).filter((i) => !allowed.includes(i.reaches));
    expect(outside).toEqual([]);
  });
});
