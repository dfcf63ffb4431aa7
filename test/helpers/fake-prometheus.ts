/** A stand-in for Prometheus' HTTP API, for commands that query it (groundwatch evidence) where no real one runs. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";

/** A Prometheus HTTP API that is ready and answers every query with one groundwatch series. */
export async function startFakePrometheus(): Promise<string> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/-/ready") {
      res.writeHead(200).end("Prometheus Server is Ready.\n");
      return;
    }
    const range = url.pathname.endsWith("/query_range");
    const metric = { groundwatch_route: "/api/answer", groundwatch_backend_name: "offline", groundwatch_backend_tier: "triage", alertname: "GroundwatchHallucinationRateHigh", severity: "page" };
    const result = [{ metric, ...(range ? { values: [[Number(url.searchParams.get("start") ?? 1_700_000_000), "0.25"]] } : { value: [1_700_000_000, "12"] }) }];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "success", data: { resultType: range ? "matrix" : "vector", result } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
