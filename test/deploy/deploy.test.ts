import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { LINK_VARIABLES, TRENDS_RETENTION_DAYS } from "../../scripts/dashboards.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const read = (path: string): Record<string, unknown> => parse(readFileSync(join(ROOT, path), "utf8")) as Record<string, unknown>;

function have(cmd: string): boolean {
  try {
    execFileSync(cmd, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The variables docker-compose.yml requires, set as the README says to. */
const REQUIRED = { GROUNDWATCH_TOKEN: "a".repeat(32), GROUNDWATCH_SENDER_TOKEN: "s".repeat(32), GRAFANA_ADMIN_PASSWORD: "b".repeat(32) };

describe("docker-compose.yml", () => {
  it("is valid for docker-compose", () => {
    if (!have("docker-compose")) {
      if (process.env.CI) throw new Error("docker-compose is not installed: .ci/run must install Debian's docker-compose");
      return;
    }
    execFileSync("docker-compose", ["-f", join(ROOT, "docker-compose.yml"), "config", "-q"], { cwd: ROOT, env: { ...process.env, ...REQUIRED } });
  });

  it.each(Object.keys(REQUIRED))("refuses to start without %s, naming it (no default token or password)", (name) => {
    if (!have("docker-compose")) {
      if (process.env.CI) throw new Error("docker-compose is not installed: .ci/run must install Debian's docker-compose");
      return;
    }
    const env: NodeJS.ProcessEnv = { ...process.env, ...REQUIRED };
    delete env[name];
    let stderr = "";
    try {
      execFileSync("docker-compose", ["-f", join(ROOT, "docker-compose.yml"), "config", "-q"], { cwd: ROOT, env, stdio: "pipe" });
    } catch (e) {
      stderr = String((e as { stderr?: Buffer }).stderr ?? "");
    }
    // The message of ${NAME:?message} (docker-compose v1 and v2 word the rest differently).
    expect(stderr).toContain(`set ${name} (`);
  });

  it("takes the token and Grafana's admin password from required variables only: no fallback, no admin/admin", () => {
    const text = readFileSync(join(ROOT, "docker-compose.yml"), "utf8");
    const compose = parse(text) as { services: Record<string, { environment?: Record<string, string> }> };
    for (const [service, s] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (!/TOKEN|PASSWORD|SECRET|KEY/.test(key)) continue;
        // ${NAME:?message}: required, and no value written in the file.
        expect(value, `${service} ${key}`).toMatch(/^\$\{(GROUNDWATCH_TOKEN|GROUNDWATCH_SENDER_TOKEN|GRAFANA_ADMIN_PASSWORD):\?[^}]+\}$/);
      }
    }
    expect(compose.services.grafana?.environment?.GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/);
    expect(compose.services.groundwatch?.environment?.GROUNDWATCH_TOKEN).toMatch(/^\$\{GROUNDWATCH_TOKEN:\?/);
  });

  it("pins every image, binds every port to 127.0.0.1, and runs the whole stack", () => {
    const compose = read("docker-compose.yml") as { services: Record<string, { image?: string; ports?: string[] }> };
    const services = compose.services;
    for (const name of ["groundwatch", "otel-collector", "prometheus", "alertmanager", "grafana", "rag-service", "traffic"]) expect(services, name).toHaveProperty(name);
    for (const [name, s] of Object.entries(services)) {
      if (s.image) expect(s.image, name).toMatch(/:[\w.-]+$/);
      if (s.image) expect(s.image, name).not.toMatch(/:latest$/);
      for (const p of s.ports ?? []) expect(p, name).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it("keeps the history the trends dashboard and `groundwatch evidence` read: retention over 90 days, a size cap, a named volume", () => {
    const compose = read("docker-compose.yml") as { services: Record<string, { command?: string[]; volumes?: string[] }>; volumes?: Record<string, unknown> };
    const prometheus = compose.services.prometheus!;
    const command = (prometheus.command ?? []).join(" ");
    const days = /--storage\.tsdb\.retention\.time=(\d+)d(?:\s|$)/.exec(command)?.[1];
    expect(Number(days), command).toBeGreaterThanOrEqual(TRENDS_RETENTION_DAYS);
    expect(command).toMatch(/--storage\.tsdb\.retention\.size=\d+(?:KB|MB|GB|TB)(?:\s|$)/);
    const data = (prometheus.volumes ?? []).find((v) => v.endsWith(":/prometheus"));
    expect(data, "a volume mounted on /prometheus").toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data!.split(":")[0]);
  });

  it("runs Prometheus without its lifecycle and admin APIs: nothing that reaches port 9090 can stop it, reload it or delete its data", () => {
    const compose = read("docker-compose.yml") as { services: Record<string, { command?: string[]; entrypoint?: string[] }> };
    const prometheus = compose.services.prometheus!;
    const line = [...(prometheus.entrypoint ?? []), ...(prometheus.command ?? [])].join(" ");
    expect(line).toContain("/bin/prometheus");
    expect(line).not.toMatch(/--web\.enable-(lifecycle|admin-api)/);
  });

  it("points the alerts' runbook links at the runbooks its groundwatch serves on the published port", () => {
    const compose = read("docker-compose.yml") as { services: Record<string, { ports?: string[] }> };
    const prom = read("alerts/prometheus.yml") as { global: { external_labels?: Record<string, string> } };
    const base = new URL(prom.global.external_labels?.groundwatch_runbook_base ?? "");
    expect(base.pathname).toBe("/runbooks");
    expect(compose.services.groundwatch?.ports).toContain(`${base.hostname}:${base.port}:4319`);
  });

  it("points the alerts' and the overview's links to the flagged answers and the trace search at the groundwatch and Jaeger it publishes", () => {
    const compose = read("docker-compose.yml") as { services: Record<string, { ports?: string[] }> };
    const labels = (read("alerts/prometheus.yml") as { global: { external_labels?: Record<string, string> } }).global.external_labels ?? {};
    const defaults = Object.fromEntries(LINK_VARIABLES.map((v) => [v.name, v.value]));
    for (const [label, service, port, variable] of [
      ["groundwatch_collector_base", "groundwatch", 4319, "collector"],
      ["groundwatch_jaeger_base", "jaeger", 16686, "jaeger"],
    ] as const) {
      const base = new URL(labels[label] ?? "");
      expect(base.pathname, label).toBe("/");
      expect(compose.services[service]?.ports, label).toContain(`${base.hostname}:${base.port}:${port}`);
      expect(labels[label], label).toBe(defaults[variable]);
    }
  });

  it("sends groundwatch's own evaluation spans to its Jaeger, under the service the links search, and provisions Jaeger as a Grafana data source", () => {
    const compose = read("docker-compose.yml") as { services: Record<string, { environment?: Record<string, string>; depends_on?: string[]; volumes?: string[] }> };
    const env = compose.services.groundwatch?.environment ?? {};
    expect(new URL(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? "").host).toBe("jaeger:4318");
    expect(env.OTEL_SERVICE_NAME).toBe(LINK_VARIABLES.find((v) => v.name === "trace_service")?.value);
    expect(compose.services.groundwatch?.depends_on).toContain("jaeger");
    const sources = (read("dashboards/provisioning/datasources.yaml") as { datasources: Array<{ type: string; uid: string; url: string }> }).datasources;
    expect(sources.find((d) => d.type === "jaeger")).toEqual(expect.objectContaining({ uid: "jaeger", url: "http://jaeger:16686" }));
    expect(sources.find((d) => d.type === "prometheus")?.uid).toBe("prometheus");
    expect(compose.services.grafana?.volumes).toContain("./dashboards/provisioning/datasources.yaml:/etc/grafana/provisioning/datasources/groundwatch.yaml:ro");
  });
});

describe("OpenTelemetry Collector configurations", () => {
  it.each(["collector/otel-collector.yaml", "collector/otel-collector-loadbalancing.yaml", "collector/otel-collector-sidecar.yaml"])("%s: pipelines use only defined components, memory_limiter first", (file) => {
    const c = read(file) as { receivers: object; processors: object; exporters: object; service: { pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }> } };
    for (const [name, p] of Object.entries(c.service.pipelines)) {
      for (const r of p.receivers) expect(Object.keys(c.receivers), `${name} receiver ${r}`).toContain(r);
      for (const x of p.processors) expect(Object.keys(c.processors), `${name} processor ${x}`).toContain(x);
      for (const e of p.exporters) expect(Object.keys(c.exporters), `${name} exporter ${e}`).toContain(e);
      expect(p.processors[0]).toBe("memory_limiter");
    }
  });

  it.each([
    ["collector/otel-collector.yaml", "otlphttp/groundwatch"],
    ["collector/otel-collector-loadbalancing.yaml", "loadbalancing/groundwatch"],
    ["collector/otel-collector-sidecar.yaml", "otlphttp/groundwatch"],
  ])("%s: sends traces and logs (GenAI content events) to groundwatch", (file, exporter) => {
    const c = read(file) as { service: { pipelines: Record<string, { exporters: string[] }> } };
    expect(c.service.pipelines.traces?.exporters).toContain(exporter);
    expect(c.service.pipelines.logs?.exporters).toContain(exporter);
  });

  it("routes by trace id to the groundwatch replicas in the scale-out profile", () => {
    const c = read("collector/otel-collector-loadbalancing.yaml") as { exporters: Record<string, { routing_key?: string }> };
    expect(c.exporters["loadbalancing/groundwatch"]?.routing_key).toBe("traceID");
  });
});

describe("Prometheus configuration for the stack", () => {
  it("passes promtool check config", () => {
    if (!have("promtool")) {
      if (process.env.CI) throw new Error("promtool is not installed");
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "gw-promcfg-"));
    try {
      writeFileSync(join(dir, "token"), "t");
      writeFileSync(join(dir, "prometheus.yml"), readFileSync(join(ROOT, "alerts", "prometheus.yml"), "utf8").replace("/tmp/groundwatch-token", join(dir, "token")));
      copyFileSync(join(ROOT, "alerts", "rules.yml"), join(dir, "rules.yml"));
      execFileSync("promtool", ["check", "config", join(dir, "prometheus.yml")], { stdio: "pipe" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
