import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startTestCollector } from "../helpers/collector.ts";
import { totalOf } from "../helpers/monitor.ts";
import { spawnGroup } from "../helpers/processes.ts";
import { waitUntil } from "../helpers/wait.ts";

// Real instrumentation packages (test/instrumentations/{otel,traceloop}, installed by .ci/run), the
// real openai client and LangChain.js, against a local fake OpenAI-compatible server, exporting
// OTLP/HTTP protobuf to a running collector: every trace must be scored, with the verdicts that
// posting the same question, context and answer to /v1/observations gives.
const ROOT = join(import.meta.dirname, "..", "..");
const WS = join(ROOT, "test", "instrumentations");
const installed = ["otel", "traceloop"].every((ws) => existsSync(join(WS, ws, "node_modules")));

// The fixed knowledge base and the fake model's answers (test/instrumentations/kb.js).
const DOCS: Record<string, string> = {
  "returns-1": "Items can be returned within 30 days of delivery for a full refund.",
  "refunds-1": "Refunds are issued to the original payment method within 5 business days after the return is received.",
  "warranty-1": "Electronics carry a 2-year limited warranty that covers manufacturing defects.",
  "shipping-1": "Return shipping is free for orders over $50; otherwise a $5 fee is deducted from the refund.",
};
const QUESTIONS = [
  { question: "How many days do I have to return an item?", docs: ["returns-1", "shipping-1"], answer: "You can return items within 30 days of delivery for a full refund." },
  { question: "How long does a refund take to arrive?", docs: ["refunds-1", "returns-1"], answer: "Refunds arrive within 14 days, as store credit rather than on the original payment method." },
  { question: "What warranty do electronics have?", docs: ["warranty-1"], answer: "Electronics carry a 2-year limited warranty that covers manufacturing defects." },
  { question: "Do I pay for return shipping?", docs: ["shipping-1", "returns-1"], answer: "Return shipping is always free, and you have 90 days to send the item back." },
];
const systemPrompt = (ids: readonly string[]): string => `Answer from these documents:\n${ids.map((id, i) => `[${i + 1}] ${DOCS[id]}`).join("\n")}`;

interface Setup {
  readonly name: string;
  readonly ws: "otel" | "traceloop";
  /** The convention the collector should report for its interactions. */
  readonly convention: string;
  /** Where the documents are: retrieved (a retriever span or event) or only in the system prompt. */
  readonly context: "retrieved" | "prompt";
}
const SETUPS: readonly Setup[] = [
  { name: "oi-openai-retriever", ws: "otel", convention: "openinference", context: "retrieved" },
  { name: "oi-openai-retriever-attributes", ws: "otel", convention: "openinference", context: "retrieved" },
  { name: "oi-openai-plain", ws: "otel", convention: "prompt", context: "prompt" },
  { name: "oi-langchain", ws: "otel", convention: "openinference", context: "retrieved" },
  { name: "genai-openai-chat", ws: "otel", convention: "prompt", context: "prompt" },
  { name: "genai-openai-responses", ws: "otel", convention: "prompt", context: "prompt" },
  { name: "traceloop-openai-vectordb", ws: "traceloop", convention: "openllmetry", context: "retrieved" },
  { name: "traceloop-langchain", ws: "traceloop", convention: "openllmetry", context: "retrieved" },
];

async function startFake(): Promise<string> {
  const fake = spawnGroup(process.execPath, [join(WS, "fake-openai.js"), "0"]);
  return (await fake.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/v1)/))[1] ?? "";
}

function runSetup(setup: Setup, collectorUrl: string, fakeUrl: string): Promise<string> {
  const child = spawn(process.execPath, [join(WS, setup.ws, "setups", `${setup.name}.js`)], {
    cwd: join(WS, setup.ws),
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", FAKE_OPENAI_URL: fakeUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${setup.name} did not finish in 60 s:\n${output}`));
    }, 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${setup.name} exited ${code}:\n${output}`));
    });
  });
}

/** Sums of a counter's series from /metrics, keyed by the given label's value. */
async function counter(c: RunningCollector, name: string, label: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${c.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)`, "gm"))) {
    const value = new RegExp(`${label}="([^"]*)"`).exec(m[1]!)?.[1] ?? "";
    out[value] = (out[value] ?? 0) + Number(m[2]);
  }
  return out;
}

async function collector(promptContext: string): Promise<RunningCollector> {
  return startTestCollector({ traceTimeoutMs: 1500, promptContext });
}

/** What the same interactions score when posted to /v1/observations: verdict → count. */
async function expectedVerdicts(context: Setup["context"]): Promise<Record<string, number>> {
  const c = await collector("off");
  const rows = QUESTIONS.map((q) => ({ route: "/expected", question: q.question, answer: q.answer, context: context === "prompt" ? [systemPrompt(q.docs)] : q.docs.map((id) => DOCS[id]!) }));
  const res = await fetch(`${c.url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rows) });
  expect(res.status).toBe(202);
  await c.monitor.flush();
  return counter(c, "groundwatch_evaluations_total", "groundwatch_verdict");
}

/** Waits until every expected trace was joined or counted incomplete, then for its scoring. */
async function settle(c: RunningCollector, expected: number): Promise<void> {
  const settled = async (): Promise<number> => totalOf(await counter(c, "groundwatch_collector_interactions_total", "groundwatch_convention")) + totalOf(await counter(c, "groundwatch_collector_incomplete_total", "groundwatch_reason"));
  await waitUntil(`${expected} traces joined or counted incomplete`, settled, (n) => n >= expected, { timeout: 20_000, interval: 200 });
  await c.monitor.flush();
}

describe.skipIf(!installed && !process.env.CI)("real instrumentations exporting to groundwatch serve", () => {
  it.each(SETUPS)("$name: every trace scored, read as $convention, with the verdicts of the same interactions posted as observations", { timeout: 90_000 }, async (setup) => {
    if (!installed) throw new Error("test/instrumentations workspaces are not installed: run the npm ci lines of .ci/run");
    const fake = await startFake();
    const c = await collector(setup.context === "prompt" ? "system" : "off");
    await runSetup(setup, c.url, fake);
    await settle(c, QUESTIONS.length);
    expect(await counter(c, "groundwatch_collector_incomplete_total", "groundwatch_reason")).toEqual({});
    expect(await counter(c, "groundwatch_collector_interactions_total", "groundwatch_convention")).toEqual({ [setup.convention]: QUESTIONS.length });
    // The GenAI set-ups' messages arrive as log records, counted as genai; no other set-up sends any.
    const logRecords = await counter(c, "groundwatch_collector_log_records_total", "groundwatch_convention");
    if (setup.name.startsWith("genai-")) expect(logRecords.genai).toBeGreaterThanOrEqual(QUESTIONS.length);
    else expect(logRecords.genai).toBe(0);
    const verdicts = await counter(c, "groundwatch_evaluations_total", "groundwatch_verdict");
    expect(verdicts).toEqual(await expectedVerdicts(setup.context));
  });

  it("oi-openai-plain without promptContext: nothing scored, every trace counted as no_documents_prompt_available", { timeout: 90_000 }, async () => {
    if (!installed) throw new Error("test/instrumentations workspaces are not installed: run the npm ci lines of .ci/run");
    const fake = await startFake();
    const c = await collector("off");
    await runSetup(SETUPS.find((s) => s.name === "oi-openai-plain")!, c.url, fake);
    await settle(c, QUESTIONS.length);
    expect(await counter(c, "groundwatch_collector_interactions_total", "groundwatch_convention")).toEqual({});
    expect(await counter(c, "groundwatch_collector_incomplete_total", "groundwatch_reason")).toEqual({ no_documents_prompt_available: QUESTIONS.length });
  });
});
