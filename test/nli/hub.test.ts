import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LISTING_FILE, cachedSnapshot, isRepoId, listCachedModels } from "../../src/nli/hub/cache.ts";
import { isSafeRelativePath } from "../../src/config/safe-path.ts";
import { isInside, isValidRepoId, isValidRevision } from "../../src/nli/hub/names.ts";
import { pullModel } from "../../src/nli/hub/pull.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import { tempDir } from "../helpers/cli.ts";
import { HUB_SHA, startHubServer } from "../helpers/hub-server.ts";
import { resolveHubSettings } from "../../src/config/hub.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const REPO = "test-org/tiny-nli";

describe("model pull", () => {
  it("downloads a repo into the hub cache layout, and the onnx backend loads it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const home = tempDir();
    const env = { HF_HOME: home, HF_ENDPOINT: server.url };
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings(env) });
    expect(result.dir).toBe(join(home, "hub", "models--test-org--tiny-nli", "snapshots", HUB_SHA));
    expect(result.files.map((f) => f.path).sort()).toEqual(["config.json", "onnx/model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"]);
    expect(result.files.every((f) => f.status === "downloaded")).toBe(true);
    expect(cachedSnapshot(join(home, "hub"), REPO)).toBe(result.dir);
    expect(listCachedModels(join(home, "hub"))).toMatchObject([{ repo: REPO, revision: "main" }]);
    const engine = await createOnnxEngine({ dir: result.dir });
    expect(engine.info.graph).toBe("onnx/model_quantized.onnx");
    await engine.close();
  });

  it("fetches the fp32 graph with variant fp32, into --dir", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const dir = join(tempDir(), "model");
    const result = await pullModel({ repo: REPO, variant: "fp32", dir, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) });
    expect(result.dir).toBe(dir);
    expect(existsSync(join(dir, "onnx", "model.onnx"))).toBe(true);
    expect(existsSync(join(dir, "onnx", "model_quantized.onnx"))).toBe(false);
  });

  it("resumes an interrupted download with a Range request and verifies it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, dropAfterBytes: 1000 });
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }), backoffMs: 1 });
    const graph = result.files.find((f) => f.path.endsWith(".onnx"));
    expect(graph?.status).toBe("resumed");
    expect(server.requests.filter((r) => r.path.endsWith(".onnx")).map((r) => r.range)).toEqual([undefined, "bytes=1000-"]);
    expect(readFileSync(join(result.dir, "onnx", "model_quantized.onnx")).equals(readFileSync(join(FIXTURE, "onnx", "model.onnx")))).toBe(true);
  });

  it("leaves nothing in place and says so on a checksum mismatch", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, corrupt: true });
    const home = tempDir();
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: home, HF_ENDPOINT: server.url }) })).rejects.toThrow(/onnx\/model_quantized\.onnx: sha256 mismatch/);
    const dir = join(home, "hub", "models--test-org--tiny-nli", "snapshots", HUB_SHA, "onnx");
    expect(existsSync(join(dir, "model_quantized.onnx"))).toBe(false);
    expect(existsSync(join(dir, "model_quantized.onnx.incomplete"))).toBe(false);
  });

  it("skips files already present and verified", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    await pullModel({ repo: REPO, hub: resolveHubSettings(env) });
    const again = await pullModel({ repo: REPO, hub: resolveHubSettings(env) });
    expect(again.files.every((f) => f.status === "present")).toBe(true);
  });

  it("sends HF_TOKEN as a bearer token, and names the refusal without it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, token: "secret" });
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(/refused access \(HTTP 401\).*HF_TOKEN/);
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url, HF_TOKEN: "secret" }) })).resolves.toMatchObject({ revision: HUB_SHA });
  });

  it("in offline mode uses the cache, and without one lists the manual steps", async () => {
    const home = tempDir();
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: home, HF_HUB_OFFLINE: "1" }) })).rejects.toThrow(/HF_HUB_OFFLINE is set[\s\S]*download these files[\s\S]*config\.json, tokenizer\.json/);
    const snapshot = join(home, "hub", "models--test-org--tiny-nli", "snapshots", "main");
    mkdirSync(join(snapshot, "onnx"), { recursive: true });
    writeFileSync(join(snapshot, "config.json"), "{}");
    writeFileSync(join(snapshot, "onnx", "model.onnx"), readFileSync(join(FIXTURE, "onnx", "model.onnx")));
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: home, HF_HUB_OFFLINE: "1" }) })).resolves.toMatchObject({ dir: snapshot, files: [], choice: { graph: { path: "onnx/model.onnx" } } });
    await expect(pullModel({ repo: REPO, variant: "int8", hub: resolveHubSettings({ HF_HOME: home, HF_HUB_OFFLINE: "1" }) })).rejects.toThrow(/HF_HUB_OFFLINE is set and the cached test-org\/tiny-nli@main .* has no graph for --variant int8[\s\S]*To install test-org\/tiny-nli by hand/);
  });

  it("explains an unreachable hub with the manual steps", async () => {
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: "http://127.0.0.1:9" }) })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:9[\s\S]*To install test-org\/tiny-nli by hand/);
  });

  it("names a repo that does not exist", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    await expect(pullModel({ repo: "test-org/missing", hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(/test-org\/missing@main: not found/);
  });
});

/** Every file under `dir`, relative, "/"-separated (links are listed, not followed). */
function tree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const PULLED = ["config.json", "onnx/model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"];

// Regression (issue 13): repo ids, revisions and the hub's answer went into paths unchecked, so
// `a/../../../../x`, `--revision ../..` or a hub answering sha "../../x" wrote outside the cache.
describe("model pull keeps every write inside its target", () => {
  it("accepts the hub's repo id grammar and refuses anything else", () => {
    for (const ok of ["gpt2", "Xenova/nli-deberta-v3-xsmall", "org/name.v2_x-y", `${"a".repeat(96)}/${"b".repeat(96)}`]) expect(isValidRepoId(ok), ok).toBe(true);
    const bad = ["a/../../../../x", "../x", "a/..", "..", "a/b/c", "/a/b", "a/", "-a/b", "a-/b", ".a/b", "a/b.", "a..b/c", "a--b/c", "a/b c", "a\\b", "a/b\u0000", "", `${"a".repeat(97)}/b`];
    for (const value of bad) expect(isValidRepoId(value), value).toBe(false);
    expect(isRepoId("gpt2")).toBe(false);
    expect(isRepoId("org/name")).toBe(true);
  });

  it("accepts branch, tag and commit revisions and refuses traversal", () => {
    for (const ok of ["main", "v1.0", "refs/pr/1", "release-2026.1", "0123456789abcdef0123456789abcdef01234567"]) expect(isValidRevision(ok), ok).toBe(true);
    for (const bad of ["../..", "..", "a/../b", "a..b", "/etc", "main/", "a//b", "a\\b", ".hidden", "a/.x", "x.lock", "a b", "@", "a@{1}", "x~1", "a:b", "", "main\u0000", "m\u00e4in"]) expect(isValidRevision(bad), bad).toBe(false);
  });

  it("checks a hub file name and the final write path", () => {
    for (const ok of ["config.json", "onnx/model.onnx", "a..b/c"]) expect(isSafeRelativePath(ok), ok).toBe(true);
    for (const bad of ["../x", "onnx/../../x", "/etc/passwd", "C:/x", "a\\b", "a/./b", "a//b", "a/\u0000", "", 7, null]) expect(isSafeRelativePath(bad), String(bad)).toBe(false);
    expect(isInside("/c/snapshots", "/c/snapshots/abc/config.json")).toBe(true);
    expect(isInside("/c/snapshots", "/c/snapshots")).toBe(false);
    expect(isInside("/c/snapshots", "/c/x")).toBe(false);
    expect(isInside("/c/snapshots", "/c/snapshots-evil/x")).toBe(false);
    expect(isInside("/c/snapshots", "/c/snapshots/..x")).toBe(true);
  });

  it("refuses a repo id that leaves the cache before asking the hub, naming it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const root = tempDir();
    for (const repo of ["a/../../../../x", "../../x", "a/b/../../../../x", "a\\..\\..\\x"]) {
      await expect(pullModel({ repo, hub: resolveHubSettings({ HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }) })).rejects.toMatchObject({ name: "ConfigError", message: expect.stringContaining(`invalid repo: ${JSON.stringify(repo)}`) as unknown });
    }
    expect(server.requests).toEqual([]);
    expect(tree(root)).toEqual([]);
  });

  it("refuses a revision that leaves refs/ or snapshots/, naming it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const root = tempDir();
    for (const revision of ["../..", "../../../../../tmp/x", "/etc", "a\\b"]) {
      await expect(pullModel({ repo: REPO, revision, hub: resolveHubSettings({ HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }) })).rejects.toThrow(`invalid revision: ${JSON.stringify(revision)}`);
    }
    expect(server.requests).toEqual([]);
    expect(tree(root)).toEqual([]);
  });

  it("refuses a hub answer whose commit is not 40 hex digits, writing nothing", async () => {
    const root = tempDir();
    for (const sha of ["../../x", "../../../../../../tmp/evil", "/abs", "0123456789abcdef", 42]) {
      const server = await startHubServer({ dir: FIXTURE, repo: REPO, rewriteInfo: (info) => ({ ...info, sha }) });
      await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }) })).rejects.toThrow(`the hub answered an invalid commit ${JSON.stringify(String(sha))} (expected 40 hex digits)`);
    }
    expect(tree(root)).toEqual([]);
  });

  it("refuses a hub answer whose blob hash is not 64 hex digits", async () => {
    const server = await startHubServer({
      dir: FIXTURE,
      repo: REPO,
      rewriteInfo: (info) => ({ ...info, siblings: info.siblings.map((s) => (s.lfs ? { ...s, lfs: { ...s.lfs, sha256: "../../x" } } : s)) }),
    });
    const root = tempDir();
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }) })).rejects.toThrow(/the hub listed "onnx\/model(_quantized)?\.onnx" with an invalid sha256 "\.\.\/\.\.\/x" \(expected 64 hex digits\)/);
    expect(tree(root)).toEqual([]);
  });

  it("never writes a file the hub lists under an unsafe name", async () => {
    const evil = ["../../../evil.json", "onnx/../../../../evil.onnx", "/tmp/evil.onnx", "onnx\\..\\..\\evil.onnx", "a/\u0000/evil"];
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, rewriteInfo: (info) => ({ ...info, siblings: [...evil.map((rfilename) => ({ rfilename, size: 1 })), ...info.siblings] }) });
    const root = tempDir();
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }) });
    expect(result.files.map((f) => f.path).sort()).toEqual(PULLED);
    const snapshot = `home/hub/models--test-org--tiny-nli/snapshots/${HUB_SHA}`;
    expect(tree(root)).toEqual([...[...PULLED, LISTING_FILE].map((f) => `${snapshot}/${f}`), "home/hub/models--test-org--tiny-nli/refs/main"].sort());
    expect(server.requests.some((r) => r.path.includes("evil"))).toBe(false);
  });

  it("refuses a hub answer that is not a listing", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, rewriteInfo: (info) => ({ ...info, siblings: { "config.json": {} } }) });
    await expect(pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow("the hub's file list is not an array");
  });

  it("stores a nested revision such as refs/pr/1 as a nested ref, and lists it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, revisions: ["refs/pr/1"] });
    const home = tempDir();
    const result = await pullModel({ repo: REPO, revision: "refs/pr/1", hub: resolveHubSettings({ HF_HOME: home, HF_ENDPOINT: server.url }) });
    const base = join(home, "hub", "models--test-org--tiny-nli");
    expect(readFileSync(join(base, "refs", "refs", "pr", "1"), "utf8")).toBe(HUB_SHA);
    expect(cachedSnapshot(join(home, "hub"), REPO, "refs/pr/1")).toBe(result.dir);
    expect(listCachedModels(join(home, "hub"))).toMatchObject([{ repo: REPO, revision: "refs/pr/1", dir: result.dir }]);
  });

  it("does not follow a ref whose content points outside snapshots/", () => {
    const cache = join(tempDir(), "hub");
    const base = join(cache, "models--test-org--tiny-nli");
    mkdirSync(join(base, "refs"), { recursive: true });
    writeFileSync(join(base, "refs", "main"), "../../../outside");
    mkdirSync(join(cache, "outside"), { recursive: true });
    writeFileSync(join(cache, "outside", "config.json"), "{}");
    expect(cachedSnapshot(cache, REPO)).toBeUndefined();
    expect(listCachedModels(cache)).toEqual([]);
  });

  it("lists a snapshot with a dangling link, leaving the link out and saying so", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const home = tempDir();
    const result = await pullModel({ repo: REPO, hub: resolveHubSettings({ HF_HOME: home, HF_ENDPOINT: server.url }) });
    // The hub's own clients link snapshots/ to blobs/; a cleaned-up blob leaves the link dangling.
    symlinkSync(join(home, "hub", "models--test-org--tiny-nli", "blobs", "gone"), join(result.dir, "special_tokens_map.json"));
    const [model] = listCachedModels(join(home, "hub"));
    expect(model?.files).toEqual(PULLED);
    expect(model?.skipped).toEqual([{ path: "special_tokens_map.json", reason: "a dangling symbolic link" }]);
  });
});
