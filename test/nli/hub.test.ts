import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cachedSnapshot, listCachedModels } from "../../src/nli/hub/cache.ts";
import { pullModel } from "../../src/nli/hub/pull.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import { tempDir } from "../helpers/cli.ts";
import { startHubServer } from "../helpers/hub-server.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const REPO = "test-org/tiny-nli";

describe("model pull", () => {
  it("downloads a repo into the hub cache layout, and the onnx backend loads it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const home = tempDir();
    const env = { HF_HOME: home, HF_ENDPOINT: server.url };
    const result = await pullModel({ repo: REPO, env });
    expect(result.dir).toBe(join(home, "hub", "models--test-org--tiny-nli", "snapshots", "0123456789abcdef"));
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
    const result = await pullModel({ repo: REPO, variant: "fp32", dir, env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url } });
    expect(result.dir).toBe(dir);
    expect(existsSync(join(dir, "onnx", "model.onnx"))).toBe(true);
    expect(existsSync(join(dir, "onnx", "model_quantized.onnx"))).toBe(false);
  });

  it("resumes an interrupted download with a Range request and verifies it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, dropAfterBytes: 1000 });
    const result = await pullModel({ repo: REPO, env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url }, backoffMs: 1 });
    const graph = result.files.find((f) => f.path.endsWith(".onnx"));
    expect(graph?.status).toBe("resumed");
    expect(server.requests.filter((r) => r.path.endsWith(".onnx")).map((r) => r.range)).toEqual([undefined, "bytes=1000-"]);
    expect(readFileSync(join(result.dir, "onnx", "model_quantized.onnx")).equals(readFileSync(join(FIXTURE, "onnx", "model.onnx")))).toBe(true);
  });

  it("leaves nothing in place and says so on a checksum mismatch", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, corrupt: true });
    const home = tempDir();
    await expect(pullModel({ repo: REPO, env: { HF_HOME: home, HF_ENDPOINT: server.url } })).rejects.toThrow(/onnx\/model_quantized\.onnx: sha256 mismatch/);
    const dir = join(home, "hub", "models--test-org--tiny-nli", "snapshots", "0123456789abcdef", "onnx");
    expect(existsSync(join(dir, "model_quantized.onnx"))).toBe(false);
    expect(existsSync(join(dir, "model_quantized.onnx.incomplete"))).toBe(false);
  });

  it("skips files already present and verified", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    await pullModel({ repo: REPO, env });
    const again = await pullModel({ repo: REPO, env });
    expect(again.files.every((f) => f.status === "present")).toBe(true);
  });

  it("sends HF_TOKEN as a bearer token, and names the refusal without it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, token: "secret" });
    await expect(pullModel({ repo: REPO, env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url } })).rejects.toThrow(/refused access \(HTTP 401\).*HF_TOKEN/);
    await expect(pullModel({ repo: REPO, env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url, HF_TOKEN: "secret" } })).resolves.toMatchObject({ revision: "0123456789abcdef" });
  });

  it("in offline mode uses the cache, and without one lists the manual steps", async () => {
    const home = tempDir();
    await expect(pullModel({ repo: REPO, env: { HF_HOME: home, HF_HUB_OFFLINE: "1" } })).rejects.toThrow(/HF_HUB_OFFLINE is set[\s\S]*download these files[\s\S]*config\.json, tokenizer\.json/);
    const snapshot = join(home, "hub", "models--test-org--tiny-nli", "snapshots", "main");
    mkdirSync(snapshot, { recursive: true });
    writeFileSync(join(snapshot, "config.json"), "{}");
    await expect(pullModel({ repo: REPO, env: { HF_HOME: home, HF_HUB_OFFLINE: "1" } })).resolves.toMatchObject({ dir: snapshot });
  });

  it("explains an unreachable hub with the manual steps", async () => {
    await expect(pullModel({ repo: REPO, env: { HF_HOME: tempDir(), HF_ENDPOINT: "http://127.0.0.1:9" } })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:9[\s\S]*To install test-org\/tiny-nli by hand/);
  });

  it("names a repo that does not exist", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    await expect(pullModel({ repo: "test-org/missing", env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url } })).rejects.toThrow(/test-org\/missing@main: not found/);
  });
});
