/* global console, process */
// Prints a fixture (test/fixtures/instrumentations/<name>.json) as span trees with attributes,
// span events and log records, values shortened. Usage: node summarize.js <name|path> [maxLen]
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = process.argv[2];
const max = Number(process.argv[3] ?? 90);
const path = arg.endsWith(".json") ? arg : join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "instrumentations", `${arg}.json`);
const fx = JSON.parse(readFileSync(path, "utf8"));
const KINDS = ["UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
const short = (s) => { s = JSON.stringify(s); return s.length > max ? `${s.slice(0, max)}…(${s.length})` : s; };
function val(v) {
  if (!v) return v;
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("boolValue" in v) return v.boolValue;
  if ("arrayValue" in v) return (v.arrayValue.values ?? []).map(val);
  if ("kvlistValue" in v) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, val(kv.value)]));
  return v;
}
const attrs = (list, ind) => (list ?? []).map((a) => `${ind}${a.key} = ${short(val(a.value))}`).join("\n");
const spans = [];
for (const req of fx.traces) for (const rs of req.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, scope: ss.scope?.name, resource: rs.resource });
console.log(`# ${fx.setup}\n${JSON.stringify(fx.packages)}`);
console.log(`resource: ${short(Object.fromEntries((spans[0]?.resource?.attributes ?? []).map((a) => [a.key, val(a.value)])))}`);
const traces = [...new Set(spans.map((s) => s.traceId))];
console.log(`${spans.length} spans in ${traces.length} traces`);
const print = (s, depth) => {
  const ind = "  ".repeat(depth);
  console.log(`${ind}- ${s.name} [${KINDS[s.kind] ?? s.kind}] scope=${s.scope} span=${s.spanId}${s.status?.code ? ` status=${s.status.code}` : ""}`);
  console.log(attrs(s.attributes, `${ind}    `));
  for (const e of s.events ?? []) { console.log(`${ind}    event ${e.name}`); console.log(attrs(e.attributes, `${ind}      `)); }
  for (const c of spans.filter((x) => x.parentSpanId === s.spanId && x.traceId === s.traceId)) print(c, depth + 1);
};
for (const [i, t] of traces.entries()) {
  if (process.env.ALL || i === 0) {
    console.log(`trace ${t}`);
    const ids = new Set(spans.filter((s) => s.traceId === t).map((s) => s.spanId));
    for (const r of spans.filter((s) => s.traceId === t && (!s.parentSpanId || !ids.has(s.parentSpanId)))) print(r, 1);
  }
}
for (const req of fx.logs) for (const rl of req.resourceLogs ?? []) for (const sl of rl.scopeLogs ?? []) for (const r of sl.logRecords ?? []) {
  if (!process.env.ALL && r.traceId !== traces[0]) continue;
  console.log(`log scope=${sl.scope?.name} eventName=${r.eventName} sev=${r.severityNumber} trace=${r.traceId} span=${r.spanId}`);
  console.log(attrs(r.attributes, "    "));
  console.log(`    body = ${short(val(r.body))}`);
}
