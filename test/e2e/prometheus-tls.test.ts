/**
 * A real Prometheus scraping the collector over https as the Kubernetes ServiceMonitor
 * (deploy/kubernetes/servicemonitor.yaml) tells the Prometheus Operator to: scheme https, the CA of
 * the TLS Secret, the ServiceMonitor's serverName, and the bearer token (issue 35, deploy hardening).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../deploy/manifests.ts";
import { startTestCollector } from "../helpers/collector.ts";
import { tempDir } from "../helpers/cli.ts";
import { prometheusAvailable, startPrometheus } from "../helpers/prometheus.ts";
import { TLS_FIXTURES } from "../helpers/tls.ts";

const TOKEN = "prometheus-tls-token-0123456789";

interface Endpoint {
  scheme: string;
  tlsConfig: { serverName: string; ca: { secret: { key: string } } };
  authorization: { type: string };
}

describe.skipIf(!prometheusAvailable())("a real Prometheus scraping the collector over https", () => {
  it("scrapes /metrics with the ServiceMonitor's scheme, serverName and bearer token", { timeout: 60_000 }, async () => {
    const endpoint = (parse(readFileSync(join(ROOT, "deploy", "kubernetes", "servicemonitor.yaml"), "utf8")) as { spec: { endpoints: Endpoint[] } }).spec.endpoints[0]!;
    expect(endpoint).toMatchObject({ scheme: "https", tlsConfig: { ca: { secret: { key: "ca.crt" } } }, authorization: { type: "Bearer" } });
    const collector = await startTestCollector({ token: TOKEN, tlsCertFile: TLS_FIXTURES.cert, tlsKeyFile: TLS_FIXTURES.key });
    const dir = tempDir();
    writeFileSync(join(dir, "token"), TOKEN);
    const prom = await startPrometheus(new URL(collector.url).host, "", {
      scheme: endpoint.scheme,
      tls_config: { ca_file: TLS_FIXTURES.ca, server_name: endpoint.tlsConfig.serverName },
      authorization: { type: endpoint.authorization.type, credentials_file: join(dir, "token") },
    });
    await prom.scrapedAfter();
    expect((await prom.query('up{job="groundwatch"}'))[0]?.value[1]).toBe("1");
    expect(Number((await prom.query('groundwatch_collector_buffer_max_traces{job="groundwatch"}'))[0]?.value[1])).toBe(10_000);
    // Nothing was refused on the way: no plain-http scrape, no failed handshake, no missing token.
    expect(collector.refusedStats()).toEqual({});
  });
});
