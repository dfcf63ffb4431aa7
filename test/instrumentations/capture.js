/* global Buffer, clearTimeout, console, process, setTimeout */
// Captures what each instrumentation set-up really emits. Starts the fake OpenAI server and a local
// OTLP/HTTP receiver (both on 127.0.0.1), runs each set-up as a child process with its exporters
// pointed at the receiver (OTLP/JSON), and writes test/fixtures/instrumentations/<name>.json =
// { setup, packages, traces: [ExportTraceServiceRequest…], logs: [ExportLogsServiceRequest…] }.
// Usage (after `npm ci` in otel/ and traceloop/): node test/instrumentations/capture.js [name…]
// CAPTURE_PROTOCOL=http/protobuf makes the set-ups export protobuf (decoded here with protobufjs and
// the vendored proto/ files, ids as hex); CAPTURE_OUT=<dir> writes the fixtures elsewhere.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { startFakeOpenAI } from "./fake-openai.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const OUT_DIR = process.env.CAPTURE_OUT ?? join(ROOT, "test", "fixtures", "instrumentations");

const OI = ["@arizeai/openinference-core", "@arizeai/openinference-semantic-conventions", "@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-http", "openai"];
const GENAI = ["@opentelemetry/instrumentation-openai", "@opentelemetry/sdk-trace-node", "@opentelemetry/sdk-logs", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/exporter-logs-otlp-http", "openai"];
const LC = ["@langchain/core", "@langchain/openai", "@langchain/classic"];
const TL = ["@traceloop/node-server-sdk", "@traceloop/instrumentation-openai", "@traceloop/ai-semantic-conventions", "@opentelemetry/exporter-trace-otlp-http"];

/** Each set-up: its workspace folder and the packages whose versions the fixture records. */
export const SETUPS = {
  "oi-openai-retriever": { ws: "otel", packages: ["@arizeai/openinference-instrumentation-openai", ...OI] },
  "oi-openai-plain": { ws: "otel", packages: ["@arizeai/openinference-instrumentation-openai", ...OI] },
  "oi-openai-retriever-attributes": { ws: "otel", packages: ["@arizeai/openinference-instrumentation-openai", ...OI] },
  "oi-langchain": { ws: "otel", packages: ["@arizeai/openinference-instrumentation-langchain", ...OI, ...LC] },
  "genai-openai-chat": { ws: "otel", packages: GENAI },
  "genai-openai-responses": { ws: "otel", packages: GENAI },
  "traceloop-openai-vectordb": { ws: "traceloop", packages: [...TL, "openai"] },
  "traceloop-langchain": { ws: "traceloop", packages: [...TL, "@traceloop/instrumentation-langchain", ...LC, "openai"] },
};

function versionOf(ws, pkg) {
  try {
    return JSON.parse(readFileSync(join(HERE, ws, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

/** protobuf → OTLP/JSON shape (hex ids), only used if some exporter ignores http/json. */
let protoRoot;
async function decodeProtobuf(kind, buf) {
  if (!protoRoot) {
    const { default: protobuf } = await import("protobufjs");
    protoRoot = new protobuf.Root();
    protoRoot.resolvePath = (_origin, target) => join(ROOT, "proto", target);
    await protoRoot.load(["opentelemetry/proto/collector/trace/v1/trace_service.proto", "opentelemetry/proto/collector/logs/v1/logs_service.proto"], { keepCase: false });
  }
  const type = protoRoot.lookupType(kind === "traces" ? "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest" : "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest");
  const obj = type.toObject(type.decode(buf), { longs: String, bytes: String, enums: Number, defaults: false, arrays: true });
  const hex = (b64) => Buffer.from(b64, "base64").toString("hex");
  const fix = (o) => {
    if (Array.isArray(o)) return o.forEach(fix);
    if (o && typeof o === "object") {
      for (const k of ["traceId", "spanId", "parentSpanId"]) if (typeof o[k] === "string") o[k] = hex(o[k]);
      Object.values(o).forEach(fix);
    }
  };
  fix(obj);
  return obj;
}

/** An OTLP/HTTP receiver: POST /<setup>/v1/{traces,logs}; bodies kept per set-up. */
function startReceiver() {
  const bySetup = new Map();
  const pending = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const m = /^\/([^/]+)\/v1\/(traces|logs|metrics)$/.exec(req.url ?? "");
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const isJson = String(req.headers["content-type"] ?? "").includes("json");
      if (m && m[2] !== "metrics") {
        const entry = bySetup.get(m[1]) ?? { traces: [], logs: [], contentTypes: new Set() };
        bySetup.set(m[1], entry);
        entry.contentTypes.add(String(req.headers["content-type"]));
        const p = (isJson ? Promise.resolve(JSON.parse(body.toString("utf8"))) : decodeProtobuf(m[2], body)).then((obj) => entry[m[2]].push(obj));
        pending.add(p);
        p.finally(() => pending.delete(p));
      }
      res.writeHead(200, { "content-type": isJson ? "application/json" : "application/x-protobuf" });
      res.end(isJson ? "{}" : "");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({
    url: `http://127.0.0.1:${server.address().port}`, bySetup,
    settle: () => Promise.all([...pending]),
    close: () => new Promise((r) => server.close(() => r())),
  })));
}

/**
 * JSON with the envelope indented and each resource, scope, span and log record on one line: small,
 * and diffs still show which span changed.
 */
const ONE_LINE = new Set(["resource", "scope", "spans", "logRecords"]);
function format(value, indent = "", key = "") {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const next = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((v) => (ONE_LINE.has(key) ? JSON.stringify(v) : format(v, next)));
    return `[\n${items.map((i) => `${next}${i}`).join(",\n")}\n${indent}]`;
  }
  if (ONE_LINE.has(key)) return JSON.stringify(value);
  const entries = Object.entries(value).map(([k, v]) => `${next}${JSON.stringify(k)}: ${format(v, next, k)}`);
  return entries.length ? `{\n${entries.join(",\n")}\n${indent}}` : "{}";
}

function run(name, ws, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(HERE, ws, "setups", `${name}.js`)], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SETUPS);
const fake = await startFakeOpenAI();
const receiver = await startReceiver();
mkdirSync(OUT_DIR, { recursive: true });
let failed = 0;
for (const name of wanted) {
  const setup = SETUPS[name];
  if (!setup) throw new Error(`unknown set-up ${name}; known: ${Object.keys(SETUPS).join(", ")}`);
  if (!existsSync(join(HERE, setup.ws, "node_modules"))) {
    console.log(`SKIP ${name}: run npm ci in test/instrumentations/${setup.ws} first`);
    failed++;
    continue;
  }
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME,
    FAKE_OPENAI_URL: fake.url,
    OPENAI_API_KEY: "sk-fake",
    OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/${name}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: process.env.CAPTURE_PROTOCOL ?? "http/json",
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    TRACELOOP_TELEMETRY: "false",
  };
  const { code, out } = await run(name, setup.ws, env);
  await receiver.settle();
  const got = receiver.bySetup.get(name) ?? { traces: [], logs: [], contentTypes: new Set() };
  const spans = got.traces.flatMap((r) => r.resourceSpans ?? []).flatMap((rs) => rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []).length;
  const records = got.logs.flatMap((r) => r.resourceLogs ?? []).flatMap((rl) => rl.scopeLogs ?? []).flatMap((sl) => sl.logRecords ?? []).length;
  const packages = Object.fromEntries(setup.packages.map((p) => [p, versionOf(setup.ws, p)]));
  const fixture = { setup: name, packages, traces: got.traces, logs: got.logs };
  writeFileSync(join(OUT_DIR, `${name}.json`), `${format(fixture)}\n`);
  const ok = code === 0 && spans > 0;
  if (!ok) failed++;
  console.log(`${ok ? "OK  " : "FAIL"} ${name}: exit ${code}, ${spans} spans, ${records} log records (${[...got.contentTypes].join(", ")})`);
  if (!ok || process.env.CAPTURE_VERBOSE) console.log(out.trim().split("\n").map((l) => `     ${l}`).join("\n"));
}
await receiver.close();
await fake.close();
process.exitCode = failed ? 1 : 0;
