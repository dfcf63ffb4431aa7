import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

const EXAMPLE = join(import.meta.dirname, "../../examples/labelled.jsonl");
const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A labelled set of the user's own: grounded and made-up answers about one document. */
function ownSet(dir: string): string {
  const doc = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
  const rows = Array.from({ length: 8 }, (_, i) => ({ id: i, context: [doc], answer: i % 2 ? "Items may be returned within 90 days in any condition." : "Unopened items may be returned within 30 days of delivery.", label: i % 2 ? 0 : 1 }));
  const path = join(dir, "mine.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

// Issue 25: calibrating on groundwatch's own examples/labelled.jsonl gave a calibration.json that
// every tool then presented as the user's; nothing in it said what it was fitted on.
describe("calibrate records a fingerprint of its data set and its backend", () => {
  it("marks groundwatch's bundled examples as such, says the run is a demo, and records path, rows, hash and backend", async () => {
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", EXAMPLE, "--out", out, "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    const cal = JSON.parse(readFileSync(out, "utf8")) as { dataset: Record<string, unknown>; backend: Record<string, unknown> };
    expect(cal.dataset).toMatchObject({ path: EXAMPLE, sha256: sha256(EXAMPLE), bundled: true, rows: expect.any(Number) });
    expect(cal.backend).toEqual({ name: "offline", version: loadOfflineModel().version, tier: "triage" });
    expect(run.stderr).toContain("is one of groundwatch's bundled examples: this run demonstrates the command, it does not calibrate your service");
    expect(readCalibrationFile(out).dataset?.bundled).toBe(true);
  });

  it("knows the bundled examples by their bytes, not their name: a copy under another name is still the example", async () => {
    const dir = tempDir();
    const copy = join(dir, "our-labels.jsonl");
    copyFileSync(EXAMPLE, copy);
    const out = join(dir, "calibration.json");
    expect((await runCli(["calibrate", "--set", "our-labels.jsonl", "--out", out, "--backend", "offline"], { cwd: dir })).code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).dataset).toMatchObject({ path: "our-labels.jsonl", bundled: true });
  });

  it("fingerprints the user's own set as not bundled, and a set piped on standard input by its lines", async () => {
    const dir = tempDir();
    const set = ownSet(dir);
    const out = join(dir, "calibration.json");
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("bundled");
    expect(JSON.parse(readFileSync(out, "utf8")).dataset).toMatchObject({ path: set, rows: 8, sha256: sha256(set), bundled: false });
    // Piped: the same lines, each ending in "\n", so the same hash as the file.
    const piped = join(dir, "piped.json");
    expect((await runCli(["calibrate", "--set", "-", "--out", piped, "--backend", "offline"], { stdin: readFileSync(set, "utf8") })).code).toBe(0);
    expect(JSON.parse(readFileSync(piped, "utf8")).dataset).toMatchObject({ path: "-", sha256: sha256(set), bundled: false });
  });

  it("still reads a calibration written before fingerprints, with the data set unknown", () => {
    const path = join(tempDir(), "old.json");
    writeFileSync(path, JSON.stringify({ threshold: 0.4, referenceScores: [0.1, 0.9], dataset: { rows: 2 } }));
    const cal = readCalibrationFile(path);
    expect(cal.dataset).toBeUndefined();
    expect(cal.id).toBe(sha256(path).slice(0, 12));
  });
});
