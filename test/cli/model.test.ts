import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cacheWithDefaultModel, runCli, tempDir } from "../helpers/cli.ts";
import { startHubServer } from "../helpers/hub-server.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const REPO = "test-org/tiny-nli";

/** Every file under `dir`, relative. */
function tree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

// Regression (issue 13): model pull wrote outside the cache for hostile repo ids, revisions and
// hub answers, and --dir /abs wrote to $CWD/abs.
describe("groundwatch model pull: paths", () => {
  it("refuses a repo id or revision that leaves the cache, exit 2, naming it, asking nothing", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const root = tempDir();
    const env = { HF_HOME: join(root, "home"), HF_ENDPOINT: server.url };
    const repo = await runCli(["model", "pull", "a/../../../../x"], { env, cwd: root });
    expect(repo.code).toBe(2);
    expect(repo.stderr).toMatch(/^groundwatch model pull: invalid repo: "a\/\.\.\/\.\.\/\.\.\/\.\.\/x" \(a Hugging Face repo id is \[owner\/\]name/);
    const revision = await runCli(["model", "pull", REPO, "--revision", "../.."], { env, cwd: root });
    expect(revision.code).toBe(2);
    expect(revision.stderr).toContain('invalid revision: "../.."');
    expect(`${repo.stderr}${revision.stderr}`).not.toMatch(/\n\s+at /);
    expect(server.requests).toEqual([]);
    expect(tree(root)).toEqual([]);
  });

  it("refuses a link planted in the cache that leads outside it, exit 1, naming it, writing nothing there", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const root = tempDir();
    const outside = tempDir();
    const repoDir = join(root, "home", "hub", "models--test-org--tiny-nli");
    mkdirSync(join(root, "home", "hub"), { recursive: true });
    symlinkSync(outside, repoDir);
    const run = await runCli(["model", "pull", REPO], { env: { HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }, cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`groundwatch model pull: refusing to write in ${repoDir}: it is a link to ${realpathSync(outside)}, outside ${join(root, "home", "hub")}; remove it and pull again`);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a hub that answers a commit of ../../x, exit 1, naming it", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO, rewriteInfo: (info) => ({ ...info, sha: "../../x" }) });
    const root = tempDir();
    const run = await runCli(["model", "pull", REPO], { env: { HF_HOME: join(root, "home"), HF_ENDPOINT: server.url }, cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the hub answered an invalid commit "../../x" (expected 40 hex digits)');
    expect(tree(root)).toEqual([]);
  });

  it("writes to an absolute --dir as given, and a relative one under the command's directory", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const cwd = tempDir();
    const abs = join(tempDir(), "model");
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const absolute = await runCli(["model", "pull", REPO, "--dir", abs], { env, cwd });
    expect(absolute.code).toBe(0);
    expect(existsSync(join(abs, "config.json"))).toBe(true);
    expect(absolute.stdout).toContain(`--backend onnx --model ${abs}`);
    const relative = await runCli(["model", "pull", REPO, "--dir", "models/tiny"], { env, cwd });
    expect(relative.code).toBe(0);
    expect(existsSync(join(cwd, "models", "tiny", "config.json"))).toBe(true);
    expect(tree(cwd).every((f) => f.startsWith("models/tiny/"))).toBe(true);
  });

  it("names a --dir that is a file, exit 2, before downloading", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const file = join(tempDir(), "taken");
    writeFileSync(file, "");
    for (const dir of [file, join(file, "sub")]) {
      const run = await runCli(["model", "pull", REPO, "--dir", dir], { env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`cannot write --dir ${dir}: `);
      expect(run.stderr).toMatch(/is not a directory/);
    }
    expect(server.requests).toEqual([]);
  });
});

describe("groundwatch model list and info: damaged caches and files", () => {
  it("model list skips a dangling link in a snapshot and says so", async () => {
    const server = await startHubServer({ dir: FIXTURE, repo: REPO });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    expect((await runCli(["model", "pull", REPO], { env })).code).toBe(0);
    const snapshot = join(env.HF_HOME, "hub", "models--test-org--tiny-nli", "snapshots");
    const [sha] = readdirSync(snapshot);
    symlinkSync(join(env.HF_HOME, "hub", "blobs-that-are-gone"), join(snapshot, sha ?? "", "special_tokens_map.json"));
    const run = await runCli(["model", "list"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${REPO}@main`);
    expect(run.stdout).not.toContain("special_tokens_map.json");
    expect(run.stderr).toBe(`groundwatch model list: skipped ${join(snapshot, sha ?? "", "special_tokens_map.json")}: a dangling symbolic link\n`);
  });

  for (const file of ["config.json", "tokenizer.json"]) {
    it(`model info names a ${file} that is not JSON, without echoing its contents`, async () => {
      const dir = join(tempDir(), "model");
      cpSync(FIXTURE, dir, { recursive: true });
      writeFileSync(join(dir, file), `{\n  "id2label": SECRET-TOKEN-hf_abcdef \u001b[2J\n}`);
      const run = await runCli(["model", "info", dir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`groundwatch model info: onnx backend: cannot parse ${join(dir, file)}: not valid JSON (unexpected character at line 2, column 15)\n`);
      expect(run.stderr).not.toContain("SECRET");
    });
  }

  it("model info finds a relative directory under the command's directory", async () => {
    const cwd = tempDir();
    cpSync(FIXTURE, join(cwd, "models", "tiny"), { recursive: true });
    const run = await runCli(["model", "info", "models/tiny"], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`model:       ${join(cwd, "models", "tiny")}`);
  });

  it("model info reads model files that start with a byte order mark", async () => {
    const dir = join(tempDir(), "model");
    cpSync(FIXTURE, dir, { recursive: true });
    for (const f of ["config.json", "tokenizer.json", "tokenizer_config.json"]) writeFileSync(join(dir, f), `\ufeff${readFileSync(join(dir, f), "utf8")}`);
    const run = await runCli(["model", "info", dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("mapping:     entailment=1, neutral=2, contradiction=0");
  });
});

// Issue 27: model info on a relevance cross-encoder failed with "cannot map the labels".
describe("groundwatch model info: a relevance cross-encoder", () => {
  it("says it is a relevance cross-encoder and how to use it, instead of failing on its one label", async () => {
    const dir = fileURLToPath(new URL("../fixtures/models/relevance-bert/", import.meta.url));
    const run = await runCli(["model", "info", dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("labels:      one logit per (query, passage) pair: a relevance cross-encoder, not an NLI model");
    expect(run.stdout).toContain("use it as GROUNDWATCH_RELEVANCE_MODEL or --relevance-model");
    expect(run.stdout).toContain("graph:       onnx/model.onnx");
  });
});

// Issue 25: the offline message listed the model files but not onnxruntime-node, which the model also needs.
describe("groundwatch model pull: offline", () => {
  it("says how to install the model by hand and that onnxruntime-node is needed too", async () => {
    const run = await runCli(["model", "pull", REPO], { env: { HF_HOME: tempDir(), HF_HUB_OFFLINE: "1" } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("To install test-org/tiny-nli by hand");
    expect(run.stderr).toContain("The model runs on onnxruntime-node, an optional peer dependency: install it with `npm install onnxruntime-node`");
    expect(run.stderr).toContain("`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`");
  });
});

// model info decides once what its target is (nli/hub describeModelTarget): it used to ask
// resolveModelDir again only to throw its refusal, which looked at the "main" snapshot, so a
// --revision not in the cache (offline) exited 1 with no word when main was cached.
describe("groundwatch model info: a repo not in the cache, offline", () => {
  it("refuses it naming the cache and the pull to run, exit 2, for the revision asked", async () => {
    const home = cacheWithDefaultModel(FIXTURE);
    const env = { HF_HOME: home, HF_HUB_OFFLINE: "1" };
    const repo = "Xenova/nli-deberta-v3-xsmall";
    const pinned = await runCli(["model", "info", repo, "--revision", "v2"], { env });
    expect(pinned.code).toBe(2);
    expect(pinned.stderr).toContain(`not in the model cache ${join(home, "hub")} at revision v2; run \`groundwatch model pull ${repo} --revision v2\``);
    const other = await runCli(["model", "info", "test-org/tiny-nli"], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`not in the model cache ${join(home, "hub")}; run \`groundwatch model pull test-org/tiny-nli\``);
  });
});
