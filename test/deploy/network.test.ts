import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { all, env, matches, one, ROOT, workloads } from "./manifests.ts";
import type { Container, Obj, Workload } from "./manifests.ts";

/**
 * deploy/kubernetes/ hardened (issue 24, items 9 and 16): every container bounded (CPU, memory,
 * ephemeral storage) and probed; the sidecar's OTLP receiver, which the gateway reaches from other
 * pods, requires a token of its own that the gateway sends; and NetworkPolicies that select the
 * workloads' pods by their labels and open only the ports those pods' containers declare.
 */

type Selector = { matchLabels?: Record<string, string> };
type Peer = { podSelector?: Selector; namespaceSelector?: Selector };
type Rule = { from?: Peer[]; to?: Peer[]; ports?: Array<{ port: number | string; protocol?: string }> };
type Policy = Obj & { spec: { podSelector: Selector; policyTypes: string[]; ingress?: Rule[]; egress?: Rule[] } };
type CollectorConfig = {
  extensions?: Record<string, { endpoint?: string; token?: string } | null>;
  receivers: Record<string, { protocols: Record<string, { endpoint: string; auth?: { authenticator: string } }> }>;
  exporters: Record<string, { protocol?: { otlp?: { headers?: Record<string, string> } } }>;
  service: { extensions?: string[] };
};

const collector = (file: string): CollectorConfig => parse(readFileSync(join(ROOT, "collector", file), "utf8")) as CollectorConfig;
const groundwatch = one<Workload>("StatefulSet", "groundwatch");
const gateway = one<Workload>("Deployment", "groundwatch-otel-gateway");
const sidecar = groundwatch.spec.template.spec.containers.find((c) => c.name === "otel-sidecar")!;
const otelcol = gateway.spec.template.spec.containers[0]!;
const allPolicies: Policy[] = all.filter(({ obj }) => obj.kind === "NetworkPolicy").map(({ obj }) => obj as Policy);
const containers = (): Array<{ workload: string; c: Container }> => workloads().flatMap((w) => w.spec.template.spec.containers.map((c) => ({ workload: w.metadata.name, c })));
const portNames = (w: Workload): string[] => w.spec.template.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name));
/** The env variable `${env:NAME}` in a collector config value names, or undefined. */
const envRef = (value: string | undefined): string | undefined => /\$\{env:(\w+)\}/.exec(value ?? "")?.[1];
const isLoopback = (endpoint: string): boolean => /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(endpoint);

describe("deploy/kubernetes: every container bounded and probed", () => {
  it("sets CPU, memory and ephemeral-storage requests and limits on every container", () => {
    expect(containers().length).toBeGreaterThanOrEqual(3);
    for (const { workload, c } of containers()) {
      for (const kind of ["requests", "limits"] as const) for (const resource of ["cpu", "memory", "ephemeral-storage"]) expect(c.resources?.[kind]?.[resource], `${workload}/${c.name} ${kind}.${resource}`).toBeDefined();
    }
  });

  it("gives every container liveness and readiness probes on a port it declares", () => {
    for (const { workload, c } of containers()) {
      for (const probe of [c.livenessProbe, c.readinessProbe]) {
        expect(probe?.httpGet, `${workload}/${c.name}`).toBeDefined();
        expect((c.ports ?? []).map((p) => p.name), `${workload}/${c.name}`).toContain(probe!.httpGet!.port);
      }
    }
  });

  it("probes the OpenTelemetry Collectors on their health_check extension's port", () => {
    for (const [c, file] of [[sidecar, "otel-collector-sidecar.yaml"], [otelcol, "otel-collector-loadbalancing.yaml"]] as const) {
      const config = collector(file);
      expect(config.service.extensions, file).toContain("health_check");
      const port = Number(config.extensions?.health_check?.endpoint?.split(":").at(-1));
      // Bound beyond loopback: the kubelet probes the pod's address.
      expect(isLoopback(config.extensions!.health_check!.endpoint!), file).toBe(false);
      const named = c.ports?.find((p) => p.name === c.livenessProbe?.httpGet?.port);
      expect(named?.containerPort, file).toBe(port);
      expect(c.readinessProbe?.httpGet?.port).toBe(named?.name);
    }
  });
});

describe("deploy/kubernetes: the sidecar's receiver takes the gateway's token only", () => {
  const config = collector("otel-collector-sidecar.yaml");

  it("requires a bearer token on every receiver that listens beyond loopback", () => {
    const open = Object.values(config.receivers).flatMap((r) => Object.values(r.protocols)).filter((p) => !isLoopback(p.endpoint));
    expect(open.length).toBeGreaterThan(0); // the gateway dials each pod's address
    for (const p of open) {
      const name = p.auth?.authenticator ?? "";
      expect(name, p.endpoint).toMatch(/^bearertokenauth(\/|$)/);
      expect(config.service.extensions).toContain(name);
      expect(envRef(config.extensions?.[name]?.token ?? undefined)).toBeDefined();
    }
  });

  it("reads that token from a Secret the gateway sends from, and the gateway holds no other", () => {
    const auth = Object.values(config.receivers)[0]!.protocols.grpc!.auth!.authenticator;
    const wanted = env(sidecar, envRef(config.extensions![auth]!.token!)!)?.valueFrom?.secretKeyRef;
    expect(wanted).toBeDefined();
    const lb = collector("otel-collector-loadbalancing.yaml").exporters["loadbalancing/groundwatch"]!;
    const header = lb.protocol?.otlp?.headers?.authorization;
    expect(header).toMatch(/^Bearer \$\{env:\w+\}$/);
    expect(env(otelcol, envRef(header)!)?.valueFrom?.secretKeyRef).toEqual(wanted);
    // groundwatch's own token (ingest and /metrics) stays out of the gateway.
    const own = env(groundwatch.spec.template.spec.containers.find((c) => c.name === "groundwatch")!, "GROUNDWATCH_TOKEN")?.valueFrom?.secretKeyRef;
    expect(wanted).not.toEqual(own);
    for (const e of otelcol.env ?? []) expect(e.valueFrom?.secretKeyRef?.name, e.name).not.toBe(own?.name);
  });
});

describe("deploy/kubernetes: NetworkPolicies", () => {
  it("selects each workload's pods with exactly one policy that restricts ingress and egress", () => {
    expect(allPolicies.length).toBeGreaterThanOrEqual(2);
    for (const w of workloads()) {
      const selecting = allPolicies.filter((p) => matches(p.spec.podSelector.matchLabels ?? {}, w.spec.template.metadata.labels));
      expect(selecting.map((p) => p.metadata.name), w.metadata.name).toHaveLength(1);
      expect([...selecting[0]!.spec.policyTypes].sort()).toEqual(["Egress", "Ingress"]);
    }
  });

  it("opens only ports the selected pods declare, and reaches other pods only on ports they declare", () => {
    for (const p of allPolicies) {
      const target = workloads().find((w) => matches(p.spec.podSelector.matchLabels ?? {}, w.spec.template.metadata.labels))!;
      for (const rule of p.spec.ingress ?? []) for (const port of rule.ports ?? []) expect(portNames(target), `${p.metadata.name} ingress ${port.port}`).toContain(port.port);
      for (const rule of p.spec.egress ?? []) {
        // An egress rule to pods of this kustomization names a port those pods declare.
        const own = (rule.to ?? []).map((peer) => workloads().find((w) => !peer.namespaceSelector && matches(peer.podSelector?.matchLabels ?? { none: "" }, w.spec.template.metadata.labels)));
        for (const w of own) if (w) for (const port of rule.ports ?? []) expect(portNames(w), `${p.metadata.name} egress to ${w.metadata.name}`).toContain(port.port);
      }
    }
  });

  it("admits only the gateway to the sidecar's port, and the gateway sends there", () => {
    const policy = one<Policy>("NetworkPolicy", "groundwatch");
    const rules = (policy.spec.ingress ?? []).filter((r) => r.ports?.some((p) => p.port === "otlp-grpc"));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.from).toHaveLength(1);
    const peer = rules[0]!.from![0]!;
    expect(peer.namespaceSelector).toBeUndefined(); // the policy's own namespace
    expect(workloads().filter((w) => matches(peer.podSelector?.matchLabels ?? {}, w.spec.template.metadata.labels)).map((w) => w.metadata.name)).toEqual(["groundwatch-otel-gateway"]);
    const gw = one<Policy>("NetworkPolicy", "groundwatch-otel-gateway");
    expect(gw.spec.egress?.some((r) => r.ports?.some((p) => p.port === "otlp-grpc") && r.to?.some((t) => matches(t.podSelector?.matchLabels ?? {}, groundwatch.spec.template.metadata.labels)))).toBe(true);
  });

  it("admits to the gateway only pods labelled as senders, in namespaces labelled as senders, on the Service's ports", () => {
    const policy = one<Policy>("NetworkPolicy", "groundwatch-otel-gateway");
    for (const rule of policy.spec.ingress ?? []) {
      for (const peer of rule.from ?? []) {
        expect(peer.namespaceSelector?.matchLabels, "a namespace selector with labels").toEqual({ "groundwatch.dev/otlp-sender": "true" });
        expect(peer.podSelector?.matchLabels, "a pod selector with labels").toEqual({ "groundwatch.dev/otlp-sender": "true" });
      }
    }
    const svc = one<Obj & { spec: { ports: Array<{ targetPort: string }> } }>("Service", "groundwatch-otel-gateway");
    expect((policy.spec.ingress ?? []).flatMap((r) => (r.ports ?? []).map((p) => p.port)).sort()).toEqual(svc.spec.ports.map((p) => p.targetPort).sort());
  });

  it("lets Prometheus reach the port the ServiceMonitor scrapes", () => {
    const sm = one<Obj & { spec: { endpoints: Array<{ port: string }> } }>("ServiceMonitor", "groundwatch");
    const svc = one<Obj & { spec: { ports: Array<{ name: string; targetPort: string }> } }>("Service", "groundwatch");
    const target = svc.spec.ports.find((p) => p.name === sm.spec.endpoints[0]?.port)?.targetPort;
    const policy = one<Policy>("NetworkPolicy", "groundwatch");
    const rule = (policy.spec.ingress ?? []).find((r) => r.from?.some((f) => f.podSelector?.matchLabels?.["app.kubernetes.io/name"] === "prometheus"));
    expect(rule?.ports?.map((p) => p.port)).toEqual([target]);
  });
});
