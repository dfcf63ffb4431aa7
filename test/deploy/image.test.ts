import { execFile, execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { startTestCollector } from "../helpers/collector.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { TLS_FIXTURES } from "../helpers/tls.ts";
import { waitUntil } from "../helpers/wait.ts";

/**
 * The Dockerfile. No image is built here: there is no Docker engine on this machine, and Debian's
 * buildah cannot pull the node base image (docs/deploy.md, "The container image"). So this checks the
 * Dockerfile's structure, and runs the runtime stage's file set — what its COPY lines take from the
 * build context and from the build and prod-deps stages, with the production dependencies only —
 * as the image's entrypoint and environment would, in a temporary directory.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Instruction {
  readonly op: string;
  readonly args: string;
}
interface Stage {
  readonly from: string;
  readonly name: string;
  readonly body: Instruction[];
}

/** Instructions of a Dockerfile: comments dropped, continuation lines joined, ARG defaults before the first FROM applied. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text.split("\n").filter((l) => !/^\s*#/.test(l));
  const joined = lines.join("\n").replace(/\\\n/g, " ");
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const raw of joined.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile: cannot read ${line}`);
    const op = m[1]!.toUpperCase();
    const rest = m[2]!.trim();
    if (op === "FROM") {
      const fm = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      const from = fm![1]!.replace(/\$\{(\w+)\}/g, (_x, k: string) => args[k] ?? "");
      stages.push({ from, name: fm![2] ?? String(stages.length), body: [] });
    } else if (stages.length === 0 && op === "ARG") {
      const [k, v] = rest.split("=");
      args[k!] = v ?? "";
    } else {
      stages.at(-1)!.body.push({ op, args: rest });
    }
  }
  return { args, stages };
}

const DOCKERFILE = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const runtime = DOCKERFILE.stages.at(-1)!;
const find = (stage: Stage, op: string) => stage.body.filter((i) => i.op === op);
const execForm = (args: string): string[] => JSON.parse(args) as string[];
/** ENV of a stage, `K=V K2=V2` form. */
function envOf(stage: Stage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of find(stage, "ENV")) for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) out[m[1]!] = m[2]!.replace(/^"|"$/g, "");
  return out;
}
/** COPY instructions of a stage: sources, destination, and the stage copied from (undefined: the build context). */
function copies(stage: Stage): Array<{ from: string | undefined; sources: string[]; dest: string }> {
  return find(stage, "COPY").map((i) => {
    const parts = i.args.split(/\s+/);
    const from = parts.find((p) => p.startsWith("--from="))?.slice("--from=".length);
    const paths = parts.filter((p) => !p.startsWith("--"));
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
  });
}

/** Whether the build context keeps `path` (relative), by .dockerignore's rules (last match wins; `**` and `*`). */
function contextKeeps(path: string): boolean {
  const rules = readFileSync(join(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  let kept = true;
  for (const rule of rules) {
    const negate = rule.startsWith("!");
    const pattern = (negate ? rule.slice(1) : rule).replace(/\/$/, "");
    const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*\*\//g, "(?:.*/)?").replace(/\*/g, "[^/]*")}(?:/.*)?$`);
    if (re.test(path)) kept = negate;
  }
  return kept;
}

describe("Dockerfile: structure", () => {
  it("is multi-stage, every base pinned to an exact release (or a digest), the default target last", () => {
    expect(DOCKERFILE.stages.map((s) => s.name)).toEqual(["build", "prod-deps", "example", "runtime"]);
    for (const s of DOCKERFILE.stages) {
      if (DOCKERFILE.stages.some((o) => o.name === s.from)) continue; // FROM an earlier stage
      expect(s.from, s.name).toMatch(/^[\w./-]+(?::\d+\.\d+\.\d+[\w.-]*)?(?:@sha256:[0-9a-f]{64})?$/);
      expect(s.from, s.name).toMatch(/:\d+\.\d+\.\d+|@sha256:/);
      expect(s.from).not.toMatch(/:latest\b/);
    }
    // The base's Node.js is the one package.json's engines and the tests (this process) run on.
    const node = /^node:(\d+)\./.exec(runtime.from)?.[1];
    expect(node).toBe(process.versions.node.split(".")[0]);
    expect((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node).toBe(`>=${node}`);
  });

  it("runs `groundwatch serve` as a numeric non-root user, with the port in ENV, EXPOSE and the health check agreeing", () => {
    const users = find(runtime, "USER").map((u) => u.args);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const entrypoint = execForm(find(runtime, "ENTRYPOINT")[0]!.args);
    expect(entrypoint.slice(-2)).toEqual(["/app/bin/groundwatch.js", "serve"]);
    const env = envOf(runtime);
    expect(env).toMatchObject({ NODE_ENV: "production", GROUNDWATCH_HOST: "0.0.0.0" });
    expect(find(runtime, "EXPOSE").map((e) => e.args)).toEqual([env.GROUNDWATCH_PORT]);
    const health = find(runtime, "HEALTHCHECK")[0]?.args ?? "";
    expect(health).toMatch(/\/healthz/);
    expect(health).toMatch(/process\.env\.GROUNDWATCH_HEALTH_PORT \|\| process\.env\.GROUNDWATCH_PORT/);
    // No volume, and nothing mounted or copied wholesale from the repository.
    expect(find(runtime, "VOLUME")).toEqual([]);
    for (const c of copies(runtime)) for (const s of c.sources) expect(s, "COPY of the whole context").not.toMatch(/^\.\/?$/);
  });

  it("keeps the runtime slim: dist/ and production dependencies only, onnxruntime-node only behind the build argument", () => {
    const fromStages = copies(runtime).filter((c) => c.from);
    expect(fromStages.map((c) => `${c.from} ${c.sources.join(" ")}`).sort()).toEqual(["build /src/dist/", "prod-deps /app/node_modules/"]);
    const sources = copies(runtime).filter((c) => !c.from).flatMap((c) => c.sources);
    for (const s of sources) expect(s).not.toMatch(/^(src|test|bench|scripts|node_modules|examples)\b/);
    const prodDeps = DOCKERFILE.stages.find((s) => s.name === "prod-deps")!;
    const install = find(prodDeps, "RUN").map((r) => r.args).join(" ");
    expect(install).toMatch(/npm ci --omit=dev/);
    expect(find(prodDeps, "ARG").map((a) => a.args)).toContain("GROUNDWATCH_ONNX=false");
    expect(install).toMatch(/if \[ "\$GROUNDWATCH_ONNX" = "true" \]; then .*onnxruntime-node@/);
    // onnxruntime-node stays an optional peer (and a dev dependency for the tests), so --omit=dev leaves it out.
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional: boolean }> };
    expect(pkg.dependencies).not.toHaveProperty("onnxruntime-node");
    expect(pkg.peerDependenciesMeta["onnxruntime-node"]?.optional).toBe(true);
  });

  it("has a build context (.dockerignore) that holds every COPY source and leaves out node_modules, dist and .git", () => {
    for (const stage of DOCKERFILE.stages) {
      for (const c of copies(stage).filter((x) => !x.from)) {
        for (const s of c.sources) {
          const path = s.replace(/\/$/, "");
          expect(existsSync(join(ROOT, path)), `${stage.name}: COPY ${s}`).toBe(true);
          expect(contextKeeps(path), `${stage.name}: COPY ${s} is excluded by .dockerignore`).toBe(true);
        }
      }
    }
    for (const gone of ["node_modules", "dist", ".git", "scratch", "test/instrumentations/otel/node_modules"]) expect(contextKeeps(gone), gone).toBe(false);
  });

  it("is what docker-compose.yml builds and runs: the image, no repository mounted", () => {
    const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as { services: Record<string, { image?: string; build?: { context: string; target?: string }; volumes?: string[]; read_only?: boolean }> };
    const gw = compose.services.groundwatch!;
    expect(gw.build).toEqual({ context: ".", target: "runtime" });
    expect(gw.image).toBe(`groundwatch:${(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version}`);
    expect(gw.read_only).toBe(true);
    for (const [name, s] of Object.entries(compose.services)) {
      for (const v of s.volumes ?? []) expect(v, `${name} mounts the repository`).not.toMatch(/^\.\/?:/);
      if (s.build) expect(DOCKERFILE.stages.map((x) => x.name), name).toContain(s.build.target);
    }
  });
});

/** The production dependencies' folders, as npm's own tree says (`npm ls --omit=dev`; it exits 1 on a tree problem such as an extraneous package, and still lists). */
function productionPackages(): string[] {
  const { stdout: out } = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, npm_config_loglevel: "silent" } });
  if (!out?.trim()) throw new Error("npm ls --omit=dev listed nothing");
  return out
    .split("\n")
    .filter((l) => l.trim() && l !== ROOT.replace(/\/$/, ""))
    .map((l) => relative(ROOT, l))
    .filter((l) => l.startsWith("node_modules/"));
}

function listFiles(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), statSync(p).mtimeMs);
    }
  };
  walk(dir);
  return out;
}

describe("Dockerfile: the runtime stage's files run `groundwatch serve`", () => {
  it("starts from dist/ and production dependencies alone, answers its health check, scores, and writes nothing", { timeout: 60_000 }, async () => {
    expect(existsSync(join(ROOT, "dist", "cli", "run.js")), "dist/ is built (npx tsx scripts/build.ts)").toBe(true);
    const app = mkdtempSync(join(tmpdir(), "gw-image-"));
    // Removing a copy of every production package can take more than the default 10 s hook timeout on a busy machine.
    onTestFinished(() => rmSync(app, { recursive: true, force: true }), 60_000);
    // The stage's COPY lines, with the build stage's dist/ (this checkout's build) and the prod-deps
    // stage's node_modules (the production packages of this checkout's tree: no dev dependency).
    for (const c of copies(runtime)) {
      const dest = join(app, c.dest.replace(/^\/app\/?/, ""));
      if (c.from === "build") cpSync(join(ROOT, "dist"), dest, { recursive: true });
      else if (c.from === "prod-deps") for (const p of productionPackages()) cpSync(join(ROOT, p), join(app, p), { recursive: true, dereference: true });
      else
        for (const s of c.sources) {
          const target = c.dest.endsWith("/") ? join(dest, s.endsWith("/") ? "" : s.split("/").at(-1)!) : dest;
          mkdirSync(dirname(target), { recursive: true });
          cpSync(join(ROOT, s), target, { recursive: true });
        }
    }
    expect(existsSync(join(app, "node_modules", "express"))).toBe(true);
    for (const dev of ["typescript", "vitest", "tsx", "onnxruntime-node", "esbuild"]) expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    const before = listFiles(app);

    const entrypoint = execForm(find(runtime, "ENTRYPOINT")[0]!.args).map((a) => (a.startsWith("/app/") ? join(app, a.slice(5)) : a));
    // The image's environment, on a free loopback port instead of 0.0.0.0:4319 (the test machine's
    // interfaces stay closed), with a token as the image requires.
    const env = { ...envOf(runtime), GROUNDWATCH_HOST: "127.0.0.1", GROUNDWATCH_PORT: "0", GROUNDWATCH_TOKEN: "t".repeat(32), HF_HOME: join(app, "models"), PATH: process.env.PATH ?? "" };
    const serve = spawnGroup(entrypoint[0] === "node" ? process.execPath : entrypoint[0]!, [...entrypoint.slice(1), "--sample-rate", "1"], { cwd: app, env });
    const url = await listeningUrl(serve);
    const port = new URL(url).port;

    // The HEALTHCHECK command itself, with the port in its environment.
    const health = execForm(find(runtime, "HEALTHCHECK")[0]!.args.replace(/^.*?CMD\s+/, ""));
    expect(health[0]).toBe("node");
    execFileSync(process.execPath, health.slice(1), { env: { GROUNDWATCH_PORT: port }, stdio: "pipe" });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // docs/runbooks.md is in the image: GET /runbooks serves it.
    expect(await (await fetch(`${url}/runbooks`)).text()).toMatch(/GroundwatchHallucinationRateHigh/i);
    // data/lexicon is in the image: the offline backend scores.
    const auth = { authorization: `Bearer ${env.GROUNDWATCH_TOKEN}` };
    const doc = "Returns: you may return unopened items within 30 days of delivery for a full refund.";
    const res = await fetch(`${url}/v1/observations`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ route: "/api/returns", context: [doc], answer: doc }) });
    expect(res.status).toBe(202);
    const metrics = await waitUntil("the observation scored on /metrics", async () => (await fetch(`${url}/metrics`, { headers: auth })).text(), (text) => /groundwatch_evaluations_total\{[^}]*\} 1/.test(text), { timeout: 20_000, interval: 100 });
    expect(metrics).toMatch(/groundwatch_evaluations_total\{[^}]*groundwatch_route="\/api\/returns"[^}]*\} 1/);

    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
    // Nothing under /app was created or changed: a read-only root filesystem is fine.
    expect(listFiles(app)).toEqual(before);
  });
});

// Issue 35: with TLS on the main port, a plain-http health check would get 400 and mark the container unhealthy.
describe("Dockerfile: the health check with TLS", () => {
  /** The HEALTHCHECK command's exit code with `env` (run asynchronously: the collector answering it runs in this process). */
  const healthCheck = (env: Record<string, string>): Promise<number> => {
    const health = execForm(find(runtime, "HEALTHCHECK")[0]!.args.replace(/^.*?CMD\s+/, ""));
    return new Promise((resolve) => execFile(process.execPath, health.slice(1), { env }, (error) => resolve(error ? Number((error as { code?: number }).code ?? 1) : 0)));
  };

  it("asks the main port over https when it serves TLS, and the probe listener over plain http", { timeout: 30_000 }, async () => {
    const c = await startTestCollector({ tlsCertFile: TLS_FIXTURES.cert, tlsKeyFile: TLS_FIXTURES.key, healthPort: 0 });
    const tls = { GROUNDWATCH_TLS_CERT_FILE: "/etc/groundwatch-tls/tls.crt" };
    expect(await healthCheck({ GROUNDWATCH_PORT: new URL(c.url).port, ...tls })).toBe(0);
    expect(await healthCheck({ GROUNDWATCH_PORT: new URL(c.url).port, GROUNDWATCH_HEALTH_PORT: new URL(c.healthUrl!).port, ...tls })).toBe(0);
    // Without the variable it asks in plain http, and the TLS port answers 400: unhealthy (what the variable is for).
    expect(await healthCheck({ GROUNDWATCH_PORT: new URL(c.url).port })).toBe(1);
    expect(c.refusedStats()).toEqual({ "connection plain_http": 1 });
  });
});
