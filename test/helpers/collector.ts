/** An in-process collector for tests: offline scoring, every observation sampled, ready to score, closed when the test ends. */
import { onTestFinished } from "vitest";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startCollector } from "../../src/collector/server.ts";

/** No model hub: scoring runs the offline backend. */
export const COLLECTOR_TEST_ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };

/** A retrieved document the collector tests answer from (and misquote). */
export const RETURNS_DOC = "Returns: you may return unopened items within 30 days of delivery for a full refund.";

export async function startTestCollector(extra: Parameters<typeof startCollector>[0] = {}): Promise<RunningCollector> {
  const c = await startCollector({ env: COLLECTOR_TEST_ENV, port: 0, ...extra, monitor: { sampling: { default: 1 }, scoring: { backend: "offline" }, ...extra.monitor } });
  onTestFinished(() => c.close(2000));
  await c.monitor.ready();
  return c;
}

/** POSTs JSON (or a raw body) to the collector. */
export function postJson(url: string, body: string | Buffer | object, headers: Record<string, string> = { "content-type": "application/json" }): Promise<Response> {
  return fetch(url, { method: "POST", headers, body: typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body) });
}

/** POSTs answers to one route, each against `document`, as /v1/observations, and waits until the collector has scored them. */
export async function postAnswers(c: RunningCollector, route: string, answers: readonly string[], document: string): Promise<void> {
  const res = await postJson(`${c.url}/v1/observations`, answers.map((answer) => ({ route, context: [document], answer })));
  if (res.status !== 202) throw new Error(`/v1/observations answered ${res.status}`);
  await c.monitor.flush();
}
