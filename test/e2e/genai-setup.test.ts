import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startTestCollector } from "../helpers/collector.ts";
import type { Consumer } from "../helpers/consumer.ts";
import { createConsumer } from "../helpers/consumer.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { spawnGroup } from "../helpers/processes.ts";
import { codeBlocks } from "../helpers/readme-blocks.ts";
import { metric } from "../helpers/serve.ts";
import { waitUntil } from "../helpers/wait.ts";

// The newcomer path for the OTel GenAI conventions: the packed tarball installed into a fresh project
// with the real @opentelemetry/instrumentation-openai and openai (the versions of the otel
// instrumentation workspace, whose `npm ci` cached them), the set-up docs/collector.md shows compiled
// there as the user's own file, a small Express service calling a fake OpenAI server, and a collector.
// The project holds two copies of @opentelemetry/api-logs, as one does where groundwatch was installed
// before the OpenTelemetry packages: the standard `new NodeSDK({ instrumentations: [new
// OpenAIInstrumentation()] })` then scores nothing (every trace no_answer, no GenAI log record), the
// documented set-up scores every answer.
const ROOT = join(import.meta.dirname, "..", "..");
const WS = join(ROOT, "test", "instrumentations");
const installed = existsSync(join(WS, "otel", "node_modules"));

/** The ```ts block of the docs' GenAI set-up section: the file the user copies. */
function documentedSetUp(): string {
  const md = readFileSync(join(ROOT, "docs", "collector.md"), "utf8");
  const start = md.indexOf("## The OTel GenAI set-up (OpenAI)");
  if (start < 0) throw new Error("docs/collector.md: the GenAI set-up section is missing");
  const section = md.slice(start, md.indexOf("\n## ", start + 1));
  const blocks = codeBlocks("docs/collector.md", section).filter((b) => b.lang === "ts");
  if (blocks.length !== 1) throw new Error(`docs/collector.md: the GenAI set-up has ${blocks.length} ts blocks, not 1`);
  return `${blocks[0]!.lines.map((l) => l.text).join("\n")}\n`;
}

// What the instrumentation's README shows, with the same ES module hook, so that only where the
// instrumentation is created differs.
const STANDARD = `import { register } from "node:module";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { NodeSDK } from "@opentelemetry/sdk-node";

register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);
export const sdk = new NodeSDK({ instrumentations: [new HttpInstrumentation(), new OpenAIInstrumentation()] });
sdk.start();
`;

// The user's service: documents in the system message, the answer from the model.
const SERVICE = `import express from "express";
import OpenAI from "openai";
import { retrieve, systemPrompt } from "./kb.js";

const openai = new OpenAI({ baseURL: process.env.FAKE_OPENAI_URL, apiKey: "sk-fake" });
const app = express();
app.use(express.json());
app.post("/api/ask", async (req, res) => {
  const question = String(req.body.question);
  const reply = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "system", content: systemPrompt(retrieve(question)) }, { role: "user", content: question }] });
  res.json({ answer: reply.choices[0].message.content });
});
const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => console.log(\`listening on http://127.0.0.1:\${server.address().port}\`));
`;

const QUESTIONS = ["How many days do I have to return an item?", "How long does a refund take to arrive?", "What warranty do electronics have?", "Do I pay for return shipping?"];

describe.skipIf(!installed && !process.env.CI)("the docs' OTel GenAI set-up, from the packed tarball in a fresh project", () => {
  let consumer: Consumer;
  let fakeOpenAI: string;
  let fake: GroupProcess | undefined;
  beforeAll(async () => {
    if (!installed) throw new Error("test/instrumentations/otel is not installed: run the npm ci lines of .ci/run");
    consumer = createConsumer({
      deps: ["express", "@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/instrumentation", "@opentelemetry/instrumentation-http", "typescript", "@types/express", "@types/node"],
      workspace: { lockfile: join(WS, "otel", "package-lock.json"), deps: ["@opentelemetry/instrumentation-openai", "openai"] },
      // sdk-node pins @opentelemetry/api-logs exactly; with another 0.223.x at the top it gets a copy of its own.
      copies: { "node_modules/@opentelemetry/sdk-node/node_modules/@opentelemetry/api-logs": "@opentelemetry/api-logs" },
      extra: {
        "tracing.ts": documentedSetUp(),
        "standard.ts": STANDARD,
        "server.js": SERVICE,
        "kb.js": readFileSync(join(WS, "kb.js"), "utf8"),
        "tsconfig.json": JSON.stringify({ compilerOptions: { target: "ES2022", module: "node16", strict: true, outDir: "out", types: ["node"] }, include: ["tracing.ts", "standard.ts"] }),
      },
    });
    consumer.run("node", [join("node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"]);
    fake = spawnGroup(process.execPath, [join(WS, "fake-openai.js"), "0"], { killAfterTest: false });
    fakeOpenAI = (await fake.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/v1)/))[1] ?? "";
  }, 300_000);
  afterAll(async () => {
    fake?.signal("SIGKILL");
    await fake?.exited;
    consumer?.remove();
  }, 120_000);

  /** Runs the service with a tracing file against a collector, asks every question; returns the collector once every trace is settled. */
  async function run(tracing: string): Promise<RunningCollector> {
    const c = await startTestCollector({ promptContext: "system", traceTimeoutMs: 1000 });
    const service = spawnGroup(process.execPath, ["--import", `./out/${tracing}.js`, "server.js"], {
      cwd: consumer.dir,
      env: {
        ...process.env,
        PORT: "0",
        FAKE_OPENAI_URL: fakeOpenAI,
        OTEL_SERVICE_NAME: "genai-service",
        // The docs' three variables.
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${c.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${c.url}/v1/logs`,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_BLRP_SCHEDULE_DELAY: "100",
      },
    });
    const url = (await service.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? "";
    for (const question of QUESTIONS) {
      const res = await fetch(`${url}/api/ask`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) });
      expect(res.status, service.output()).toBe(200);
    }
    const settled = async (): Promise<number> => {
      const text = await (await fetch(`${c.url}/metrics`)).text();
      return metric(text, "groundwatch_collector_interactions_total") + metric(text, "groundwatch_collector_incomplete_total");
    };
    await waitUntil(`${QUESTIONS.length} traces scored or counted`, settled, (n) => n >= QUESTIONS.length, { timeout: 30_000, interval: 200 });
    await c.monitor.flush();
    return c;
  }

  const counts = async (c: RunningCollector): Promise<{ interactions: number; noAnswer: number; genaiLogs: number; scored: number }> => {
    const text = await (await fetch(`${c.url}/metrics`)).text();
    return {
      interactions: metric(text, "groundwatch_collector_interactions_total", 'groundwatch_convention="prompt"'),
      noAnswer: metric(text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="no_answer"'),
      genaiLogs: metric(text, "groundwatch_collector_log_records_total", 'groundwatch_convention="genai"'),
      scored: metric(text, "groundwatch_evaluations_total", 'groundwatch_verdict="grounded"') + metric(text, "groundwatch_evaluations_total", 'groundwatch_verdict="ungrounded"'),
    };
  };

  it("holds two copies of @opentelemetry/api-logs: the SDK's own, and the one the instrumentation's base class reads", () => {
    const from = (pkg: string): string => createRequire(join(consumer.dir, "node_modules", pkg, "package.json")).resolve("@opentelemetry/api-logs");
    expect(from("@opentelemetry/sdk-node")).toContain(join("sdk-node", "node_modules", "@opentelemetry", "api-logs"));
    expect(from("@opentelemetry/instrumentation")).toBe(join(consumer.dir, "node_modules", "@opentelemetry", "api-logs", "build", "src", "index.js"));
  });

  it("with the instrumentation passed to NodeSDK: the spans arrive, no GenAI log record does, every trace is no_answer", { timeout: 120_000 }, async () => {
    const c = await run("standard");
    expect(await counts(c)).toEqual({ interactions: 0, noAnswer: QUESTIONS.length, genaiLogs: 0, scored: 0 });
  });

  it("with the documented set-up: every answer is scored from the GenAI log records, none is no_answer", { timeout: 120_000 }, async () => {
    const c = await run("tracing");
    const n = await counts(c);
    expect(n).toMatchObject({ interactions: QUESTIONS.length, noAnswer: 0, scored: QUESTIONS.length });
    // A system message, a user message and a choice per call.
    expect(n.genaiLogs).toBe(3 * QUESTIONS.length);
    expect(c.incompleteStats()).toEqual({});
  });
});
