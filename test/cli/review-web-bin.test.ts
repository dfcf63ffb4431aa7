import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { spawnGroup } from "../helpers/processes.ts";
import { spoolRecord, writeSpool } from "./review-web-fixtures.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("groundwatch review --web from the command line", () => {
  it("serves the page on loopback until SIGTERM, then exits 0", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1"), spoolRecord("a2")]);
    const p = spawnGroup(process.execPath, [join(ROOT, "bin/groundwatch.js"), "review", "--web", "--dir", dir, "--reviewer", "ana", "--port", "0"], { env: { PATH: process.env.PATH ?? "" } });
    const url = (await p.waitFor(/open (http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? "";
    expect(await (await fetch(`${url}api/progress`)).json()).toEqual({ total: 2, labelled: 0, skipped: 0, remaining: 2 });
    const labelled = await fetch(`${url}api/label`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "a1", agreement: "agree" }) });
    expect(labelled.status).toBe(200);
    p.signal("SIGTERM");
    expect((await p.exited).code).toBe(0);
  });

  it("takes its token from GROUNDWATCH_REVIEW_TOKEN, never from the collector's GROUNDWATCH_TOKEN", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1")]);
    const collectorToken = "the-collector-ingest-and-metrics-token";
    const reviewToken = "the-review-page-token-of-its-own";
    const start = async (env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> => {
      const p = spawnGroup(process.execPath, [join(ROOT, "bin/groundwatch.js"), "review", "--web", "--dir", dir, "--reviewer", "ana", "--port", "0"], { env: { PATH: process.env.PATH ?? "", ...env } });
      const url = (await p.waitFor(/open (http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? "";
      return {
        url,
        stop: async () => {
          p.signal("SIGTERM");
          expect((await p.exited).code).toBe(0);
        },
      };
    };
    const status = async (url: string, token?: string): Promise<number> => (await fetch(`${url}api/progress`, { headers: token ? { authorization: `Bearer ${token}` } : {} })).status;

    // The collector's token alone: the page has no token (local only), and that token opens nothing.
    const local = await start({ GROUNDWATCH_TOKEN: collectorToken });
    expect(await status(local.url)).toBe(200);
    await local.stop();

    const guarded = await start({ GROUNDWATCH_TOKEN: collectorToken, GROUNDWATCH_REVIEW_TOKEN: reviewToken });
    expect(await status(guarded.url)).toBe(401);
    expect(await status(guarded.url, collectorToken)).toBe(401);
    expect(await status(guarded.url, reviewToken)).toBe(200);
    await guarded.stop();

    // Off loopback a token is required, and the collector's does not count as one.
    const remote = await runCli(["review", "--web", "--dir", dir, "--reviewer", "ana", "--host", "0.0.0.0", "--port", "0"], { env: { PATH: process.env.PATH, GROUNDWATCH_TOKEN: collectorToken } });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("GROUNDWATCH_REVIEW_TOKEN");
  });

  it("prints its help, and refuses to start without --dir or --reviewer (exit 2)", async () => {
    const help = await runCli(["review", "--web", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--token T");
    expect((await runCli(["review", "--web", "--reviewer", "ana"])).stderr).toContain("--dir is required");
    const noReviewer = await runCli(["review", "--web", "--dir", tempDir()]);
    expect(noReviewer.code).toBe(2);
    expect(noReviewer.stderr).toContain("--reviewer is required");
  });
});
