// The objects of deploy/kubernetes/, read once, with the shapes the deploy tests look at: shared by
// test/deploy/kubernetes.test.ts (schemas, wiring) and test/deploy/network.test.ts (network and
// resource hardening).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DIR = join(ROOT, "deploy", "kubernetes");

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [k: string]: unknown };

/** Each manifest file's objects (kustomization.yaml is kustomize's, not the API's). */
export function manifests(): Array<{ file: string; obj: Obj }> {
  const out: Array<{ file: string; obj: Obj }> = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(DIR, file), "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
      const obj = doc.toJS() as Obj | null;
      if (obj) out.push({ file, obj });
    }
  }
  return out;
}

export const all = manifests();

/** The object of that kind and name; throws when deploy/kubernetes has none. */
export const one = <T = Obj>(kind: string, name: string): T => {
  const found = all.find(({ obj }) => obj.kind === kind && obj.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return found.obj as T;
};

export interface Probe {
  httpGet?: { path: string; port: string; scheme?: string };
  /** How long the kubelet waits for the answer, s (Kubernetes' default: 1). */
  timeoutSeconds?: number;
}
export interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { runAsUser?: number; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean; subPath?: string }>;
}
export interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext?: { runAsNonRoot?: boolean; fsGroup?: number; fsGroupChangePolicy?: string };
  containers: Container[];
  volumes: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string; items?: Array<{ key: string; path: string }> }; emptyDir?: { sizeLimit?: string } }>;
}
/** A volume claim template of a StatefulSet. */
export interface ClaimTemplate {
  metadata: { name: string };
  spec: { accessModes: string[]; resources: { requests: { storage: string } } };
}
export type Workload = Obj & {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    serviceName?: string;
    podManagementPolicy?: string;
    volumeClaimTemplates?: ClaimTemplate[];
    persistentVolumeClaimRetentionPolicy?: { whenScaled?: string; whenDeleted?: string };
  };
};

/** Every workload (Deployment, StatefulSet) in deploy/kubernetes. */
export const workloads = (): Workload[] => all.filter(({ obj }) => obj.kind === "Deployment" || obj.kind === "StatefulSet").map(({ obj }) => obj as Workload);

export const env = (c: Container, name: string) => c.env?.find((e) => e.name === name);
export const mebibytes = (q: string): number => {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (!m) throw new Error(`unexpected quantity ${q}`);
  return Number(m[1]) * (m[2] === "Gi" ? 1024 : 1);
};
/** Whether a label selector's matchLabels select those labels. */
export const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined): boolean => Object.entries(selector).every(([k, v]) => labels?.[k] === v);
