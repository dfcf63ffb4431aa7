import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { labelsPath, readLabelRecords } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { replicaSpools } from "../helpers/review-fixture-replicas.ts";
import { startReviewDeployment } from "../helpers/review-replicas.ts";

const TOKEN = "review-url-token-0123456789";
const env = { GROUNDWATCH_TOKEN: TOKEN };
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function deployment(): Promise<{ spools: ReturnType<typeof replicaSpools>; urls: string[]; stop(i: number): Promise<void> }> {
  const spools = replicaSpools();
  const d = await startReviewDeployment(spools.map((s) => ({ dir: s.dir, replica: s.replica })), TOKEN);
  open.push(d);
  return { spools, urls: d.replicas.map((r) => r.url), stop: async (i) => d.replicas[i]?.close() };
}

/** The review section's tables: its figures, without the sentence naming where they were read. */
const reviewTables = (html: string): string => [...html.matchAll(/<table class="review(?:-trend)?">[\s\S]*?<\/table>/g)].map((m) => m[0]).join("\n");

describe("review, review export and evidence over a collector's API (--url)", () => {
  it("review export --url writes the rows review export --dir of every replica's spool writes", async () => {
    const { spools, urls } = await deployment();
    const [viaDirs, viaUrl] = [join(tempDir(), "dirs.jsonl"), join(tempDir(), "url.jsonl")];
    const dirs = await runCli(["review", "export", ...spools.flatMap((s) => ["--dir", s.dir]), "--out", viaDirs]);
    const url = await runCli(["review", "export", "--url", urls[0] ?? "", "--out", viaUrl], { env });
    expect(dirs.code, dirs.stderr).toBe(0);
    expect(url.code, url.stderr).toBe(0);
    expect(readFileSync(viaUrl, "utf8")).toBe(readFileSync(viaDirs, "utf8"));
    expect(readFileSync(viaUrl, "utf8").split("\n").length).toBeGreaterThan(3);
    expect(url.stdout.replace(viaUrl, "OUT")).toBe(dirs.stdout.replace(viaDirs, "OUT"));
  });

  it("evidence --url gives the review section's figures evidence --review-dir gives", async () => {
    const { spools, urls } = await deployment();
    const [viaDirs, viaUrl] = [join(tempDir(), "dirs.html"), join(tempDir(), "url.html")];
    const period = ["--from", "2026-11-01", "--to", "2026-11-07"];
    const dirs = await runCli(["evidence", ...spools.flatMap((s) => ["--review-dir", s.dir]), ...period, "--out", viaDirs]);
    const url = await runCli(["evidence", "--url", urls[1] ?? "", "--token", TOKEN, ...period, "--out", viaUrl]);
    expect(dirs.code, dirs.stderr).toBe(0);
    expect(url.code, url.stderr).toBe(0);
    const tables = reviewTables(readFileSync(viaDirs, "utf8"));
    expect(tables).toContain("precision of the flags");
    expect(reviewTables(readFileSync(viaUrl, "utf8"))).toBe(tables);
    expect(readFileSync(viaUrl, "utf8")).toContain(`the collector at ${urls[1] ?? ""}`);
  });

  it("review --url labels through the replica holding each answer, and names a replica that did not answer", async () => {
    const { spools, urls, stop } = await deployment();
    await stop(0);
    const run = await runCli(["review", "--url", urls[1] ?? "", "--reviewer", "cy"], { env, stdin: "a\na\nq\n" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`partial: replica ${urls[0] ?? ""} (unreachable) did not answer`);
    const cy = spools.map((s) => readLabelRecords(labelsPath(s.dir)).labels.filter((l) => l.reviewer === "cy").map((l) => l.id));
    expect(cy[0]).toEqual([]);
    // Review order: flagged first, oldest first, over r2 and r3; each label in its holder's file.
    expect(cy.flat()).toHaveLength(2);
    for (const [i, ids] of cy.entries()) for (const id of ids) expect(id.startsWith(`r${i + 1}-`)).toBe(true);
  });

  it("says what went wrong: a refused token (exit 1), --url with --dir (exit 2)", async () => {
    const { urls } = await deployment();
    const refused = await runCli(["review", "export", "--url", urls[0] ?? "", "--token", "wrong-token-wrong-token", "--out", join(tempDir(), "x.jsonl")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("refused the token (401)");
    const both = await runCli(["review", "--url", urls[0] ?? "", "--dir", tempDir(), "--reviewer", "cy"], { env, stdin: "q\n" });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("not with --dir or --labels");
  });
});
