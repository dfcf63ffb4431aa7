import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { StatefulSet } from "kubernetes-models/apps/v1";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generated } from "../../scripts/kube-manifests.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { loadConfigFile } from "../../src/config/file.ts";
import { codeBlocks } from "../helpers/readme-blocks.ts";
import { all, DIR, env, matches, mebibytes, one, ROOT } from "./manifests.ts";
import type { Obj, Workload } from "./manifests.ts";
import { keyOf, MODELS, unknownFields } from "./schemas.ts";

/**
 * deploy/kubernetes/: every object validated against the Kubernetes API schema (kubernetes-models
 * 4.5.1, Kubernetes 1.31/1.32 API) and the Prometheus Operator CRDs (@kubernetes-models/prometheus-operator
 * 4.4.4, operator v0.65.1 CRDs), offline; unknown fields (a misspelt key the schemas would let through,
 * and a strict API server would refuse) caught by type-checking each object against the same models'
 * TypeScript declarations (test/deploy/schemas.ts); the generated files checked against their sources;
 * and the objects checked against each other and against the image, the config file and the collector's drain.
 */

describe("deploy/kubernetes: schemas", () => {
  it("holds only objects of the kinds it is validated for, listed in kustomization.yaml", () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const { file, obj } of all) expect(Object.keys(MODELS), `${file}: ${keyOf(obj)}`).toContain(keyOf(obj));
    const kustomization = parse(readFileSync(join(DIR, "kustomization.yaml"), "utf8")) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual([...new Set(all.map(({ file }) => file))].sort());
    for (const kind of ["Deployment", "StatefulSet", "Service", "ConfigMap", "NetworkPolicy", "PodDisruptionBudget", "HorizontalPodAutoscaler", "ServiceMonitor", "PrometheusRule"]) expect(all.map(({ obj }) => obj.kind)).toContain(kind);
  });

  it("validates every object against the Kubernetes and Prometheus Operator schemas", () => {
    for (const { file, obj } of all) {
      const Model = MODELS[keyOf(obj)]!.model;
      expect(() => new Model(obj as never).validate(), `${file}: ${obj.kind} ${obj.metadata.name}`).not.toThrow();
    }
  });

  it("rejects what the schemas forbid: the validator is live (a wrong type, a bad duration)", () => {
    const statefulSet = structuredClone(one<Workload>("StatefulSet", "groundwatch"));
    (statefulSet.spec.template.spec.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = "4319";
    expect(() => new StatefulSet(statefulSet as never).validate()).toThrow(/containerPort must be integer/);
    const rule = structuredClone(one<Obj & { spec: { groups: Array<{ rules: Array<{ for?: string }> }> } }>("PrometheusRule", "groundwatch"));
    rule.spec.groups.find((g) => g.rules.some((r) => r.for))!.rules.find((r) => r.for)!.for = "2 minutes";
    expect(() => new PrometheusRule(rule as never).validate()).toThrow(/for must match pattern/);
  });

  it("has no unknown field in any object (checked against the models' type declarations)", { timeout: 30_000 }, () => {
    expect(unknownFields(all)).toEqual([]);
    // And the check is live: a misspelt field is reported, with its file.
    const typo = structuredClone(one<Workload>("StatefulSet", "groundwatch"));
    (typo.spec.template.spec as unknown as Record<string, unknown>).terminationGracePeriodSecond = 30;
    expect(unknownFields([{ file: "statefulset.yaml", obj: typo }]).join("\n")).toMatch(/statefulset\.yaml: .*terminationGracePeriodSecond/);
  });
});

describe("deploy/kubernetes: generated from one source of truth", () => {
  it("prometheusrule.yaml and otel-collector-configs.yaml are what npm run build:kube writes", () => {
    for (const [path, text] of Object.entries(generated())) expect(readFileSync(join(ROOT, path), "utf8"), `${path} drifted from its source: run npm run build:kube`).toBe(text);
  });

  it("the PrometheusRule carries alerts/rules.yml's groups exactly", () => {
    const rules = parse(readFileSync(join(ROOT, "alerts", "rules.yml"), "utf8")) as { groups: unknown[] };
    expect(one<Obj & { spec: { groups: unknown[] } }>("PrometheusRule", "groundwatch").spec).toEqual({ groups: rules.groups });
  });

  it("the collector ConfigMaps carry collector/*.yaml exactly", () => {
    const cm = (name: string) => parse(one<Obj & { data: Record<string, string> }>("ConfigMap", name).data["config.yaml"]!) as unknown;
    expect(cm("groundwatch-otel-gateway")).toEqual(parse(readFileSync(join(ROOT, "collector", "otel-collector-loadbalancing.yaml"), "utf8")));
    expect(cm("groundwatch-otel-sidecar")).toEqual(parse(readFileSync(join(ROOT, "collector", "otel-collector-sidecar.yaml"), "utf8")));
  });
});

describe("deploy/kubernetes: the objects fit each other, the image and the collector", () => {
  const deployment = one<Workload>("StatefulSet", "groundwatch");
  const pod = deployment.spec.template.spec;
  const gw = pod.containers.find((c) => c.name === "groundwatch")!;
  const configMap = one<Obj & { data: Record<string, string> }>("ConfigMap", "groundwatch-config");

  it("probes /healthz (startup, liveness) and /readyz (readiness) on the probe listener, which no Service or NetworkPolicy exposes", () => {
    expect(gw.startupProbe?.httpGet).toEqual({ path: "/healthz", port: "health" });
    expect(gw.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "health" });
    expect(gw.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "health" });
    expect(gw.ports).toEqual([
      expect.objectContaining({ name: "https", containerPort: Number(env(gw, "GROUNDWATCH_PORT")?.value) }),
      expect.objectContaining({ name: "health", containerPort: Number(env(gw, "GROUNDWATCH_HEALTH_PORT")?.value) }),
    ]);
    // Only the kubelet (which NetworkPolicies never filter) reaches it: held ingest connections cannot fail the probes.
    const exposed = all.flatMap(({ obj }) => (obj.kind === "Service" ? ((obj.spec as { ports: Array<{ targetPort: string }> }).ports ?? []).map((p) => p.targetPort) : []));
    const admitted = all.flatMap(({ obj }) => (obj.kind === "NetworkPolicy" ? ((obj.spec as { ingress?: Array<{ ports?: Array<{ port: string | number }> }> }).ingress ?? []).flatMap((r) => (r.ports ?? []).map((p) => p.port)) : []));
    for (const port of ["health", 4320]) {
      expect(exposed, "Services' target ports").not.toContain(port);
      expect(admitted, "NetworkPolicy ingress ports").not.toContain(port);
    }
  });

  it("reads the token from a Secret (never a literal) and binds all interfaces with it", () => {
    expect(env(gw, "GROUNDWATCH_TOKEN")).toEqual({ name: "GROUNDWATCH_TOKEN", valueFrom: { secretKeyRef: { name: "groundwatch", key: "token" } } });
    // A secret never as a literal (a *_FILE variable names where one is mounted: a path).
    for (const c of pod.containers) for (const e of c.env ?? []) if (/TOKEN|KEY|SECRET|PASSWORD/.test(e.name) && !e.name.endsWith("_FILE")) expect(e.value, `${c.name} ${e.name}`).toBeUndefined();
    expect(env(gw, "GROUNDWATCH_HOST")?.value).toBe("0.0.0.0");
    const sm = one<Obj & { spec: { endpoints: Array<{ authorization?: { credentials?: { name: string; key: string } } }> } }>("ServiceMonitor", "groundwatch");
    expect(sm.spec.endpoints[0]?.authorization?.credentials).toEqual({ name: "groundwatch", key: "token" });
  });

  it("takes its configuration from the ConfigMap, a valid groundwatch config file", () => {
    const path = env(gw, "GROUNDWATCH_CONFIG")?.value ?? "";
    const mount = gw.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    expect(pod.volumes.find((v) => v.name === mount?.name)?.configMap?.name).toBe("groundwatch-config");
    const key = path.slice(mount!.mountPath.length + 1);
    expect(Object.keys(configMap.data)).toContain(key);
    const dir = mkdtempSync(join(tmpdir(), "gw-kube-"));
    try {
      writeFileSync(join(dir, key), configMap.data[key]!);
      expect(() => loadConfigFile(join(dir, key))).not.toThrow();
      const resolved = resolveCollectorOptions({ configFile: join(dir, key), env: { GROUNDWATCH_HOST: "0.0.0.0", GROUNDWATCH_TOKEN: "k".repeat(32), GROUNDWATCH_PORT: "4319", GROUNDWATCH_HEALTH_PORT: env(gw, "GROUNDWATCH_HEALTH_PORT")?.value } });
      expect(resolved).toMatchObject({ host: "0.0.0.0", port: 4319, healthPort: 4320 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives SIGTERM's drain more time than it takes: grace period > preStop pause + drainMs", () => {
    const drainMs = (parse(configMap.data["groundwatch.yaml"]!) as { collector: { drainMs: number } }).collector.drainMs;
    const command = gw.lifecycle?.preStop?.exec?.command ?? [];
    expect(command[0]).toBe("sleep");
    const preStopMs = Number(command[1]) * 1000;
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(preStopMs + drainMs);
  });

  it("runs as the image's non-root user with a read-only root filesystem, sized from bench:collector", () => {
    const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    const user = /^USER (\d+):(\d+)\s*$/m.exec(dockerfile.slice(dockerfile.lastIndexOf("\nFROM ")));
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(gw.securityContext).toMatchObject({ runAsUser: Number(user?.[1]), readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    for (const c of pod.containers) expect(c.securityContext?.readOnlyRootFilesystem, c.name).toBe(true);
    // Requests and limits set; the memory limit above the 900 MB bound the chaos test holds the
    // collector to (test/chaos/collector.test.ts), the request above the peak RSS bench:collector measured.
    expect(gw.resources?.requests?.cpu).toBeDefined();
    expect(mebibytes(gw.resources!.limits!.memory!) * 1024 * 1024).toBeGreaterThanOrEqual(900 * 1024 * 1024);
    expect(mebibytes(gw.resources!.requests!.memory!)).toBeGreaterThanOrEqual(360);
    expect(gw.image).toMatch(/^groundwatch:\d+\.\d+\.\d+$/);
    expect(gw.image.split(":")[1]).toBe((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version);
  });

  it("wires Services, the PodDisruptionBudget, the autoscaler, the ServiceMonitor and the gateway to the pods", () => {
    const podLabels = deployment.spec.template.metadata.labels;
    expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
    const svc = one<Obj & { spec: { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string }> } }>("Service", "groundwatch");
    expect(matches(svc.spec.selector, podLabels)).toBe(true);
    expect(svc.spec.ports.map((p) => p.targetPort)).toEqual(["https"]);
    const headless = one<Obj & { spec: { clusterIP: string; selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> } }>("Service", "groundwatch-sidecars");
    expect(headless.spec.clusterIP).toBe("None");
    expect(matches(headless.spec.selector, podLabels)).toBe(true);
    const sidecar = pod.containers.find((c) => c.name === "otel-sidecar")!;
    expect(sidecar.ports?.map((p) => p.name)).toContain(headless.spec.ports[0]?.targetPort);
    expect(pod.volumes.find((v) => v.name === sidecar.volumeMounts?.[0]?.name)?.configMap?.name).toBe("groundwatch-otel-sidecar");
    // The gateway resolves the headless Service on the port the loadbalancing exporter dials.
    const gateway = one<Workload>("Deployment", "groundwatch-otel-gateway");
    const otelcol = gateway.spec.template.spec.containers[0]!;
    expect(env(otelcol, "GROUNDWATCH_SIDECARS_DNS")?.value).toMatch(new RegExp(`^${headless.metadata.name}\\.`));
    const lb = parse(readFileSync(join(ROOT, "collector", "otel-collector-loadbalancing.yaml"), "utf8")) as { exporters: Record<string, { routing_key: string; resolver: { dns: { port: number } } }> };
    expect(lb.exporters["loadbalancing/groundwatch"]).toMatchObject({ routing_key: "traceID", resolver: { dns: { port: headless.spec.ports[0]!.port } } });
    expect(gateway.spec.template.spec.volumes[0]?.configMap?.name).toBe("groundwatch-otel-gateway");
    // The ServiceMonitor picks the `groundwatch` Service (its labels and port), not the headless one.
    const sm = one<Obj & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string }> } }>("ServiceMonitor", "groundwatch");
    expect(matches(sm.spec.selector.matchLabels, svc.metadata.labels)).toBe(true);
    expect(matches(sm.spec.selector.matchLabels, headless.metadata.labels)).toBe(false);
    expect(sm.spec.endpoints[0]).toMatchObject({ port: svc.spec.ports[0]!.name, path: "/metrics" });
    const pdb = one<Obj & { spec: { selector: { matchLabels: Record<string, string> } } }>("PodDisruptionBudget", "groundwatch");
    expect(matches(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    const hpa = one<Obj & { spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number; metrics: Array<{ resource?: { name: string } }> } }>("HorizontalPodAutoscaler", "groundwatch");
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: "StatefulSet", name: "groundwatch" });
    expect(hpa.spec.metrics.map((m) => m.resource?.name)).toEqual(["cpu"]);
    // A PDB of one unavailable pod needs at least two to allow a drain.
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });
});

// Issue 35 (deploy hardening): the ServiceMonitor sent the bearer token to every pod over plain http.
describe("deploy/kubernetes: TLS on the collector's port, from the Secret groundwatch-tls", () => {
  const deployment = one<Workload>("StatefulSet", "groundwatch");
  const pod = deployment.spec.template.spec;
  const gw = pod.containers.find((c) => c.name === "groundwatch")!;
  const sidecar = pod.containers.find((c) => c.name === "otel-sidecar")!;
  type Endpoint = { port: string; scheme?: string; tlsConfig?: { ca?: { secret?: { name: string; key: string } }; serverName?: string } };
  const endpoint = one<Obj & { spec: { endpoints: Endpoint[] } }>("ServiceMonitor", "groundwatch").spec.endpoints[0]!;
  /** The Secret key a container reads at `path`: through a read-only mount, whole (no subPath, so the kubelet updates it), of a Secret volume item. */
  const secretKeyAt = (c: typeof gw, path: string): { secret: string; key: string } | undefined => {
    const mount = c.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
    if (!mount?.readOnly || mount.subPath !== undefined) return undefined;
    const secret = pod.volumes.find((v) => v.name === mount.name)?.secret;
    const item = secret?.items?.find((i) => i.path === path.slice(mount.mountPath.length + 1));
    return secret && item ? { secret: secret.secretName, key: item.key } : undefined;
  };

  it("serves https with tls.crt and tls.key of the Secret, mounted so that a renewal reaches the files", () => {
    const cert = env(gw, "GROUNDWATCH_TLS_CERT_FILE")?.value ?? "";
    const key = env(gw, "GROUNDWATCH_TLS_KEY_FILE")?.value ?? "";
    expect(secretKeyAt(gw, cert)).toEqual({ secret: "groundwatch-tls", key: "tls.crt" });
    expect(secretKeyAt(gw, key)).toEqual({ secret: "groundwatch-tls", key: "tls.key" });
    const resolved = resolveCollectorOptions({ env: { GROUNDWATCH_TLS_CERT_FILE: cert, GROUNDWATCH_TLS_KEY_FILE: key } });
    expect(resolved.tls).toMatchObject({ certFile: cert, keyFile: key });
    // The ConfigMap's reload interval is the one the files are checked at.
    const configMap = one<Obj & { data: Record<string, string> }>("ConfigMap", "groundwatch-config");
    expect((parse(configMap.data["groundwatch.yaml"]!) as { collector: { tlsReloadMs: number } }).collector.tlsReloadMs).toBeGreaterThan(0);
  });

  it("has the ServiceMonitor scrape https, checking the certificate against the Secret's ca.crt for a name", () => {
    expect(endpoint).toMatchObject({ port: "https", scheme: "https", tlsConfig: { ca: { secret: { name: "groundwatch-tls", key: "ca.crt" } }, serverName: "groundwatch" } });
    expect(endpoint).not.toHaveProperty("tlsConfig.insecureSkipVerify");
  });

  it("has the sidecar send over https to groundwatch's port, checking the same name against the CA, and never mounts the key there", () => {
    const exporter = (parse(readFileSync(join(ROOT, "collector", "otel-collector-sidecar.yaml"), "utf8")) as { exporters: Record<string, { endpoint: string; tls?: { ca_file?: string; server_name_override?: string; insecure_skip_verify?: boolean } }> }).exporters["otlphttp/groundwatch"]!;
    expect(exporter.endpoint).toBe(`https://127.0.0.1:${env(gw, "GROUNDWATCH_PORT")?.value}`);
    expect(exporter.tls?.insecure_skip_verify).toBeUndefined();
    expect(exporter.tls?.server_name_override).toBe(endpoint.tlsConfig?.serverName);
    expect(secretKeyAt(sidecar, exporter.tls?.ca_file ?? "")).toEqual({ secret: "groundwatch-tls", key: "ca.crt" });
    const sidecarKeys = (sidecar.volumeMounts ?? []).flatMap((m) => pod.volumes.find((v) => v.name === m.name)?.secret?.items?.map((i) => i.key) ?? []);
    expect(sidecarKeys).not.toContain("tls.key");
  });

  it("is given a Secret by docs/deploy.md's Certificate whose certificate carries the name Prometheus and the sidecar check", () => {
    const block = codeBlocks("docs/deploy.md", readFileSync(join(ROOT, "docs", "deploy.md"), "utf8")).find((b) => b.lang === "yaml" && b.lines.some((l) => l.text === "kind: Certificate"));
    const certificate = parse(block!.lines.map((l) => l.text).join("\n")) as { spec: { secretName: string; dnsNames: string[] } };
    const mounted = new Set(pod.volumes.flatMap((v) => (v.secret ? [v.secret.secretName] : [])));
    expect([...mounted]).toEqual([certificate.spec.secretName]);
    expect(certificate.spec.dnsNames).toContain(endpoint.tlsConfig?.serverName);
    // The Service's name in the namespace, for senders that address it.
    expect(certificate.spec.dnsNames).toContain(`${one("Service", "groundwatch").metadata.name}.<namespace>.svc`);
  });

  it("keeps the probes on the plain-http probe listener (no token, no content there)", () => {
    for (const probe of [gw.startupProbe, gw.livenessProbe, gw.readinessProbe]) {
      expect(probe?.httpGet?.port).toBe("health");
      expect(probe?.httpGet?.scheme ?? "HTTP").toBe("HTTP");
    }
  });
});
