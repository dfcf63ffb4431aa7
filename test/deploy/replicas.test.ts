import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { tempDir } from "../helpers/cli.ts";
import { hasKubectl } from "../helpers/kubectl.ts";
import { codeBlocks } from "../helpers/readme-blocks.ts";
import { TLS_FIXTURES } from "../helpers/tls.ts";
import { all, env, matches, mebibytes, one, ROOT, workloads } from "./manifests.ts";
import type { Container, Obj, PodSpec, Workload } from "./manifests.ts";
import { schemaProblem, unknownFields } from "./schemas.ts";

/**
 * Many replicas, one view, as deploy/kubernetes ships it: groundwatch is a StatefulSet, so each
 * replica keeps its name (the pod's, which its spool's segments carry) and its own volume claim for
 * the review spool; the replicas find each other through the headless Service groundwatch-peers on
 * the collector's https port, check each other's certificate for the name it carries, and the
 * NetworkPolicy lets them reach each other there and nowhere else. The base and every overlay render
 * with kustomize to objects the Kubernetes schemas accept (where kubectl is installed), and the
 * emptyDir overlay swaps the claim for a pod-lived volume its ephemeral-storage budget covers.
 */

type Port = { name: string; port: number; targetPort: string };
type Svc = Obj & { spec: { clusterIP?: string; publishNotReadyAddresses?: boolean; selector: Record<string, string>; ports: Port[] } };
type Selector = { matchLabels?: Record<string, string> };
type Rule = { from?: Array<{ podSelector?: Selector; namespaceSelector?: Selector }>; to?: Array<{ podSelector?: Selector; namespaceSelector?: Selector }>; ports?: Array<{ port: number | string; protocol?: string }> };
type Policy = Obj & { spec: { podSelector: Selector; ingress?: Rule[]; egress?: Rule[] } };
type ConfigMapObj = Obj & { data: Record<string, string> };

/** The pod the expansions below are made for: the second replica, in namespace `shop`. */
const POD = { "metadata.name": "groundwatch-1", "metadata.namespace": "shop" } as const;

/**
 * A container's environment as the kubelet gives it to the process: downward-API fields from POD,
 * Secrets as a placeholder, and `$(NAME)` expanded only where NAME is defined EARLIER in the list
 * (otherwise left as written, as the kubelet does); `$$` is a literal `$`.
 */
function kubeletEnv(c: Container): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.valueFrom?.fieldRef) out[e.name] = POD[e.valueFrom.fieldRef.fieldPath as keyof typeof POD] ?? "";
    else if (e.valueFrom?.secretKeyRef) out[e.name] = "s".repeat(32);
    else out[e.name] = (e.value ?? "").replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string | undefined) => (name === undefined ? "$" : (out[name] ?? whole)));
  }
  return out;
}

/** The config file of a rendered or shipped ConfigMap, written where resolveMonitorOptions can read it, resolved with `env`. */
function monitorOptionsOf(configMap: ConfigMapObj, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "gw-replicas-"));
  try {
    const file = join(dir, "groundwatch.yaml");
    writeFileSync(file, configMap.data["groundwatch.yaml"]!);
    return resolveMonitorOptions({ configFile: file, env: { ...env, GROUNDWATCH_CONFIG: file } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const statefulSet = one<Workload>("StatefulSet", "groundwatch");
const pod = statefulSet.spec.template.spec;
const gw = pod.containers.find((c) => c.name === "groundwatch")!;
const configMap = one<ConfigMapObj>("ConfigMap", "groundwatch-config");
const peersService = one<Svc>("Service", "groundwatch-peers");
const httpsPort = gw.ports!.find((p) => p.name === "https")!;

describe("deploy/kubernetes: each replica has a name and a volume of its own (a StatefulSet)", () => {
  it("runs groundwatch as the only StatefulSet, governed by groundwatch-peers, its pods started in parallel, with the HPA and PDB on it", () => {
    expect(workloads().filter((w) => w.kind === "StatefulSet").map((w) => w.metadata.name)).toEqual(["groundwatch"]);
    expect(all.some(({ obj }) => obj.kind === "Deployment" && obj.metadata.name === "groundwatch")).toBe(false);
    expect(statefulSet.spec.serviceName).toBe(peersService.metadata.name);
    expect(statefulSet.spec.podManagementPolicy).toBe("Parallel");
    const hpa = one<Obj & { spec: { scaleTargetRef: { apiVersion: string; kind: string; name: string } } }>("HorizontalPodAutoscaler", "groundwatch");
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "StatefulSet", name: "groundwatch" });
    const pdb = one<Obj & { spec: { selector: { matchLabels: Record<string, string> } } }>("PodDisruptionBudget", "groundwatch");
    expect(matches(pdb.spec.selector.matchLabels, statefulSet.spec.template.metadata.labels)).toBe(true);
    // The Services other objects name are kept.
    for (const name of ["groundwatch", "groundwatch-sidecars", "groundwatch-otel-gateway"]) expect(one("Service", name).metadata.name).toBe(name);
  });

  it("claims one ReadWriteOnce volume per replica, mounted writable in groundwatch alone, and keeps the claims on scale-down and delete", () => {
    const claims = statefulSet.spec.volumeClaimTemplates ?? [];
    expect(claims.map((c) => c.metadata.name)).toEqual(["spool"]);
    expect(claims[0]!.spec.accessModes).toEqual(["ReadWriteOnce"]);
    expect(mebibytes(claims[0]!.spec.resources.requests.storage)).toBeGreaterThan(0);
    expect(statefulSet.spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenScaled: "Retain", whenDeleted: "Retain" });
    // A claim template's name is not also a pod volume (the pod volume would shadow it).
    expect(pod.volumes.map((v) => v.name)).not.toContain("spool");
    const mounts = pod.containers.flatMap((c) => (c.volumeMounts ?? []).filter((m) => m.name === "spool").map((m) => ({ c: c.name, ...m })));
    expect(mounts).toEqual([{ c: "groundwatch", name: "spool", mountPath: "/var/lib/groundwatch" }]);
  });

  it("spools on that volume: the ConfigMap's review options resolve to a folder of the mount, content capture on, capped below the claim", () => {
    const resolved = monitorOptionsOf(configMap, kubeletEnv(gw));
    expect(resolved.captureContent).toBe(true);
    const review = resolved.review;
    expect(review, "monitor.review in the ConfigMap").toBeDefined();
    const mount = gw.volumeMounts!.find((m) => m.name === "spool")!;
    expect(review!.dir.startsWith(`${mount.mountPath}/`), review!.dir).toBe(true);
    // The cap plus the segment written past it fit the claim with a tenth to spare (labels, the file system's own).
    const claimBytes = mebibytes(statefulSet.spec.volumeClaimTemplates![0]!.spec.resources.requests.storage) * 2 ** 20;
    expect(review!.maxBytes + review!.segmentBytes).toBeLessThanOrEqual(0.9 * claimBytes);
    expect(review!.retentionMs).toBeGreaterThan(0);
  });

  it("names each replica after its pod (the downward API's metadata.name), the name its segments carry across restarts", () => {
    expect(env(gw, "GROUNDWATCH_REVIEW_REPLICA")).toEqual({ name: "GROUNDWATCH_REVIEW_REPLICA", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } });
    expect(monitorOptionsOf(configMap, kubeletEnv(gw)).review?.replica).toBe(POD["metadata.name"]);
  });

  it("keeps every root filesystem read-only: the spool volume is groundwatch's only writable mount, and the image's group owns it", () => {
    for (const c of pod.containers) {
      expect(c.securityContext?.readOnlyRootFilesystem, c.name).toBe(true);
      const writable = (c.volumeMounts ?? []).filter((m) => m.readOnly !== true).map((m) => m.name);
      expect(writable, c.name).toEqual(c.name === "groundwatch" ? ["spool"] : []);
    }
    expect(pod.securityContext?.fsGroup).toBe((gw.securityContext as { runAsGroup?: number }).runAsGroup);
    expect(pod.securityContext?.fsGroupChangePolicy).toBe("OnRootMismatch");
  });
});

describe("deploy/kubernetes: the replicas find each other (peers)", () => {
  it("publishes every pod, ready or not, on the collector's https port through the headless Service groundwatch-peers, which the ServiceMonitor does not scrape", () => {
    expect(peersService.spec.clusterIP).toBe("None");
    expect(peersService.spec.publishNotReadyAddresses).toBe(true);
    expect(matches(peersService.spec.selector, statefulSet.spec.template.metadata.labels)).toBe(true);
    expect(peersService.spec.ports).toEqual([{ name: "https", port: httpsPort.containerPort, targetPort: httpsPort.name, protocol: "TCP" }]);
    expect(httpsPort.containerPort).toBe(Number(env(gw, "GROUNDWATCH_PORT")?.value));
    // The gateway's routing Service keeps only ready pods: traces go to replicas that can score them.
    expect(one<Svc>("Service", "groundwatch-sidecars").spec.publishNotReadyAddresses).toBeUndefined();
    const sm = one<Obj & { spec: { selector: { matchLabels: Record<string, string> } } }>("ServiceMonitor", "groundwatch");
    expect(matches(sm.spec.selector.matchLabels, peersService.metadata.labels)).toBe(false);
  });

  it("points GROUNDWATCH_PEERS_DNS at that Service in the pod's own namespace, on its port, as the kubelet expands it", () => {
    const expanded = kubeletEnv(gw);
    expect(env(gw, "POD_NAMESPACE")?.valueFrom).toEqual({ fieldRef: { fieldPath: "metadata.namespace" } });
    expect(expanded.GROUNDWATCH_PEERS_DNS).toBe(`${peersService.metadata.name}.${POD["metadata.namespace"]}.svc.cluster.local:${peersService.spec.ports[0]!.port}`);
    // Every $(NAME) in the container's environment names a variable defined before it (else the kubelet leaves it as written).
    for (const c of pod.containers) for (const [name, value] of Object.entries(kubeletEnv(c))) expect(value, `${c.name} ${name}`).not.toMatch(/\$\([A-Za-z_]/);
    // And the check is live: the namespace defined after its use stays unexpanded.
    const swapped = { ...gw, env: [...(gw.env ?? []).filter((e) => e.name !== "POD_NAMESPACE"), env(gw, "POD_NAMESPACE")!] };
    expect(kubeletEnv(swapped).GROUNDWATCH_PEERS_DNS).toContain("$(POD_NAMESPACE)");
  });

  it("resolves, as the container gets its environment, to the Service's peers over https, checked for that name against the mounted ca.crt", () => {
    // The Secret groundwatch-tls as the kubelet mounts it, with the test certificates: the env's paths under the mount point there.
    const mount = gw.volumeMounts!.find((m) => m.name === "tls")!;
    const secret = tempDir();
    for (const item of pod.volumes.find((v) => v.name === "tls")!.secret!.items!) copyFileSync({ "tls.crt": TLS_FIXTURES.cert, "tls.key": TLS_FIXTURES.key, "ca.crt": TLS_FIXTURES.ca }[item.key]!, join(secret, item.path));
    const mounted = Object.fromEntries(Object.entries(kubeletEnv(gw)).map(([k, v]) => [k, v.startsWith(`${mount.mountPath}/`) ? join(secret, v.slice(mount.mountPath.length + 1)) : v]));
    const dir = tempDir();
    writeFileSync(join(dir, "groundwatch.yaml"), configMap.data["groundwatch.yaml"]!);
    const resolved = resolveCollectorOptions({ configFile: join(dir, "groundwatch.yaml"), env: mounted });
    expect(resolved.tls).toBeDefined();
    expect(resolved.peers).toMatchObject({ urls: [], dns: `groundwatch-peers.${POD["metadata.namespace"]}.svc.cluster.local:${httpsPort.containerPort}`, serverName: "groundwatch" });
    expect(resolved.peers.ca?.equals(readFileSync(TLS_FIXTURES.ca))).toBe(true);
  });

  it("checks a peer's certificate for the name the certificate carries (the ServiceMonitor's), against the CA mounted beside groundwatch's own pair", () => {
    const serverName = (one<Obj & { spec: { endpoints: Array<{ tlsConfig?: { serverName?: string } }> } }>("ServiceMonitor", "groundwatch").spec.endpoints[0]!.tlsConfig?.serverName);
    expect(env(gw, "GROUNDWATCH_PEERS_SERVER_NAME")?.value).toBe(serverName);
    // GROUNDWATCH_PEERS_CA_FILE is the Secret's ca.crt, through the read-only mount of groundwatch's own pair (no subPath: renewals reach it).
    const caFile = env(gw, "GROUNDWATCH_PEERS_CA_FILE")?.value ?? "";
    const mount = gw.volumeMounts!.find((m) => caFile.startsWith(`${m.mountPath}/`))!;
    expect(mount, caFile).toBeDefined();
    expect(mount.readOnly).toBe(true);
    expect(mount.subPath).toBeUndefined();
    expect(mount.mountPath).toBe((env(gw, "GROUNDWATCH_TLS_CERT_FILE")?.value ?? "").replace(/\/[^/]+$/, ""));
    const volume = pod.volumes.find((v) => v.name === mount.name)?.secret;
    expect(volume?.secretName).toBe("groundwatch-tls");
    expect(volume?.items).toContainEqual({ key: "ca.crt", path: caFile.slice(mount.mountPath.length + 1) });
    // The sidecar still gets the CA alone.
    const sidecar = pod.containers.find((c) => c.name === "otel-sidecar")!;
    const sidecarKeys = (sidecar.volumeMounts ?? []).flatMap((m) => pod.volumes.find((v) => v.name === m.name)?.secret?.items?.map((i) => i.key) ?? []);
    expect(sidecarKeys).toEqual(["ca.crt"]);
  });

  it("lets the groundwatch pods reach each other on the https port, and on nothing more", () => {
    const policy = one<Policy>("NetworkPolicy", "groundwatch");
    const labels = statefulSet.spec.template.metadata.labels;
    const fromPeers = (policy.spec.ingress ?? []).filter((r) => r.from?.some((f) => !f.namespaceSelector && matches(f.podSelector?.matchLabels ?? { none: "" }, labels)));
    expect(fromPeers).toEqual([{ from: [{ podSelector: { matchLabels: policy.spec.podSelector.matchLabels } }], ports: [{ port: httpsPort.name, protocol: "TCP" }] }]);
    const toPeers = (policy.spec.egress ?? []).filter((r) => r.to?.some((t) => !t.namespaceSelector && matches(t.podSelector?.matchLabels ?? { none: "" }, labels)));
    expect(toPeers).toEqual([{ to: [{ podSelector: { matchLabels: policy.spec.podSelector.matchLabels } }], ports: [{ port: httpsPort.name, protocol: "TCP" }] }]);
    // Egress is otherwise DNS only.
    const rest = (policy.spec.egress ?? []).filter((r) => !toPeers.includes(r));
    expect(rest.flatMap((r) => (r.ports ?? []).map((p) => p.port))).toEqual([53, 53]);
  });
});

/** The objects kustomize renders for a directory. */
function render(dir: string): Obj[] {
  const yaml = execFileSync("kubectl", ["kustomize", join(ROOT, dir)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 2 ** 20 });
  return parseAllDocuments(yaml).map((d) => d.toJS() as Obj).filter(Boolean);
}
const find = <T = Obj>(objects: Obj[], kind: string, name: string): T => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} rendered`);
  return found as T;
};

describe.skipIf(!hasKubectl())("deploy/kubernetes and deploy/overlays rendered with kustomize (kubectl installed)", () => {
  const dirs = ["deploy/kubernetes", "deploy/overlays/production", "deploy/overlays/model-tier", "deploy/overlays/emptydir-spool"];
  const rendered = Object.fromEntries(dirs.map((d) => [d, render(d)]));

  it("renders the base and every overlay to objects the Kubernetes and Prometheus Operator schemas accept, with no unknown field", { timeout: 60_000 }, () => {
    for (const dir of dirs) {
      expect(rendered[dir]!.length, dir).toBeGreaterThanOrEqual(all.length);
      expect(rendered[dir]!.flatMap((obj) => schemaProblem(dir, obj) ?? []), dir).toEqual([]);
    }
    expect(unknownFields(dirs.flatMap((dir) => rendered[dir]!.map((obj) => ({ file: dir, obj }))))).toEqual([]);
  });

  it("keeps the peers, the replica's name and the spool claim in every overlay but emptydir-spool, which keeps the peers and swaps the claim", () => {
    for (const dir of dirs) {
      const sts = find<Workload>(rendered[dir]!, "StatefulSet", "groundwatch");
      const c = sts.spec.template.spec.containers.find((x) => x.name === "groundwatch")!;
      expect(kubeletEnv(c).GROUNDWATCH_PEERS_DNS, dir).toBe(`groundwatch-peers.shop.svc.cluster.local:4319`);
      expect(kubeletEnv(c).GROUNDWATCH_REVIEW_REPLICA, dir).toBe("groundwatch-1");
      expect(c.volumeMounts?.find((m) => m.name === "spool")?.mountPath, dir).toBe("/var/lib/groundwatch");
      expect(c.securityContext?.readOnlyRootFilesystem, dir).toBe(true);
      expect(sts.spec.volumeClaimTemplates?.map((t) => t.metadata.name), dir).toEqual(dir.endsWith("emptydir-spool") ? undefined : ["spool"]);
      expect(find(rendered[dir]!, "Service", "groundwatch-peers").metadata.name).toBe("groundwatch-peers");
    }
  });

  it("emptydir-spool: the spool on an emptyDir above its lower cap, the container's ephemeral-storage grown by the emptyDir's size", () => {
    const objects = rendered["deploy/overlays/emptydir-spool"]!;
    const sts = find<Workload>(objects, "StatefulSet", "groundwatch");
    expect(sts.spec.persistentVolumeClaimRetentionPolicy).toBeUndefined();
    const volume = sts.spec.template.spec.volumes.find((v) => v.name === "spool");
    expect(volume?.emptyDir?.sizeLimit).toBeDefined();
    const c = sts.spec.template.spec.containers.find((x) => x.name === "groundwatch")!;
    const review = monitorOptionsOf(find<ConfigMapObj>(objects, "ConfigMap", "groundwatch-config"), kubeletEnv(c)).review!;
    const sizeLimit = mebibytes(volume!.emptyDir!.sizeLimit!) * 2 ** 20;
    // A full spool is a counted skip, never an eviction: the cap and a segment fit the emptyDir with a tenth to spare…
    expect(review.maxBytes + review.segmentBytes).toBeLessThanOrEqual(0.9 * sizeLimit);
    // …and the pod's ephemeral-storage limit (the sum of its containers') covers the base's log allowance plus the emptyDir.
    expect(mebibytes(c.resources!.limits!["ephemeral-storage"]!)).toBeGreaterThanOrEqual(mebibytes(gw.resources!.limits!["ephemeral-storage"]!) + mebibytes(volume!.emptyDir!.sizeLimit!));
    expect(mebibytes(c.resources!.requests!["ephemeral-storage"]!)).toBeGreaterThanOrEqual(mebibytes(gw.resources!.requests!["ephemeral-storage"]!) + review.maxBytes / 2 ** 20);
    // The base's own cap is the larger one: the overlay lowers it, for a pod-lived volume.
    expect(review.maxBytes).toBeLessThan(monitorOptionsOf(configMap, kubeletEnv(gw)).review!.maxBytes);
    // Everything else of the base is kept (the token, TLS, the config).
    expect(env(c, "GROUNDWATCH_TOKEN")?.valueFrom?.secretKeyRef?.name).toBe("groundwatch");
    expect(c.volumeMounts?.map((m) => m.mountPath)).toEqual(expect.arrayContaining(["/etc/groundwatch", "/etc/groundwatch-tls", "/var/lib/groundwatch"]));
    expect(parse(find<ConfigMapObj>(objects, "ConfigMap", "groundwatch-config").data["groundwatch.yaml"]!)).toEqual(parse(configMap.data["groundwatch.yaml"]!));
  });
});

describe("docs/deploy.md says what the manifests ship", () => {
  const deployDoc = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");
  const section = (heading: string): string => {
    const start = deployDoc.indexOf(`\n${heading}\n`);
    expect(start, heading).toBeGreaterThanOrEqual(0);
    const next = deployDoc.slice(start + heading.length + 2).search(/\n#{2,3} /);
    return deployDoc.slice(start, next < 0 ? undefined : start + heading.length + 2 + next);
  };

  it("sizes the spool with the cap, the claim and the retention the manifests ship", () => {
    const disk = section("### Disk for the spool");
    const review = monitorOptionsOf(configMap, kubeletEnv(gw)).review!;
    const gib = (bytes: number): string => `${bytes / 2 ** 30} GiB`;
    const claim = statefulSet.spec.volumeClaimTemplates![0]!.spec.resources.requests.storage;
    expect(disk).toContain(`(\`maxBytes\` ${gib(review.maxBytes)} on a ${gib(mebibytes(claim) * 2 ** 20)} claim,\n\`retentionDays\` ${review.retentionMs / 86_400_000})`);
    expect(disk).toContain(`(\`monitor.review.groundedSampleRate\`, ${review.groundedSampleRate})`);
  });

  it("gives a reader pod for a removed replica's claim that the schema accepts, mounting that claim read-only as the image's user", { timeout: 30_000 }, () => {
    const block = codeBlocks("docs/deploy.md", deployDoc).find((b) => b.lang === "yaml" && b.lines.some((l) => l.text.trim() === "kind: Pod"));
    expect(block, "the reader pod's yaml block").toBeDefined();
    const reader = parse(block!.lines.map((l) => l.text).join("\n")) as Obj & { spec: PodSpec & { volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }> } };
    expect(schemaProblem("docs/deploy.md", reader)).toBeUndefined();
    expect(unknownFields([{ file: "docs/deploy.md", obj: reader }])).toEqual([]);
    const claim = reader.spec.volumes[0]!.persistentVolumeClaim!;
    // A StatefulSet names its claims <template>-<statefulset>-<ordinal>.
    expect(claim.claimName).toMatch(new RegExp(`^${statefulSet.spec.volumeClaimTemplates![0]!.metadata.name}-${statefulSet.metadata.name}-\\d+$`));
    expect(claim.readOnly).toBe(true);
    const c = reader.spec.containers[0]!;
    expect(c.volumeMounts).toEqual([{ name: reader.spec.volumes[0]!.name, mountPath: gw.volumeMounts!.find((m) => m.name === "spool")!.mountPath, readOnly: true }]);
    expect((reader.spec.securityContext as { runAsUser?: number }).runAsUser).toBe(gw.securityContext?.runAsUser);
    expect(deployDoc).toContain(`kubectl cp groundwatch-spool-reader:${monitorOptionsOf(configMap, kubeletEnv(gw)).review!.dir} ./${claim.claimName}`);
  });
});
