import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { startReviewWeb } from "../../src/cli/review/web-server.ts";
import type { ReviewWebServer } from "../../src/cli/review/web-server.ts";
import { readLabelRecords } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSpool } from "./review-web-fixtures.ts";

// The fixture's answer: "Items may be returned within 90 days. Refunds are full."
const HOSTILE = "<b onclick=x>full</b>";
const ANSWER = `Items may be returned within 90 days. Refunds are ${HOSTILE}.`;
const SPANS = [
  { start: 29, end: 36, probability: 0.93, claim: 0, text: "90 days" },
  { start: 50, end: 50 + HOSTILE.length, probability: 0.6, claim: 1, text: HOSTILE },
];

function call(server: ReviewWebServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers: body === undefined ? {} : { "content-type": "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function serve(): Promise<{ server: ReviewWebServer; labels: string }> {
  const dir = tempDir();
  writeSpool(dir, [spoolRecord("s1", { answer: ANSWER, spans: SPANS }), spoolRecord("n1")]);
  const labels = join(dir, "labels.jsonl");
  const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: labels, port: 0, now: () => new Date("2026-12-01T12:00:00.000Z") });
  onTestFinished(() => server.close());
  return { server, labels };
}

describe("groundwatch review --web: spans", () => {
  it("sends the spans and the answer cut at them, hostile words as JSON text", async () => {
    const { server } = await serve();
    const answer = (await call(server, "GET", "/api/next")).body.answer as { spans: unknown; answerSegments: unknown };
    expect(answer.spans).toEqual(SPANS);
    expect(answer.answerSegments).toEqual([
      { text: "Items may be returned within ", span: null },
      { text: "90 days", span: 0 },
      { text: ". Refunds are ", span: null },
      { text: HOSTILE, span: 1 },
      { text: ".", span: null },
    ]);
  });

  it("sends no spans for an answer no span detector read", async () => {
    const { server } = await serve();
    await call(server, "POST", "/api/skip", { id: "s1" });
    const answer = (await call(server, "GET", "/api/next")).body.answer as Record<string, unknown>;
    expect(answer.id).toBe("n1");
    expect(answer).not.toHaveProperty("spans");
    expect(answer).not.toHaveProperty("answerSegments");
  });

  it("writes the spans marked wrong with the label (the answer's spans only), and refuses a span mark that is not {span, verdict wrong}", async () => {
    const { server, labels } = await serve();
    expect((await call(server, "POST", "/api/label", { id: "s1", agreement: "disagree", spans: [{ span: "0", verdict: "wrong" }] })).status).toBe(400);
    expect((await call(server, "POST", "/api/label", { id: "s1", agreement: "disagree", spans: [{ span: 0, verdict: "right" }] })).status).toBe(400);
    expect((await call(server, "POST", "/api/label", { id: "s1", agreement: "disagree", spans: [{ span: 1, verdict: "wrong" }, { span: 5, verdict: "wrong" }] })).status).toBe(200);
    expect(readLabelRecords(labels).labels).toEqual([{ v: 1, id: "s1", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", label: 1, agreement: "disagree", spans: [{ span: 1, verdict: "wrong" }], kind: "flagged" }]);
  });
});
