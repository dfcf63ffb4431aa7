/**
 * Chaos: `groundwatch serve` as deployed (deploy/kubernetes: the probes on their own listener, the
 * default connection caps) against 1,100 connections that send `GET /healthz HTTP/1.1\r\nHo` and never
 * read (issue 35, H1). Before, every one of them answered 408 kept its slot for as long as the client
 * liked: /healthz, /readyz, /metrics and ingest were refused indefinitely and the kubelet would restart
 * a healthy pod. Now the probes answer within the deployment's probe timeout throughout, the main
 * port's slots come back once the connections time out, and every held connection is counted.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { tempDir } from "../helpers/cli.ts";
import { spawnGroup } from "../helpers/processes.ts";
import { metric, startServe } from "../helpers/serve.ts";
import { waitUntil } from "../helpers/wait.ts";
import type { Workload } from "../deploy/manifests.ts";
import { env, one } from "../deploy/manifests.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HELD = 1100;
/** The held connections come from these loopback addresses, 220 each: under the per-address cap (256), over the cap (1024) together, as from several hosts. */
const ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"];

const deployed = one<Workload>("StatefulSet", "groundwatch").spec.template.spec.containers.find((c) => c.name === "groundwatch")!;
/** The kubelet's wait for a probe's answer: the shortest of the deployment's liveness and readiness timeouts. */
const PROBE_TIMEOUT_MS = 1000 * Math.min(deployed.livenessProbe?.timeoutSeconds ?? 1, deployed.readinessProbe?.timeoutSeconds ?? 1);

/** This process's hard limit on open files (what a child may raise its own limit to). */
function hardOpenFiles(): number {
  const line = /^Max open files\s+\S+\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
  return line === undefined || line === "unlimited" ? Number.POSITIVE_INFINITY : Number(line);
}

/** A kubelet-style probe: a new connection, one GET, the status within PROBE_TIMEOUT_MS, or what went wrong. */
function probe(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false, headers: { connection: "close" }, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)));
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe("chaos: the collector under connections that never read", () => {
  it(`answers /healthz and /readyz within the probe timeout while ${HELD} connections that never read exhaust the main port, then gives the slots back`, { timeout: 180_000 }, async () => {
    // What the deployment sets: the probe listener (GROUNDWATCH_HEALTH_PORT), everything else default.
    expect(env(deployed, "GROUNDWATCH_HEALTH_PORT")?.value).toMatch(/^\d+$/);
    expect(deployed.livenessProbe?.httpGet?.port).toBe("health");
    const defaults = resolveCollectorOptions({ env: {} });
    // Each process holds about one file per connection: the limit is raised for both (never past the hard limit).
    expect(hardOpenFiles(), "ulimit -Hn must allow 2,048 open files per process").toBeGreaterThanOrEqual(2048);
    const openFiles = Math.min(4096, hardOpenFiles());
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ collector: {} }));
    const serve = await startServe(["--port", "0", "--health-port", "0", "--config", config], {}, { openFiles }).started;
    const healthUrl = /probes at (http:\/\/[^\s/]+)\/healthz/.exec(serve.output())?.[1];
    expect(healthUrl, serve.output()).toBeDefined();

    const holder = spawnGroup("/bin/sh", ["-c", 'ulimit -n "$1" && shift && exec "$@"', "sh", String(openFiles), process.execPath, "test/chaos/hold-connections.mjs", new URL(serve.url).port, String(HELD), ATTACKERS.join(",")], { cwd: ROOT });
    const [, held, failed] = (await holder.waitFor(/held (\d+) failed (\d+)/, 60_000)).map(Number);
    expect(held! + failed!).toBe(HELD);

    // While the main port is full (each held connection waits headersTimeoutMs, 10 s, for its headers):
    // a probe there is refused, and the probe listener answers at once.
    const during = await Promise.all([probe(`${serve.url}/healthz`), probe(`${healthUrl}/healthz`), probe(`${healthUrl}/readyz`)]);
    expect(during[0], "the main port is exhausted").not.toBe(200);
    expect(during.slice(1)).toEqual([200, 200]);

    // Probed as the kubelet does until the main port answers again, the held connections still open.
    const probes: Array<number | string> = [];
    await waitUntil(
      "/healthz on the main port again",
      async () => {
        probes.push(...(await Promise.all([probe(`${healthUrl}/healthz`), probe(`${healthUrl}/readyz`)])));
        return probe(`${serve.url}/healthz`);
      },
      (s) => s === 200,
      { timeout: 60_000, interval: 500, context: serve.output },
    );
    expect(probes.filter((s) => s !== 200)).toEqual([]);
    expect(() => process.kill(holder.pid, 0), "the holder still holds its connections").not.toThrow();

    // Every held connection is counted: closed at once over the cap, or answered 408 and closed.
    const text = await (await fetch(`${serve.url}/metrics`)).text();
    const connections = text
      .split("\n")
      .filter((l) => l.includes('groundwatch_endpoint="connection"'))
      .join("\n");
    const timedOut = metric(connections, "groundwatch_collector_refused_total", 'groundwatch_reason="timeout"');
    const overCap = metric(connections, "groundwatch_collector_refused_total", 'groundwatch_reason="too_many_connections"');
    expect(overCap).toBeGreaterThanOrEqual(held! - defaults.maxConnections);
    expect(timedOut + overCap).toBeGreaterThanOrEqual(held!);
    expect(metric(connections, "groundwatch_collector_refused_total", 'groundwatch_reason="too_many_per_address"')).toBe(0);
  });
});
