import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LISTING_FILE } from "../../src/nli/hub/cache.ts";
import { pullModel } from "../../src/nli/hub/pull.ts";
import { tempDir } from "../helpers/cli.ts";
import { HUB_SHA, startHubServer } from "../helpers/hub-server.ts";
import { resolveHubSettings } from "../../src/config/hub.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const REPO = "test-org/tiny-nli";
const GRAPH = "onnx/model_quantized.onnx";

/** A fresh HF_HOME and where the repo's folders go in it. */
function cacheLayout(): { home: string; repoDir: string; snapshot: string } {
  const home = tempDir();
  const repoDir = join(home, "hub", "models--test-org--tiny-nli");
  return { home, repoDir, snapshot: join(repoDir, "snapshots", HUB_SHA) };
}

function plant(target: string, link: string): void {
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(target, link);
}

// Regression (issue 24, item 8): links planted in the cache carried model pull's writes outside it.
describe("model pull: links planted in the cache never carry a write outside it", () => {
  it.each([
    ["the repo folder", (l: ReturnType<typeof cacheLayout>) => l.repoDir],
    ["snapshots/<sha>", (l: ReturnType<typeof cacheLayout>) => l.snapshot],
    ["onnx/ in the snapshot", (l: ReturnType<typeof cacheLayout>) => join(l.snapshot, "onnx")],
    ["refs", (l: ReturnType<typeof cacheLayout>) => join(l.repoDir, "refs")],
  ])("refuses %s as a link to a folder outside the cache, and writes nothing there", async (_where, at) => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const layout = cacheLayout();
    const outside = tempDir();
    plant(outside, at(layout));
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: layout.home, HF_ENDPOINT: server.url }) })).rejects.toMatchObject({
      name: "HubError",
      message: expect.stringMatching(/^refusing to write in .*: it is a link to .*, outside .*; remove it and pull again$/) as unknown,
    });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a dangling link where a folder goes, without creating its target", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const layout = cacheLayout();
    const outside = tempDir();
    plant(join(outside, "made"), layout.snapshot);
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: layout.home, HF_ENDPOINT: server.url }) })).rejects.toThrow(/it is a link that leads nowhere/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it.each([
    ["a *.incomplete file", (l: ReturnType<typeof cacheLayout>) => join(l.snapshot, `${GRAPH}.incomplete`)],
    ["a model file", (l: ReturnType<typeof cacheLayout>) => join(l.snapshot, "config.json")],
    ["the listing record", (l: ReturnType<typeof cacheLayout>) => join(l.snapshot, LISTING_FILE)],
    ["refs/main", (l: ReturnType<typeof cacheLayout>) => join(l.repoDir, "refs", "main")],
  ])("replaces %s planted as a link to a file outside: the link goes, the file outside is not overwritten", async (_where, at) => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const layout = cacheLayout();
    const precious = join(tempDir(), "precious.txt");
    writeFileSync(precious, "keep me");
    const link = at(layout);
    plant(precious, link);
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: layout.home, HF_ENDPOINT: server.url }) });
    expect(readFileSync(precious, "utf8")).toBe("keep me");
    // The link is gone: replaced by the real file, or (the partial) renamed into place.
    expect(existsSync(link) ? lstatSync(link).isFile() : true).toBe(true);
    expect(readFileSync(join(result.dir, GRAPH)).equals(readFileSync(join(FIXTURE, "onnx", "model.onnx")))).toBe(true);
  });

  it("replaces a dangling *.incomplete link without creating its target", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const layout = cacheLayout();
    const outside = tempDir();
    plant(join(outside, "created.onnx"), join(layout.snapshot, `${GRAPH}.incomplete`));
    await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: layout.home, HF_ENDPOINT: server.url }) });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("does not append to a file outside hard-linked in as the *.incomplete file", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const layout = cacheLayout();
    const precious = join(tempDir(), "precious.txt");
    writeFileSync(precious, "keep me");
    mkdirSync(join(layout.snapshot, "onnx"), { recursive: true });
    linkSync(precious, join(layout.snapshot, `${GRAPH}.incomplete`));
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: layout.home, HF_ENDPOINT: server.url }) });
    expect(readFileSync(precious, "utf8")).toBe("keep me");
    expect(result.files.find((f) => f.path === GRAPH)?.status).toBe("downloaded");
  });

  it("writes into --dir through its own real path, refusing an onnx/ link that leaves it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const dir = join(tempDir(), "model");
    const outside = tempDir();
    plant(outside, join(dir, "onnx"));
    await expect(pullModel({ repo: REPO, dir, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(/refusing to write in .*onnx: it is a link to/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

// Regression (issue 24, item 10): a hub that never answered hung the pull for ever; a body past the listed size was written whole.
describe("model pull: a hub that stalls, or sends more than it listed", () => {
  it("gives up on a listing that never answers, after timeoutMs, with the manual steps", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, hang: "listing" });
    await expect(pullModel({ repo: REPO, timeoutMs: 200, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:\d+ \(no answer within 200 ms\)[\s\S]*To install test-org\/tiny-nli by hand/);
  });

  it("gives up on a file that never answers, after its attempts", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, hang: "files" });
    await expect(pullModel({ repo: REPO, timeoutMs: 200, attempts: 2, backoffMs: 1, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow("config.json: download failed after 2 attempts (no answer within 200 ms); run the pull again to resume");
  });

  it("gives up on a download that stalls mid-body, keeping what arrived for the next pull to resume", async () => {
    const stalling = await startHubServer({ dir: FIXTURE, repo: REPO, stallAfterBytes: 1000 });
    const home = tempDir();
    await expect(pullModel({ repo: REPO, idleTimeoutMs: 200, attempts: 1, hub: resolveHubSettings({ HF_HOME: home, HF_ENDPOINT: stalling.url }) })).rejects.toThrow(`${GRAPH}: download failed after 1 attempts (the reply stalled: no data for 200 ms; the request was aborted)`);
    const healthy = await startHubServer({ dir: FIXTURE, repo: REPO });
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: home, HF_ENDPOINT: healthy.url }) });
    expect(result.files.find((f) => f.path === GRAPH)?.status).toBe("resumed");
    expect(healthy.requests.find((r) => r.path.endsWith(".onnx"))?.range).toBe("bytes=1000-");
  });

  it("refuses a file listed without a size, before downloading anything", async () => {
    const server = await startHubServer({
      dir: FIXTURE,
      repo: REPO,
      rewriteInfo: (info) => ({ ...info, siblings: info.siblings.map((s) => (s.rfilename === GRAPH ? { rfilename: s.rfilename } : s)) }),
    });
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(`test-org/tiny-nli@main: the hub lists no size for "${GRAPH}"; groundwatch downloads only files of a known size`);
    expect(server.requests.some((r) => r.path.includes("/resolve/"))).toBe(false);
  });

  it.each([
    ["with a Content-Length that says so", false],
    ["streamed without a length", true],
  ])("stops a body longer than the listed size (%s), and keeps none of it", async (_how, undeclared) => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, extraBytes: 100_000, undeclared });
    const layout = cacheLayout();
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: layout.home, HF_ENDPOINT: server.url }) })).rejects.toThrow(new RegExp(`^${GRAPH}: the hub sent more than the \\d+ bytes it listed; the download was stopped there and removed$`));
    expect(readdirSync(join(layout.snapshot, "onnx"))).toEqual([]);
  });
});

describe("model pull: its options", () => {
  it.each([
    ["timeoutMs", { timeoutMs: 0 }],
    ["idleTimeoutMs", { idleTimeoutMs: -5 }],
  ])("refuses a %s that is not a positive whole number, naming it, before asking the hub", async (field, bad) => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    await expect(pullModel({ repo: REPO, ...bad, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toMatchObject({ name: "ConfigError", field });
    expect(server.requests).toEqual([]);
  });
});
