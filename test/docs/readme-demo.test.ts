// Issue 36: the README quoted the demo's table with numbers the demo no longer printed (a mean
// groundedness of 0.578 where it prints 0.633). The quoted output is the demo's own, run here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_COLLECTOR_PORT } from "../../src/collector/options.ts";
import { runCli } from "../helpers/cli.ts";
import { codeBlocks } from "../helpers/readme-blocks.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the README's demo output", () => {
  it("is what `groundwatch demo` prints once the bundled traffic is replayed (offline backend, default port)", async () => {
    const quoted = codeBlocks("README.md", readFileSync(join(ROOT, "README.md"), "utf8")).find((b) => b.lang === "text" && b.lines[0]?.text.startsWith("replayed "));
    expect(quoted, "a text block in the README that starts with the demo's `replayed` line").toBeDefined();
    const run = await runCli(["demo", "--once", "--port", "0", "--rate", "1000"]);
    expect(run.code, run.stderr).toBe(0);
    // Port 0 picks a free port; the README shows the default.
    const printed = run.stdout.replace(/http:\/\/127\.0\.0\.1:\d+\//g, `http://127.0.0.1:${DEFAULT_COLLECTOR_PORT}/`);
    expect(printed).toBe(`${quoted!.lines.map((l) => l.text).join("\n")}\n`);
  }, 60_000);
});
