import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it, onTestFinished } from "vitest";
import { flaggedLines } from "../../src/cli/flagged.ts";
import { flaggedHandler } from "../../src/collector/flagged-route.ts";
import { createFlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import type { FlaggedAnswer } from "../../src/evaluation/types.ts";
import { runCli } from "../helpers/cli.ts";
import { SPAN_ANSWER } from "../helpers/span-results.ts";

const ESC = "\u001b";
const ENV = { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_LOG_LEVEL: "", GROUNDWATCH_TOKEN: "", NO_COLOR: "" };

const entry = (extra: Partial<FlaggedAnswer> = {}): FlaggedAnswer => ({
  traceId: "c".repeat(32),
  spanId: "d".repeat(16),
  time: "2026-01-01T00:00:00.000Z",
  route: "/ask",
  verdict: "ungrounded",
  score: 0.09,
  answer: SPAN_ANSWER,
  claims: [
    { verdict: "unsupported", start: 0, end: 30, evidence: null, reason: "unsupported_span", spans: [0] },
    { verdict: "unsupported", start: 31, end: 55, evidence: null, reason: "unsupported_span", spans: [1] },
  ],
  spans: [
    { start: 25, end: 29, probability: 0.91, claim: 0, text: "Lyon" },
    { start: 38, end: 47, probability: 0.874, claim: 1, text: "3 million" },
  ],
  ...extra,
});

describe("groundwatch flagged with spans", () => {
  it("shows the answer with its spans marked, each span with probability and claim, and each claim's marked words", () => {
    const text = flaggedLines(entry()).join("\n");
    expect(text).toContain("  marked:   The capital of France is [[Lyon]]. It has [[3 million]] people.");
    expect(text).toContain("  spans: 2 marked");
    expect(text).toContain("    «Lyon» [25, 29) p=0.91 in claim 0");
    expect(text).toContain("      marked: «3 million» p=0.87");
    const color = flaggedLines(entry(), { color: true }).join("\n");
    expect(color).toContain(`is ${ESC}[1;31mLyon${ESC}[22;39m.`);
    expect(color).not.toContain("[[");
  });

  it("without content capture, lists the spans by offsets and probability and marks nothing", () => {
    const { answer: _answer, ...bare } = entry();
    const text = flaggedLines({ ...bare, spans: (bare.spans ?? []).map(({ text: _t, ...s }) => s) }).join("\n");
    expect(text).not.toContain("marked:   ");
    expect(text).toContain("    [25, 29) p=0.91 in claim 0");
    expect(text).toContain("      marked: [25, 29) p=0.91");
    expect(text).not.toContain("Lyon");
  });

  it("marks only the spans whose words the (redacted) answer still holds at their offsets", () => {
    const text = flaggedLines(entry({ answer: "The capital of France is ####. It has 3 million people." })).join("\n");
    expect(text).toContain("  marked:   The capital of France is ####. It has [[3 million]] people.");
    expect(text).toContain("«Lyon» [25, 29) p=0.91 in claim 0");
  });

  it("lets no control character of a reply's span or answer reach the terminal, and ignores spans that are not spans", () => {
    const answer = "x \u001b]8;;http://evil\u0007link\u001b]8;;\u0007 \u009b2J\u202e y";
    const hostile = { start: 2, end: answer.length - 2, probability: 0.99, claim: 0, text: answer.slice(2, -2) };
    const junk = [null, { start: "a", end: 3 }, { start: 1 }] as unknown as FlaggedAnswer["spans"] & object;
    for (const color of [false, true]) {
      const lines = flaggedLines(entry({ answer, claims: [{ verdict: "unsupported", start: 0, end: answer.length, evidence: null, spans: [0, 5] }], spans: [hostile, ...junk] }), { color });
      const ours = lines.join("\n").replaceAll(`${ESC}[1;31m`, "").replaceAll(`${ESC}[22;39m`, "");
      for (const control of [ESC, "\u0007", "\u009b", "\u202e"]) expect(ours).not.toContain(control);
      expect(ours).toContain("spans: 1 marked");
    }
  });

  it("an answer without spans prints as before", () => {
    const { spans: _spans, ...rest } = entry();
    const text = flaggedLines({ ...rest, claims: rest.claims.map(({ spans: _s, reason: _r, ...c }) => c) }).join("\n");
    for (const absent of ["spans:", "marked", "[["]) expect(text).not.toContain(absent);
  });

  it("prints the spans a collector's feed carries, in its table and its JSONL", async () => {
    const ring = createFlaggedRing({ perRoute: 10, maxBytes: 1 << 20 });
    const { time: _time, ...kept } = entry();
    ring.add(kept);
    const app = express();
    const handle = flaggedHandler({ page: (q) => ring.page(q), badRequest: (_req, res, error) => void res.status(400).json({ error }) });
    app.get("/v1/flagged", handle);
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const table = await runCli(["flagged", "--url", url], { env: ENV });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("The capital of France is [[Lyon]]. It has [[3 million]] people.");
    expect(table.stdout).toContain("«3 million» [38, 47) p=0.87 in claim 1");
    const jsonl = await runCli(["flagged", "--url", url, "--format", "jsonl"], { env: ENV });
    expect((JSON.parse(jsonl.stdout.trim()) as FlaggedAnswer).spans).toEqual(kept.spans);
  });
});
