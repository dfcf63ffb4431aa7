import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSpools } from "../../src/review/spool-files.ts";
import { ATTR_CONTENT_EVIDENCE, ATTR_CONTENT_UNSUPPORTED_CLAIMS, METRICS } from "../../src/telemetry/semconv.ts";
import { tempDir } from "../helpers/cli.ts";
import { testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const CONTEXT = [{ id: "policy", title: "Returns policy", url: "https://example.com/returns", text: "Returns are accepted within 30 days of delivery for a full refund." }];
const BAD = { context: CONTEXT, answer: "Returns are accepted within 90 days of delivery.", question: "How long do I have to return an item?" };

/** Observes one ungrounded answer with content capture, the flagged ring and the review spool on, and the given redact hook. */
async function observeWith(redact: (text: string) => string) {
  const otel = testOtel();
  const dir = join(tempDir(), "spool");
  const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, redact, review: { dir } });
  monitor.observe({ route: "/r", ...BAD });
  await monitor.flush();
  const [span] = otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate");
  const metrics = await otel.metrics();
  const withheld = Object.fromEntries((metrics.get(METRICS.contentWithheld.name) ?? []).map((p) => [String(p.attributes["groundwatch.content.sink"]), { reason: p.attributes["groundwatch.reason"], route: p.attributes["groundwatch.route"], value: p.value }]));
  return { span, flagged: monitor.flagged(), spooled: readSpools([dir]).records, withheld };
}

describe("the content policy's one rule for a throwing redact hook", () => {
  it("records the evaluation without content at every sink — span, flagged ring, review spool — and counts each with its reason", async () => {
    const { span, flagged, spooled, withheld } = await observeWith(() => {
      throw new Error("redaction service down");
    });
    expect(span?.attributes).not.toHaveProperty(ATTR_CONTENT_UNSUPPORTED_CLAIMS);
    expect(span?.attributes).not.toHaveProperty(ATTR_CONTENT_EVIDENCE);
    expect(span?.attributes["groundwatch.verdict"]).toBe("ungrounded");
    expect(flagged).toHaveLength(1);
    expect(flagged[0]).not.toHaveProperty("answer");
    expect(flagged[0]).not.toHaveProperty("question");
    expect(flagged[0]?.claims.length).toBeGreaterThan(0);
    for (const claim of flagged[0]?.claims ?? []) expect(claim).not.toHaveProperty("text");
    expect(spooled).toEqual([]);
    expect(withheld).toEqual({
      span: { reason: "redact_error", route: "/r", value: 1 },
      flagged: { reason: "redact_error", route: "/r", value: 1 },
      review: { reason: "redact_error", route: "/r", value: 1 },
    });
  });

  it("applies the rule per sink: a hook that throws only on the question leaves the span's redacted content, and withholds the ring's and the spool's", async () => {
    const { span, flagged, spooled, withheld } = await observeWith((t) => {
      if (t === BAD.question) throw new Error("cannot redact questions");
      return t.replace(/\d+/g, "#");
    });
    expect(JSON.stringify(span?.attributes[ATTR_CONTENT_UNSUPPORTED_CLAIMS])).toContain("# days");
    expect(flagged[0]).not.toHaveProperty("answer");
    expect(spooled).toEqual([]);
    expect(Object.keys(withheld).sort()).toEqual(["flagged", "review"]);
  });
});
