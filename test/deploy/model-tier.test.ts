import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PersistentVolumeClaim } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { unpinnedImages } from "../../scripts/image-pins.ts";
import type { KustomizeImage } from "../../scripts/image-pins.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { ROOT } from "./manifests.ts";
import type { Container, Workload } from "./manifests.ts";
import { hasKubectl } from "../helpers/kubectl.ts";

/**
 * deploy/overlays/model-tier: the base scoring with an ONNX model, sized from bench:model-tier. Its
 * settings must resolve to the onnx backend the sizing measured, its CPU request must be the
 * session's threads, its figures must be the ones docs/deploy.md's model-tier table gives, and (where
 * kubectl is installed) it must render to objects the Kubernetes schemas accept.
 */
const OVERLAY = join(ROOT, "deploy", "overlays", "model-tier");
const read = (file: string): string => readFileSync(join(OVERLAY, file), "utf8");
const patch = parse(read("statefulset-patch.yaml")) as Workload;
const container = patch.spec.template.spec.containers.find((c) => c.name === "groundwatch") as Container;
const envOf = (c: Container): Record<string, string> => Object.fromEntries((c.env ?? []).flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]])));


describe("the model-tier overlay (deploy/overlays/model-tier)", () => {
  it("resolves to the onnx backend the sizing measured: the int8 DeBERTa-v3-xsmall graph, production required, batching across 8 observations", () => {
    const env = { ...envOf(container), HF_HOME: "/models" };
    const score = resolveScoreOptions({}, { env });
    expect(score).toMatchObject({ backend: "onnx", model: "Xenova/nli-deberta-v3-xsmall", variant: "int8", requireProduction: true, onnxThreads: 2 });
    expect(resolveMonitorOptions({ env }).inFlightPerWorker).toBe(8);
  });

  it("requests as many cores as the session has intra-op threads, and memory above the peak the benchmark measured", () => {
    const requests = container.resources?.requests ?? {};
    expect(Number(requests.cpu)).toBe(Number(envOf(container).GROUNDWATCH_ONNX_THREADS));
    const mib = (q: string | undefined): number => {
      const m = /^(\d+)(Mi|Gi)$/.exec(q ?? "");
      return m ? Number(m[1]) * (m[2] === "Gi" ? 1024 : 1) : Number.NaN;
    };
    // The int8 graph peaked at 673 MB (VmHWM, 10^6 bytes) and the fp32 one at 867 MB in bench:model-tier.
    expect(mib(requests.memory) * 1.048576).toBeGreaterThan(673);
    expect(mib(container.resources?.limits?.memory) * 1.048576).toBeGreaterThan(867);
    expect(container.volumeMounts).toContainEqual({ name: "models", mountPath: "/models", readOnly: true });
  });

  it("states the figures docs/deploy.md's model-tier table gives", () => {
    const deploy = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");
    const section = deploy.slice(deploy.indexOf("## Sizing the model tier"));
    expect(section.length).toBeLessThan(deploy.length);
    const row = section.split("\n").find((l) => l.startsWith("| DeBERTa-v3-xsmall shape | int8 |"));
    expect(row, "the int8 DeBERTa row of the table").toBeDefined();
    const perCore = /([\d.]+) observations\/s per core with the DeBERTa-v3-xsmall-shaped int8 graph/.exec(read("statefulset-patch.yaml"))?.[1];
    expect(perCore).toBeDefined();
    expect(row).toContain(`| ${perCore} |`);
    expect(section).toContain("deploy/overlays/model-tier");
  });

  it("is a template that refuses to apply until both images are pinned by digest", () => {
    const kustomization = parse(read("kustomization.yaml")) as { images: KustomizeImage[]; resources: string[] };
    expect(kustomization.resources).toContain("../../kubernetes");
    expect(kustomization.images.find((i) => i.name === "groundwatch")?.newTag).toBe("0.1.0-onnx");
    const problems = unpinnedImages(kustomization);
    for (const name of ["groundwatch", "otel/opentelemetry-collector-contrib"]) expect(problems.some((p) => p.startsWith(`${name}: digest "sha256:SET-ME"`)), name).toBe(true);
  });

  it("renders with kustomize to objects the Kubernetes schemas accept (when kubectl is installed)", () => {
    if (!hasKubectl()) return; // kubectl is not required where the tests run; the checks above do not need it
    const rendered = execFileSync("kubectl", ["kustomize", OVERLAY], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const objects = parseAllDocuments(rendered).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
    const deployment = objects.find((o) => o.kind === "StatefulSet" && o.metadata.name === "groundwatch") as unknown as Workload;
    const hpa = objects.find((o) => o.kind === "HorizontalPodAutoscaler" && o.metadata.name === "groundwatch");
    const pvc = objects.find((o) => o.kind === "PersistentVolumeClaim" && o.metadata.name === "groundwatch-models");
    expect(() => new StatefulSet(deployment as never).validate()).not.toThrow();
    expect(() => new HorizontalPodAutoscaler(hpa as never).validate()).not.toThrow();
    expect(() => new PersistentVolumeClaim(pvc as never).validate()).not.toThrow();
    const gw = deployment.spec.template.spec.containers.find((c) => c.name === "groundwatch") as Container;
    expect(gw.image).toMatch(/^registry\.example\.com\/groundwatch:0\.1\.0-onnx@sha256:/);
    // The base's settings are kept (the token, the config file) and the model's added.
    expect(envOf(gw)).toMatchObject({ GROUNDWATCH_BACKEND: "onnx", GROUNDWATCH_CONFIG: "/etc/groundwatch/groundwatch.yaml" });
    expect((gw.env ?? []).some((e) => e.name === "GROUNDWATCH_TOKEN" && e.valueFrom?.secretKeyRef?.name === "groundwatch")).toBe(true);
    expect(gw.volumeMounts?.map((m) => m.mountPath)).toEqual(expect.arrayContaining(["/etc/groundwatch", "/etc/groundwatch-tls", "/models"]));
    // TLS too: the patch adds to the base's env and volumes, it does not replace them.
    expect(envOf(gw)).toMatchObject({ GROUNDWATCH_TLS_CERT_FILE: "/etc/groundwatch-tls/tls.crt", GROUNDWATCH_TLS_KEY_FILE: "/etc/groundwatch-tls/tls.key" });
    expect(deployment.spec.template.spec.volumes.map((v) => v.name)).toEqual(expect.arrayContaining(["tls", "tls-ca", "models"]));
    expect((hpa as unknown as { spec: { maxReplicas: number } }).spec.maxReplicas).toBe(20);
  });
});
