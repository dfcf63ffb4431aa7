/**
 * Chaos: answers carrying adversarial citation text ("(source:" or "[sources :" followed by whitespace
 * runs, 60–100 KB, with named documents) arrive through OTLP traces, interleaved with normal ones.
 * The citation parser once took 12.5 s on 8 KB of this and did not finish 49 KB in 120 s, stalling the
 * scoring worker: normal observations went unscored and /readyz flapped. Now every normal observation
 * is scored, /readyz answers 200 throughout, and each adversarial one is scored or counted.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tracesJson } from "../collector/otlp-json.ts";
import type { JsonSpan } from "../collector/otlp-json.ts";
import { tempDir } from "../helpers/cli.ts";
import { closedPort } from "../helpers/net.ts";
import { metric, post, startServe, tally } from "../helpers/serve.ts";

const ROOT = "0000000000000001";
const RETRIEVER = "0000000000000002";
const LLM = "0000000000000003";
const DOCS = [
  { id: "returns.md", text: "Returns are accepted within 30 days of delivery for a full refund." },
  { id: "refunds.md", text: "Refunds reach the original payment method within 5 business days." },
];
const NORMAL = "Returns are accepted within 30 days of delivery (source: returns.md).";
const LEAD = "Returns are accepted within 30 days of delivery";
const ADVERSARIAL = [
  `${LEAD} (source:${" ".repeat(60_000)}`,
  `${LEAD} [sources :${" \t".repeat(40_000)}`,
  `${LEAD} (source: returns.md${" ".repeat(80_000)}x)`,
  `${LEAD} ${`(source:${" ".repeat(40)}`.repeat(2_000)}`,
  `${LEAD} (source: returns.md${"\n ".repeat(50_000)})`,
];
const ADVERSARIAL_COUNT = 10;
const NORMAL_COUNT = 40;

const traceId = (n: number): string => (n + 1).toString(16).padStart(32, "0");
const trace = (n: number, answer: string, route: string): object => {
  const documents: JsonSpan = {
    spanId: RETRIEVER,
    parentSpanId: ROOT,
    attributes: { "openinference.span.kind": "RETRIEVER", ...Object.fromEntries(DOCS.flatMap((d, i) => [[`retrieval.documents.${i}.document.id`, d.id], [`retrieval.documents.${i}.document.content`, d.text]])) },
  };
  const llm: JsonSpan = { spanId: LLM, parentSpanId: ROOT, attributes: { "openinference.span.kind": "LLM", "output.value": answer } };
  return tracesJson(traceId(n), [documents, llm, { spanId: ROOT, attributes: { "http.route": route } }]);
};

describe("chaos: adversarial citation text through OTLP traces", () => {
  it("scores every normal observation, keeps /readyz at 200 throughout, and scores or counts every adversarial one", { timeout: 240_000 }, async () => {
    const dead = await closedPort();
    // The collector and the scorer both take answers up to 200 KB, so all of the adversarial text
    // reaches the citation parser (the default 20,000-character scoring limit would cut it first).
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ collector: { maxAnswerChars: 200_000 } }));
    const { started } = startServe(["--port", "0", "--sample-rate", "1", "--config", config], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${dead}`,
      GROUNDWATCH_MAX_ANSWER_CHARS: "200000",
    });
    const serve = await started;

    // /readyz, polled from start to end (a refused connection reads as status 0).
    const readyz: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        readyz.push(await fetch(`${serve.url}/readyz`).then((r) => r.status, () => 0));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const on = (route: string) => `groundwatch_route="${route}"`;
    const settled = async () => {
      const t = await tally(serve.url);
      const adversarial = ["groundwatch_observations_scored_total", "groundwatch_observations_dropped_total", "groundwatch_observations_failed_total", "groundwatch_collector_incomplete_total"].map((name) => metric(t.text, name, on("/adversarial")));
      return { normalScored: metric(t.text, "groundwatch_observations_scored_total", on("/ask")), adversarialAccounted: adversarial.reduce((a, b) => a + b, 0), scoredAdversarial: adversarial[0] };
    };
    try {
      // A 429 keeps nothing: the same trace is sent again until it is taken.
      const send = (body: object): Promise<void> => expect.poll(() => post(`${serve.url}/v1/traces`, JSON.stringify(body)), { timeout: 60_000, interval: 100 }).toBe(200);
      let n = 0;
      for (let i = 0; i < NORMAL_COUNT; i++) {
        await send(trace(n++, NORMAL, "/ask"));
        if (i % 4 === 3) await send(trace(n++, ADVERSARIAL[((i + 1) / 4 - 1) % ADVERSARIAL.length] ?? "", "/adversarial"));
      }
      expect(n).toBe(NORMAL_COUNT + ADVERSARIAL_COUNT);
      await expect.poll(settled, { timeout: 120_000, interval: 200 }).toMatchObject({ normalScored: NORMAL_COUNT, adversarialAccounted: ADVERSARIAL_COUNT });
    } finally {
      polling = false;
      await poller;
    }

    expect(readyz.length).toBeGreaterThan(0);
    expect(readyz.filter((s) => s !== 200)).toEqual([]);
    // Nothing failed: the parser finished on every adversarial answer, within the scoring timeout.
    const t = await tally(serve.url);
    expect(metric(t.text, "groundwatch_observations_failed_total")).toBe(0);
    expect((await settled()).scoredAdversarial).toBe(ADVERSARIAL_COUNT);
  });
});
