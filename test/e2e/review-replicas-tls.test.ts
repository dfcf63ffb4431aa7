/**
 * Two `groundwatch serve` replicas over https with a private CA, as the Kubernetes deployment runs
 * them (GROUNDWATCH_PEERS_CA_FILE, GROUNDWATCH_PEERS_SERVER_NAME), each spooling to its own
 * directory: a label posted to the replica that does not hold the answer lands in the holder's
 * labels.jsonl, and the forward is counted ok on the asking replica's /metrics.
 */
import { createHash } from "node:crypto";
import { request } from "node:https";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { tracesJson } from "../collector/otlp-json.ts";
import { labelsPath, readLabelRecords, readSpools } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { RETURNS_DOC } from "../helpers/collector.ts";
import { closedPort } from "../helpers/net.ts";
import type { Serve } from "../helpers/serve.ts";
import { metric, startServe } from "../helpers/serve.ts";
import { TLS_FIXTURES, testCa } from "../helpers/tls.ts";

const TOKEN = "review-replicas-tls-token-0123456789abcdef";
const POLL = { timeout: 30_000, interval: 100 };
const QUESTION = "How long do I have to return an item?";
const BAD = "You can return unopened items within 90 days of delivery.";

const trace = (id: string): string =>
  JSON.stringify(
    tracesJson(id, [
      { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
      { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": RETURNS_DOC } },
      { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": BAD } },
    ]),
  );

/** One request over https trusting the fixtures' CA (the certificate names 127.0.0.1), with the token. */
function call(url: string, method: "GET" | "POST", body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } : {}) };
    const req = request(url, { method, agent: false, ca: testCa(), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("review across replicas over https with the peers' private CA", () => {
  it("forwards a label to the replica holding the answer, which writes it; the forward counted ok on /metrics", async () => {
    const ports = [await closedPort(), await closedPort()];
    const peers = ports.map((p) => `https://127.0.0.1:${p}`).join(",");
    const root = tempDir();
    const replicas = await Promise.all(
      ["r1", "r2"].map(async (name, i): Promise<{ name: string; dir: string; serve: Serve }> => {
        const dir = join(root, name);
        const env = {
          GROUNDWATCH_CAPTURE_CONTENT: "1",
          GROUNDWATCH_REVIEW_REPLICA: name,
          GROUNDWATCH_TOKEN: TOKEN,
          GROUNDWATCH_TLS_CERT_FILE: TLS_FIXTURES.cert,
          GROUNDWATCH_TLS_KEY_FILE: TLS_FIXTURES.key,
          GROUNDWATCH_PEERS_CA_FILE: TLS_FIXTURES.ca,
          GROUNDWATCH_PEERS_SERVER_NAME: "groundwatch",
        };
        const serve = await startServe(["--port", String(ports[i]), "--sample-rate", "1", "--review-dir", dir, "--review-sample-rate", "1", "--peers", peers], env).started;
        onTestFinished(async () => {
          serve.signal("SIGTERM");
          await serve.exited;
        });
        return { name, dir, serve };
      }),
    );
    const [r1, r2] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    expect(r1.serve.url).toMatch(/^https:/);
    const id = createHash("sha256").update("review-replicas-tls").digest("hex").slice(0, 32);
    expect((await call(`${r2.serve.url}/v1/traces`, "POST", trace(id))).status).toBe(200);
    await expect.poll(() => readSpools([r2.dir]).records.length, POLL).toBe(1);
    const held = readSpools([r2.dir]).records[0];
    const label = { v: 1, id: held?.id ?? "", reviewer: "ana", time: "2026-12-01T10:00:00.000Z", label: 0, agreement: "agree", kind: held?.kind ?? "flagged" };

    const okBefore = metric((await call(`${r1.serve.url}/metrics`, "GET")).text, "groundwatch_peer_requests_total", 'groundwatch_outcome="ok"');
    const out = await call(`${r1.serve.url}/v1/review/labels`, "POST", JSON.stringify({ label, seen: [] }));
    expect(out.status, out.text).toBe(200);
    expect(JSON.parse(out.text)).toMatchObject({ replica: "r2", partial: false });
    expect(readLabelRecords(labelsPath(r2.dir)).labels.map((l) => l.id)).toEqual([label.id]);
    expect(readLabelRecords(labelsPath(r1.dir)).labels).toEqual([]);
    // Asked r2 who holds it (ok), then the forward (ok); r1 itself is left out.
    const metrics = (await call(`${r1.serve.url}/metrics`, "GET")).text;
    expect(metric(metrics, "groundwatch_peer_requests_total", 'groundwatch_outcome="ok"') - okBefore).toBe(2);
    for (const bad of ["timeout", "unreachable", "unauthorized", "bad_reply"]) expect(metric(metrics, "groundwatch_peer_requests_total", `groundwatch_outcome="${bad}"`), bad).toBe(0);
  });
});
