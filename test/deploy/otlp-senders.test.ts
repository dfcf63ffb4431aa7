import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { spawnGroup } from "../helpers/processes.ts";
import { ROOT } from "./manifests.ts";

// Regression (redteam-4, deploy hardening): the docker-compose stack's OpenTelemetry Collector took
// OTLP from anyone who could reach it and forwarded it to groundwatch with groundwatch's token. Its
// receivers now require a token of the senders' own, which the example service sends.

type Protocol = { endpoint: string; auth?: { authenticator: string } };
type CollectorConfig = {
  extensions?: Record<string, { token?: string } | null>;
  receivers: Record<string, { protocols: Record<string, Protocol> }>;
  exporters: Record<string, { headers?: Record<string, string> }>;
  service: { extensions?: string[] };
};
type Compose = { services: Record<string, { image?: string; environment?: Record<string, string>; volumes?: string[] }> };

const config = parse(readFileSync(join(ROOT, "collector", "otel-collector.yaml"), "utf8")) as CollectorConfig;
const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as Compose;
/** The variable a `${env:NAME}` reference names. */
const envRef = (value: string | undefined): string | undefined => /\$\{env:(\w+)\}/.exec(value ?? "")?.[1];
/** The variable a compose `${NAME:?message}` reference names. */
const required = (value: string | undefined): string | undefined => /\$\{(\w+):\?[^}]+\}/.exec(value ?? "")?.[1];

describe("the OpenTelemetry Collector in front of groundwatch (collector/otel-collector.yaml, docker-compose.yml)", () => {
  it("takes OTLP on every receiver only with a bearer token, defined and enabled", () => {
    const protocols = Object.values(config.receivers).flatMap((r) => Object.entries(r.protocols));
    expect(protocols.map(([name]) => name).sort()).toEqual(["grpc", "http"]);
    for (const [name, p] of protocols) {
      const auth = p.auth?.authenticator ?? "";
      expect(auth, name).toMatch(/^bearertokenauth(\/|$)/);
      expect(config.service.extensions, name).toContain(auth);
      expect(envRef(config.extensions?.[auth]?.token), name).toBeDefined();
    }
  });

  it("asks the senders for a token that is not groundwatch's, from a variable compose requires, and the example service sends it", () => {
    const auth = Object.values(config.receivers)[0]!.protocols.grpc!.auth!.authenticator;
    const senderVar = envRef(config.extensions![auth]!.token)!;
    const forwardedWith = envRef(config.exporters["otlphttp/groundwatch"]?.headers?.Authorization);
    expect(forwardedWith).toBe("GROUNDWATCH_TOKEN");
    expect(senderVar).not.toBe(forwardedWith);
    const collector = compose.services["otel-collector"]!;
    expect(collector.volumes).toContain("./collector/otel-collector.yaml:/etc/otelcol/config.yaml:ro");
    const fromCompose = required(collector.environment?.[senderVar]);
    expect(fromCompose).toBe(senderVar);
    // Every service that sends OTLP to the collector sends that token, and only that one.
    const senders = Object.entries(compose.services).filter(([, s]) => /^http:\/\/otel-collector:/.test(s.environment?.OTEL_EXPORTER_OTLP_ENDPOINT ?? ""));
    expect(senders.map(([name]) => name)).toEqual(["rag-service"]);
    for (const [name, s] of senders) {
      expect(s.environment?.OTEL_EXPORTER_OTLP_HEADERS, name).toMatch(new RegExp(`^Authorization=Bearer%20\\$\\{${senderVar}:\\?[^}]+\\}$`));
      expect(Object.values(s.environment ?? {}).join(" "), name).not.toContain("GROUNDWATCH_TOKEN");
    }
  });

  it("the example service's OTLP exporter sends the header as compose sets it (the OpenTelemetry SDK reads OTEL_EXPORTER_OTLP_HEADERS)", { timeout: 30_000 }, async () => {
    const token = "0123456789abcdef0123456789abcdef";
    const headers = compose.services["rag-service"]!.environment!.OTEL_EXPORTER_OTLP_HEADERS!.replace(/\$\{\w+:\?[^}]+\}/, token);
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const script = [
      'import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";',
      'import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";',
      "const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())] });",
      'provider.getTracer("t").startSpan("s").end();',
      "await provider.forceFlush();",
      "await provider.shutdown();",
    ].join("\n");
    const child = spawnGroup(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, env: { PATH: process.env.PATH, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_HEADERS: headers } });
    const exit = await child.exited;
    expect(exit.code, child.output()).toBe(0);
    expect(seen).toEqual([`Bearer ${token}`]);
  });

  it("renders the senders' token into the collector and the example service (docker-compose config)", () => {
    try {
      execFileSync("docker-compose", ["--version"], { stdio: "ignore" });
    } catch {
      if (process.env.CI) throw new Error("docker-compose is not installed");
      return;
    }
    const env = { ...process.env, GROUNDWATCH_TOKEN: "a".repeat(32), GROUNDWATCH_SENDER_TOKEN: "s".repeat(32), GRAFANA_ADMIN_PASSWORD: "b".repeat(32) };
    const rendered = parse(execFileSync("docker-compose", ["-f", join(ROOT, "docker-compose.yml"), "config"], { cwd: ROOT, env, encoding: "utf8" })) as Compose;
    expect(rendered.services["otel-collector"]?.environment?.GROUNDWATCH_SENDER_TOKEN).toBe("s".repeat(32));
    expect(rendered.services["rag-service"]?.environment?.OTEL_EXPORTER_OTLP_HEADERS).toBe(`Authorization=Bearer%20${"s".repeat(32)}`);
  });
});
