import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EXAMPLE_QUESTIONS } from "../../examples/rag-service/knowledge.ts";
import type { AccountingStats } from "../helpers/monitor.ts";
import { startOtlpReceiver, total } from "../helpers/otlp-receiver.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const QUESTIONS = EXAMPLE_QUESTIONS;

/** The example RAG service, exporting OTLP to `otlp`; resolves once it listens (killed when the test ends). */
async function startService(otlp: string): Promise<{ service: GroupProcess; url: string }> {
  const service = spawnGroup(process.execPath, ["--import", "tsx", "examples/rag-service/server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      HF_HOME: "/nonexistent/groundwatch-test-hf-home",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_METRIC_EXPORT_INTERVAL: "300",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_BLRP_SCHEDULE_DELAY: "100",
      OTEL_SERVICE_NAME: "rag-service-e2e",
    },
  });
  return { service, url: await listeningUrl(service, 20_000) };
}

describe("example RAG service exporting real OTLP", () => {
  it("delivers evaluation spans, GenAI evaluation events and metrics that add up", { timeout: 60_000 }, async () => {
    const receiver = await startOtlpReceiver();
    const { service, url } = await startService(receiver.url);
    for (const question of QUESTIONS) {
      const res = await fetch(`${url}/api/ask`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) });
      expect(res.status).toBe(200);
    }
    const bad = await fetch(`${url}/api/ask`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(bad.status).toBe(400);
    const stats = await waitUntil("every question scored", async () => (await (await fetch(`${url}/stats`)).json()) as AccountingStats, (s) => s.scored === QUESTIONS.length, { timeout: 30_000, interval: 100, context: service.output });
    service.child.kill("SIGTERM");
    await service.exited;

    expect([...receiver.contentTypes]).toEqual(["application/x-protobuf"]);
    // Spans: one evaluation per answer, each a child of its request span.
    const requests = receiver.spans.filter((s) => s.name === "POST /api/ask");
    const evals = receiver.spans.filter((s) => s.name === "groundwatch.evaluate");
    expect(requests).toHaveLength(QUESTIONS.length + 1);
    expect(evals).toHaveLength(QUESTIONS.length);
    for (const e of evals) {
      const parent = requests.find((r) => r.spanId === e.parentSpanId);
      expect(parent?.traceId).toBe(e.traceId);
      expect(e.attributes).toMatchObject({ "groundwatch.route": "/api/ask", "groundwatch.backend.name": "offline", "groundwatch.backend.tier": "triage" });
      expect(["grounded", "ungrounded", "unscorable"]).toContain(e.attributes["groundwatch.verdict"]);
    }
    const verdicts = evals.map((e) => e.attributes["groundwatch.verdict"]);
    expect(verdicts).toContain("grounded");
    expect(verdicts).toContain("ungrounded");

    // Events: gen_ai.evaluation.result log records, in the request's trace.
    const events = receiver.logs.filter((l) => l.attributes["gen_ai.evaluation.name"] === "groundedness");
    expect(events).toHaveLength(QUESTIONS.length);
    for (const ev of events) {
      expect(ev.eventName).toBe("gen_ai.evaluation.result");
      expect(requests.some((r) => r.traceId === ev.traceId && r.spanId === ev.spanId)).toBe(true);
      expect(ev.attributes["gen_ai.evaluation.score.label"]).toMatch(/^(grounded|ungrounded|unscorable)$/);
    }
    const scored = events.filter((e) => typeof e.attributes["gen_ai.evaluation.score.value"] === "number");
    expect(scored.length).toBeGreaterThan(0);

    // Metrics: names, labels, and the accounting identity, as exported.
    const p = receiver.points;
    const seen = total(p, "groundwatch.observations.seen");
    const sampled = total(p, "groundwatch.observations.sampled");
    const notSampled = total(p, "groundwatch.observations.not_sampled");
    const scoredN = total(p, "groundwatch.observations.scored");
    const dropped = total(p, "groundwatch.observations.dropped");
    const failed = total(p, "groundwatch.observations.failed");
    expect(seen).toBe(QUESTIONS.length);
    expect(seen).toBe(sampled + notSampled);
    expect(sampled).toBe(scoredN + dropped + failed);
    expect(total(p, "groundwatch.evaluations")).toBe(QUESTIONS.length);
    expect(total(p, "groundwatch.evaluations", { "groundwatch.verdict": "ungrounded" })).toBe(verdicts.filter((v) => v === "ungrounded").length);
    expect(total(p, "groundwatch.groundedness.score")).toBe(verdicts.filter((v) => v !== "unscorable").length);
    expect(total(p, "groundwatch.claims")).toBeGreaterThanOrEqual(QUESTIONS.length);
    expect(p.some((x) => x.metric === "groundwatch.evaluation.duration")).toBe(true);
    expect(p.some((x) => x.metric === "groundwatch.queue.depth")).toBe(true);
    // Low-cardinality labels only (groundwatch.cause: one of five values, on ungrounded evaluations and their claims; groundwatch.engine: claims or spans, on the model-work counter); groundwatch.scoring.info alone also names the model, threshold and calibration (one series per configuration).
    const scoringInfo = ["groundwatch.backend.model", "groundwatch.threshold", "groundwatch.calibration.id"];
    for (const x of p.filter((q) => q.metric.startsWith("groundwatch."))) {
      const allowed = ["groundwatch.route", "groundwatch.backend.name", "groundwatch.backend.tier", "groundwatch.verdict", "groundwatch.claim.verdict", "groundwatch.reason", "groundwatch.cause", "groundwatch.engine", ...(x.metric === "groundwatch.scoring.info" ? scoringInfo : [])];
      for (const k of Object.keys(x.attributes)) expect(allowed, `${x.metric}`).toContain(k);
    }
    expect(p.filter((x) => x.metric === "groundwatch.scoring.info").map((x) => Object.keys(x.attributes).sort())[0]).toEqual(expect.arrayContaining(scoringInfo));
    expect(stats).toMatchObject({ seen: QUESTIONS.length, sampled: QUESTIONS.length, scored: QUESTIONS.length, pending: 0 });
  });
});
