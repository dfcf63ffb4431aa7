import type { ChildProcess } from "node:child_process";
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Consumer } from "../helpers/consumer.ts";
import { createConsumer } from "../helpers/consumer.ts";
import { startOtlpReceiver, total } from "../helpers/otlp-receiver.ts";
import { codeBlocks, shellCommands } from "../helpers/readme-blocks.ts";
import { waitForCondition } from "../helpers/wait.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** The README's SDK section as commands: its install lines, then the quick start's copy, compile and start. */
const README_COMMANDS = shellCommands(codeBlocks("README.md", README));
const README_INSTALL = README_COMMANDS.filter((c) => c.text.startsWith("npm install groundwatch @opentelemetry/") || c.text.startsWith("npm install --save-dev typescript"));
const README_QUICKSTART = README_COMMANDS.filter((c) => README_COMMANDS.some((s) => s.block === c.block && s.text.includes("node --import")));
// What the quick start's project installs: the README's install lines, groundwatch itself aside (the packed tarball here).
const QUICKSTART_DEPS = ["express", "@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/instrumentation-http", "typescript", "@types/express", "@types/node"];
const QUICKSTART = readFileSync(join(ROOT, "examples", "quickstart", "server.ts"), "utf8");
const TRACING = readFileSync(join(ROOT, "examples", "quickstart", "tracing.ts"), "utf8");
const FIXTURE_MODEL = join(ROOT, "test", "fixtures", "models", "bert-wordpiece");
// No hub cache: `auto` resolves to the offline backend on every machine.
const NO_HUB = { HF_HOME: "/nonexistent/groundwatch-test-hf-home", HF_HUB_OFFLINE: "1" };

// What a user writes to check the public API from plain Node, both module systems.
const USE = (load: string): string => `${load}
const scorer = await createScorer({ backend: "offline" });
const grounded = await scorer.score({ context: ["The warranty lasts two years from the date of purchase."], answer: "The warranty lasts two years." });
const wrong = await scorer.score({ context: ["The warranty lasts two years from the date of purchase."], answer: "The warranty lasts five years." });
await scorer.close();
console.log(JSON.stringify({ grounded: grounded.verdict, wrong: wrong.verdict, backend: scorer.backend.name, api: [typeof createMonitor, typeof groundwatchMiddleware, typeof ConfigError] }));
`;
const ESM = USE(`import { ConfigError, createMonitor, createScorer, groundwatchMiddleware } from "groundwatch";`);
const CJS = `(async () => {\n${USE(`const { ConfigError, createMonitor, createScorer, groundwatchMiddleware } = require("groundwatch");`)}})().catch((e) => { console.error(e); process.exit(1); });\n`;
// A CommonJS TypeScript consumer: its types come through the "require" condition (.d.cts).
const CTS = `import groundwatch = require("groundwatch");
import type { MonitorOptions, RequestObserver } from "groundwatch";
const options: MonitorOptions = { sampling: { default: 0.1 } };
const observer: RequestObserver | undefined = undefined;
export const monitor: groundwatch.Monitor = groundwatch.createMonitor(options);
export { observer };
`;
// skipLibCheck, as most projects set it; the node16 build below leaves it off, so it checks our declarations too.
const tsconfig = (compilerOptions: Record<string, unknown>, include: string[]): string => JSON.stringify({ compilerOptions: { target: "ES2022", strict: true, noEmit: true, skipLibCheck: true, types: ["node"], ...compilerOptions }, include });

describe("the README's SDK section", () => {
  it("is the quick start's two files, verbatim, so the snippets users copy are the program the tests run", () => {
    const blocks = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(QUICKSTART);
    expect(blocks).toContain(TRACING);
  });

  // Issue 36: the install line left out typescript, @types/express and @types/node, without which a
  // fresh project cannot compile the quick start (`npx tsc` then offers to install an unrelated package).
  it("installs every package the fresh project below compiles and runs the quick start with", () => {
    const named = README_INSTALL.flatMap((c) => c.text.split(/\s+/).slice(2).filter((w) => !w.startsWith("-")));
    expect(named.sort()).toEqual(["groundwatch", ...QUICKSTART_DEPS].sort());
  });

  it("copies, compiles and starts the quick start with the commands the fresh project below runs as printed", () => {
    expect(README_QUICKSTART.map((c) => c.text)).toEqual(["cp node_modules/groundwatch/examples/quickstart/* .", "npx tsc", "OTEL_EXPORTER_OTLP_ENDPOINT=http://your-otel-collector:4318 node --import ./dist/tracing.js dist/server.js"]);
  });
});

// Issue 25: a `prepare` script runs when the package is installed from git, and npm flags it as an
// install script; the build runs when the tarball is packed (prepack), and npm start builds a stale dist/.
describe("package.json scripts", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };

  it("has no install-time script; packing builds dist/, and npm start builds it first when it is stale", () => {
    for (const hook of ["preinstall", "install", "postinstall", "prepare"]) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.scripts.prepack).toBe("npm run build");
    expect(pkg.scripts.start).toBe("tsx scripts/build.ts --if-stale && node bin/groundwatch.js demo");
  });
});

describe("the packed tarball in a fresh project", () => {
  let consumer: Consumer;
  beforeAll(() => {
    consumer = createConsumer({
      deps: QUICKSTART_DEPS,
      extra: {
        "esm.mjs": ESM,
        "cjs.cjs": CJS,
        "consumer.cts": CTS,
        // The two other ways people compile; the quick start's own tsconfig.json comes from the package (the README's `cp`).
        "tsconfig.bundler.json": tsconfig({ module: "esnext", moduleResolution: "bundler" }, ["tracing.ts", "server.ts"]),
        "tsconfig.cjs.json": tsconfig({ module: "node16" }, ["consumer.cts"]),
      },
    });
    // The README's copy line, as printed: tracing.ts, server.ts and tsconfig.json from the installed package.
    consumer.run("bash", ["-c", README_QUICKSTART[0]!.text]);
  }, 240_000);
  // Removing a consumer project (its node_modules) can take longer than the default hook timeout on a busy machine.
  afterAll(() => consumer?.remove(), 120_000);

  it("holds the build, the runtime data and the deployable configs, and no tests, benches, fixtures or scripts", () => {
    const files = execFileSync("tar", ["tzf", consumer.tarball], { encoding: "utf8" }).split("\n").filter(Boolean).map((f) => f.replace(/^package\//, ""));
    for (const f of ["dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/index.d.cts", "dist/index.js.map", "dist/sdk/worker.js", "dist/nli/offline/weights.json", "bin/groundwatch.js", "data/lexicon/vectors.i8", "docs/observation.schema.json", "docs/runbooks.md", "docs/sdk.md", "docs/configuration.md", "examples/labelled.jsonl", "examples/eval-set.jsonl", "dashboards/overview.json", "alerts/rules.yml", "collector/otel-collector.yaml", "examples/quickstart/server.ts", "examples/quickstart/tracing.ts", "examples/traffic.jsonl", "LICENSE", "README.md", "package.json"]) {
      expect(files, f).toContain(f);
    }
    expect(files.some((f) => f.startsWith("proto/opentelemetry/proto/collector/trace/v1/"))).toBe(true);
    for (const prefix of ["src/", "test/", "bench/", "scripts/", ".ci/", "scratch/", "node_modules/"]) expect(files.filter((f) => f.startsWith(prefix)), prefix).toEqual([]);
    expect(files).not.toContain("alerts/rules_test.yml");
    expect(files.filter((f) => f.includes("worker-entry"))).toEqual([]);
    expect(readFileSync(join(consumer.dir, "node_modules", "groundwatch", "LICENSE"), "utf8")).toContain("Apache License");
  });

  it("installs without onnxruntime-node: it is an optional peer, never fetched", () => {
    expect(() => execFileSync("node", ["-e", "require.resolve('onnxruntime-node')"], { cwd: consumer.dir, stdio: "pipe" })).toThrow();
    const manifest = JSON.parse(readFileSync(join(consumer.dir, "node_modules", "groundwatch", "package.json"), "utf8")) as Record<string, Record<string, unknown>>;
    expect(manifest.dependencies).not.toHaveProperty("onnxruntime-node");
    expect(manifest.dependencies).not.toHaveProperty("tsx");
    expect(manifest.peerDependenciesMeta?.["onnxruntime-node"]).toEqual({ optional: true });
  });

  it("is imported as an ES module by plain Node and scores offline", () => {
    const out = JSON.parse(consumer.run("node", ["esm.mjs"], NO_HUB)) as Record<string, unknown>;
    expect(out).toEqual({ grounded: "grounded", wrong: "ungrounded", backend: "offline", api: ["function", "function", "function"] });
  });

  it("is required from CommonJS by plain Node and scores offline", () => {
    const out = JSON.parse(consumer.run("node", ["cjs.cjs"], NO_HUB)) as Record<string, unknown>;
    expect(out).toEqual({ grounded: "grounded", wrong: "ungrounded", backend: "offline", api: ["function", "function", "function"] });
  });

  it("compiles the quick start with the README's `npx tsc` and its shipped tsconfig.json, and type-checks it under bundler resolution and a CommonJS consumer, all with tsc --strict", () => {
    const tsc = join("node_modules", "typescript", "bin", "tsc");
    const builds: Array<[string, () => string]> = [
      [README_QUICKSTART[1]!.text, () => consumer.run("bash", ["-c", README_QUICKSTART[1]!.text])],
      ...["tsconfig.bundler.json", "tsconfig.cjs.json"].map((project): [string, () => string] => [`tsc -p ${project}`, () => consumer.run("node", [tsc, "-p", project, "--noEmit"])]),
    ];
    for (const [name, build] of builds) {
      try {
        build();
      } catch (error) {
        throw new Error(`${name} failed:\n${(error as { stdout?: string }).stdout ?? ""}`);
      }
    }
    expect(readFileSync(join(consumer.dir, "dist", "server.js"), "utf8")).toContain("groundwatchMiddleware");
  }, 120_000);

  it("runs `npx groundwatch` from compiled JavaScript", () => {
    const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect(consumer.run("npx", ["--no-install", "groundwatch", "--version"]).trim()).toBe(version);
    writeFileSync(join(consumer.dir, "rows.jsonl"), `${JSON.stringify({ id: "a", context: ["Refunds take 5 business days."], answer: "Refunds take 5 business days." })}\n`);
    const row = JSON.parse(consumer.run("npx", ["--no-install", "groundwatch", "score", "--input", "rows.jsonl"], NO_HUB)) as { id: string; verdict: string; backend: { name: string } };
    expect(row).toMatchObject({ id: "a", verdict: "grounded", backend: { name: "offline" } });
    // The README's first command: the demo, with its traffic file, from the installed package.
    expect(consumer.run("npx", ["--no-install", "groundwatch", "demo", "--once", "--port", "0", "--rate", "1000"], NO_HUB)).toMatch(/replayed 120\/120 observations/);
  }, 60_000);

  it("names the install command when --backend onnx is asked for without the ONNX runtime", () => {
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync("npx", ["--no-install", "groundwatch", "score", "--input", "rows.jsonl", "--backend", "onnx", "--model", FIXTURE_MODEL], { cwd: consumer.dir, env: { ...process.env, ...NO_HUB }, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.status).toBe(2);
    expect(failure.stderr).toContain("npm install onnxruntime-node");
    expect(failure.stderr).toContain("ONNXRUNTIME_NODE_INSTALL=skip");
    // The SDK refuses at construction, as it does for a missing model: not later, in a worker.
    const sdk = `import { createMonitor, ConfigError } from "groundwatch";
try { createMonitor({ scoring: { backend: "onnx", model: ${JSON.stringify(FIXTURE_MODEL)} } }); console.log("created"); }
catch (e) { console.log(JSON.stringify({ config: e instanceof ConfigError, message: e.message })); }`;
    writeFileSync(join(consumer.dir, "monitor-onnx.mjs"), sdk);
    const out = JSON.parse(consumer.run("node", ["monitor-onnx.mjs"], NO_HUB)) as { config: boolean; message: string };
    expect(out.config).toBe(true);
    expect(out.message).toContain("npm install onnxruntime-node");
  });

  it("runs the quick start as printed (node --import ./dist/tracing.js dist/server.js): evaluation spans as children of their request spans, events with their trace ids and metrics arrive over OTLP, each evaluation and the triage warning show on the console, and SIGTERM exits 0 within the drain deadline", async () => {
    const receiver = await startOtlpReceiver();
    let stdout = "";
    // The README's start line: its OTEL_EXPORTER_OTLP_ENDPOINT (set below, to the receiver) aside, its node arguments as printed.
    const start = README_QUICKSTART[2]!.text;
    const child: ChildProcess = spawn(process.execPath, start.slice(start.indexOf(" node ") + " node ".length).split(/\s+/), {
      cwd: consumer.dir,
      // A guard budget a busy CI machine keeps within (the default 200 ms is for a quiet one).
      env: { ...process.env, ...NO_HUB, PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "quickstart", GROUNDWATCH_GUARD_BUDGET_MS: "10000", OTEL_METRIC_EXPORT_INTERVAL: "300", OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_BLRP_SCHEDULE_DELAY: "100" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout?.on("data", (d: Buffer) => {
          out += d.toString();
          stdout += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on("exit", () => reject(new Error(`quick start exited before listening:\n${out}\n${stderr}`)));
      });
      for (const question of ["how long for a refund?", "what is the returns window?", "what is the returns window?"]) {
        const res = await fetch(`${url}/api/answer`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) });
        expect(res.status).toBe(200);
      }
      await waitForCondition("three evaluation spans and their evaluations metric", () => receiver.spans.filter((s) => s.name === "groundwatch.evaluate").length >= 3 && total(receiver.points, "groundwatch.evaluations") >= 3, { timeout: 15_000, interval: 100 });
      const evaluations = receiver.spans.filter((s) => s.name === "groundwatch.evaluate");
      expect(evaluations).toHaveLength(3);
      expect(evaluations.map((s) => s.attributes["groundwatch.route"])).toEqual(["/api/answer", "/api/answer", "/api/answer"]);
      expect(total(receiver.points, "groundwatch.evaluations")).toBe(3);
      expect(total(receiver.points, "groundwatch.evaluations", { "groundwatch.verdict": "ungrounded" })).toBe(2);
      const events = receiver.logs.filter((l) => l.eventName === "gen_ai.evaluation.result");
      expect(events).toHaveLength(3);
      // Each evaluation span is the child of its request's span (the HTTP instrumentation in tracing.ts), in the request's trace.
      for (const s of evaluations) {
        const parent = receiver.spans.find((p) => p.spanId === s.parentSpanId);
        expect(parent?.name, `the parent of evaluation span ${s.spanId}`).toMatch(/^POST/);
        expect(parent?.traceId).toBe(s.traceId);
      }
      // Each event carries the trace id of its evaluation span.
      const traces = new Set(evaluations.map((s) => s.traceId));
      for (const e of events) {
        expect(e.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(traces.has(e.traceId)).toBe(true);
      }
      // Something to see without a backend: onEvaluation's line per evaluation, and the triage fallback said once on the console.
      await expect.poll(() => stdout.match(/^groundwatch: \/api\/answer (grounded|ungrounded)/gm)?.length ?? 0).toBe(3);
      expect(stderr.match(/TRIAGE-GRADE/g)).toHaveLength(1);
      // Step 4, the guarded stream: a supported answer streams out as the model wrote it, the invented
      // "90 days" is replaced before it is sent; one gen_ai.guardrail.result event per stream.
      const streamed = async (question: string): Promise<string> => (await fetch(`${url}/api/answer/stream`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) })).text();
      expect(await streamed("how long for a refund?")).toBe("Refunds reach the original payment method within 5 business days.");
      const blocked = await streamed("what is the returns window?");
      expect(blocked).not.toContain("90 days");
      expect(blocked).toMatch(/couldn't verify that answer/);
      await expect.poll(() => receiver.logs.filter((l) => l.eventName === "gen_ai.guardrail.result").length, { timeout: 15_000 }).toBe(2);
    } finally {
      const sent = Date.now();
      child.kill("SIGTERM");
      const code = await exited;
      expect(code, stderr).toBe(0);
      // The quick start drains within 5 s; exporting on shutdown must not stretch that much further.
      expect(Date.now() - sent).toBeLessThan(8_000);
    }
  }, 60_000);

  it("uses the ONNX runtime once the user adds it", () => {
    // The user's `npm install onnxruntime-node`, stood in for by a link to this repository's copy.
    symlinkSync(join(ROOT, "node_modules", "onnxruntime-node"), join(consumer.dir, "node_modules", "onnxruntime-node"), "dir");
    writeFileSync(join(consumer.dir, "pairs.jsonl"), `${JSON.stringify({ id: "p", premise: "The tower is in Paris.", hypothesis: "The tower is in Berlin." })}\n`);
    const row = JSON.parse(consumer.run("npx", ["--no-install", "groundwatch", "nli", "--input", "pairs.jsonl", "--backend", "onnx", "--model", FIXTURE_MODEL], NO_HUB)) as Record<string, unknown>;
    expect(row.id).toBe("p");
    expect(typeof row.entailment).toBe("number");
    expect(["entailment", "neutral", "contradiction"]).toContain(row.label);
  });
});
