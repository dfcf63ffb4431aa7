import { describe, expect, it } from "vitest";
import { keyValues } from "../collector/otlp-json.ts";
import { metric, post, startServe, tally } from "../helpers/serve.ts";

const ROUTES = 100_000;
const PER_REQUEST = 4000;
/** The collector's default maxRoutes, and the one overflow label. */
const MAX_ROUTES = 200;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");

/** One OTLP/JSON request: `count` traces, each one root LLM span with a document, an answer and its own http.route. */
function traces(first: number, count: number): string {
  const spans = Array.from({ length: count }, (_, k) => {
    const i = first + k;
    return {
      traceId: hex(i + 1, 32),
      spanId: hex(i + 1, 16),
      name: "chat",
      attributes: keyValues({
        "openinference.span.kind": "LLM",
        "http.route": `/orders/${i}/status`,
        "retrieval.documents.0.document.content": "Orders ship within two days.",
        "llm.output_messages.0.message.content": "Orders ship within two days.",
      }),
    };
  });
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: keyValues({ "service.name": "shop" }) }, scopeSpans: [{ spans }] }] });
}

/** Distinct label sets of a metric in Prometheus text. */
function series(text: string, name: string): number {
  return text.split("\n").filter((l) => l.startsWith(`${name}{`)).length;
}

describe("chaos: a route per request cannot grow the collector's metrics", () => {
  it("keeps every route-labelled series within maxRoutes + __other__ through 100,000 distinct routes over OTLP, counting all of them", async () => {
    const { started } = startServe(["--port", "0", "--sample-rate", "0"], {});
    const serve = await started;
    for (let first = 0; first < ROUTES; first += PER_REQUEST) {
      const body = traces(first, PER_REQUEST);
      expect(await post(`${serve.url}/v1/traces`, body)).toBe(200);
      // The same spans again, once their traces are settled: counted as late, under each trace's route.
      expect(await post(`${serve.url}/v1/traces`, body)).toBe(200);
    }
    const t = await tally(serve.url);
    for (const name of ["groundwatch_collector_interactions_total", "groundwatch_observations_seen_total", "groundwatch_collector_incomplete_total"]) {
      expect(series(t.text, name), name).toBeLessThanOrEqual(MAX_ROUTES + 1);
      expect(metric(t.text, name, 'groundwatch_route="__other__"'), name).toBeGreaterThan(0);
    }
    // Nothing is lost to the cap: every interaction, observation and late record is still counted.
    expect(metric(t.text, "groundwatch_collector_interactions_total")).toBe(ROUTES);
    expect(t.seen).toBe(ROUTES);
    expect(metric(t.text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="late"')).toBe(ROUTES);
    expect(t.text.length).toBeLessThan(512 * 1024);
  }, 240_000);
});
