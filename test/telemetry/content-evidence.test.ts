import { describe, expect, it } from "vitest";
import { ATTR_CONTENT_EVIDENCE, ATTR_CONTENT_UNSUPPORTED_CLAIMS } from "../../src/telemetry/semconv.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { recordSummary, scoreOnce } from "../helpers/record-summary.ts";

// The fake backend contradicts a claim whose window holds "NOT-" + its last word, and entails one whose window holds that word.
const DOC = "The shop sells cakes and pies. The shop NOT-bread opens at eight. Our tea room seats forty guests by the river.";

describe("captured content: the evidence recorded is the sentence that bears on each claim", () => {
  it("records, for a contradicted claim, the sentence that contradicts it; for an unsupported one, its nearest sentence; not the window", async () => {
    const r = await scoreOnce(createFakeBackend(), { context: [DOC], answer: "The shop sells bread. The tea room has a piano." });
    expect(r.claims.map((c) => c.verdict)).toEqual(["contradicted", "unsupported"]);
    const summary = summarize(r, true);
    expect(summary.content?.evidence).toEqual(["The shop NOT-bread opens at eight.", "Our tea room seats forty guests by the river."]);
    const { span } = await recordSummary(summary, { openInference: false, captureContent: true });
    expect(span?.attributes[ATTR_CONTENT_UNSUPPORTED_CLAIMS]).toEqual(["The shop sells bread.", "The tea room has a piano."]);
    expect(span?.attributes[ATTR_CONTENT_EVIDENCE]).toEqual(["The shop NOT-bread opens at eight.", "Our tea room seats forty guests by the river."]);
  });

  it("records no evidence text unless content capture is on", async () => {
    const r = await scoreOnce(createFakeBackend(), { context: [DOC], answer: "The shop sells bread." });
    expect(summarize(r, false)).not.toHaveProperty("content");
  });
});
