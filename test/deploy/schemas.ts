// The schemas the deploy tests validate Kubernetes objects against, offline: the Kubernetes API
// (kubernetes-models 4.5.1, Kubernetes 1.31/1.32 API) and the Prometheus Operator CRDs
// (@kubernetes-models/prometheus-operator 4.4.4, operator v0.65.1 CRDs), plus a check for unknown
// (misspelt) fields, which those JSON schemas let through: each object type-checked against the same
// models' TypeScript declarations. Shared by test/deploy/kubernetes.test.ts (the base's files) and
// test/deploy/replicas.test.ts (the base and the overlays as kustomize renders them).
import { join } from "node:path";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { ConfigMap, PersistentVolumeClaim, Pod, Service } from "kubernetes-models/v1";
import ts from "typescript";
import { ROOT } from "./manifests.ts";
import type { Obj } from "./manifests.ts";

/** Each kind the manifests may hold: its model (validate()) and its declaration's type name. */
export const MODELS: Record<string, { model: new (data: never) => { validate(): void }; type: string }> = {
  "apps/v1/Deployment": { model: Deployment, type: "IDeployment" },
  "apps/v1/StatefulSet": { model: StatefulSet, type: "IStatefulSet" },
  "v1/Service": { model: Service, type: "IService" },
  "v1/ConfigMap": { model: ConfigMap, type: "IConfigMap" },
  "v1/PersistentVolumeClaim": { model: PersistentVolumeClaim, type: "IPersistentVolumeClaim" },
  "v1/Pod": { model: Pod, type: "IPod" },
  "networking.k8s.io/v1/NetworkPolicy": { model: NetworkPolicy, type: "INetworkPolicy" },
  "policy/v1/PodDisruptionBudget": { model: PodDisruptionBudget, type: "IPodDisruptionBudget" },
  "autoscaling/v2/HorizontalPodAutoscaler": { model: HorizontalPodAutoscaler, type: "IHorizontalPodAutoscaler" },
  "monitoring.coreos.com/v1/ServiceMonitor": { model: ServiceMonitor, type: "IServiceMonitor" },
  "monitoring.coreos.com/v1/PrometheusRule": { model: PrometheusRule, type: "IPrometheusRule" },
};
const TYPE_MODULES: Record<string, string> = {
  IDeployment: "kubernetes-models/apps/v1",
  IStatefulSet: "kubernetes-models/apps/v1",
  IService: "kubernetes-models/v1",
  IConfigMap: "kubernetes-models/v1",
  IPersistentVolumeClaim: "kubernetes-models/v1",
  IPod: "kubernetes-models/v1",
  INetworkPolicy: "kubernetes-models/networking.k8s.io/v1",
  IPodDisruptionBudget: "kubernetes-models/policy/v1",
  IHorizontalPodAutoscaler: "kubernetes-models/autoscaling/v2",
  IServiceMonitor: "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
  IPrometheusRule: "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
};

export const keyOf = (o: Obj): string => `${o.apiVersion}/${o.kind}`;

/** Why an object fails its kind's schema ("FILE: KIND NAME: message"), or undefined when it passes; an unknown kind fails. */
export function schemaProblem(file: string, obj: Obj): string | undefined {
  const entry = MODELS[keyOf(obj)];
  if (!entry) return `${file}: ${keyOf(obj)} ${obj.metadata.name}: a kind no schema here covers`;
  try {
    new entry.model(obj as never).validate();
    return undefined;
  } catch (error) {
    return `${file}: ${obj.kind} ${obj.metadata.name}: ${(error as Error).message}`;
  }
}

/**
 * TypeScript's excess-property check of each object against the models' declarations, in memory: the
 * JSON schemas the models validate with allow unknown fields, the declarations do not.
 */
export function unknownFields(objects: ReadonlyArray<{ file: string; obj: Obj }>): string[] {
  const file = join(ROOT, "test", "deploy", "__manifests__.ts");
  const used = [...new Set(objects.map(({ obj }) => MODELS[keyOf(obj)]!.type))];
  const source = [
    ...used.map((t) => `import type { ${t} } from ${JSON.stringify(TYPE_MODULES[t])};`),
    ...objects.map(({ file: f, obj }, i) => `// ${f}\nexport const m${i}: ${MODELS[keyOf(obj)]!.type} = ${JSON.stringify(obj)};`),
  ].join("\n");
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ["lib.es2023.d.ts"] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const where = line >= 0 ? (source.split("\n")[line - 1] ?? "") : "";
    return `${where.startsWith("// ") ? where.slice(3) : "?"}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}
