import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { baseImages, imageName, renderedImages, unpinnedImages, unpinnedRendered } from "../../scripts/image-pins.ts";
import type { KustomizeImage } from "../../scripts/image-pins.ts";
import { DIR, ROOT } from "./manifests.ts";
import { hasKubectl } from "../helpers/kubectl.ts";

/**
 * Image pins (issue 24, item 16): every third-party image the deployment files run is named exactly as
 * deploy/images.yaml records it — by digest where a digest is recorded, by tag where none is — and the
 * production overlay refuses to leave any Kubernetes image unpinned.
 */

interface Pin {
  name: string;
  tag: string;
  digest: string | null;
  source: string;
}
const PINS = (parse(readFileSync(join(ROOT, "deploy", "images.yaml"), "utf8")) as { images: Pin[] }).images;
const OVERLAY_DIR = join(ROOT, "deploy", "overlays", "production");
const overlay = (): { resources: string[]; images: KustomizeImage[] } => parse(readFileSync(join(OVERLAY_DIR, "kustomization.yaml"), "utf8")) as { resources: string[]; images: KustomizeImage[] };
const HEX64 = "0123456789abcdef".repeat(4);
const SCRIPT = join(ROOT, "scripts", "image-pins.ts");


/** `image-pins.ts --render DIR` run as a user runs it: its exit code, what it wrote to stdout (what `kubectl apply -f -` would get) and to stderr. */
function renderGate(dir: string): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, ["--import", "tsx", SCRIPT, "--render", dir], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: 0, stdout, stderr: "" };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** Every third-party image reference, with where it is: compose services without a build, the Dockerfile's base, the Kubernetes containers but groundwatch's own. */
function references(): Array<{ where: string; ref: string }> {
  const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as { services: Record<string, { image?: string; build?: unknown }> };
  const out = Object.entries(compose.services)
    .filter(([, s]) => s.image && !s.build)
    .map(([name, s]) => ({ where: `docker-compose.yml ${name}`, ref: s.image! }));
  const arg = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(ROOT, "Dockerfile"), "utf8"))?.[1];
  out.push({ where: "Dockerfile NODE_IMAGE", ref: arg ?? "" });
  for (const ref of baseImages(DIR)) if (imageName(ref) !== "groundwatch") out.push({ where: "deploy/kubernetes", ref });
  return out;
}

/** The shipped overlay with every placeholder filled as a user would, in a temporary directory next to nothing. */
function filledOverlay(dir: string): { images: KustomizeImage[] } {
  const o = overlay();
  const filled = {
    ...o,
    resources: [relative(dir, DIR)],
    images: o.images.map((i) => ({ ...i, digest: `sha256:${HEX64}`, ...(i.newName ? { newName: "registry.internal:5000/groundwatch" } : {}) })),
  };
  writeFileSync(join(dir, "kustomization.yaml"), stringify(filled));
  return filled;
}

describe("deploy/images.yaml: one record of the third-party images", () => {
  it("records each image once, with a well-formed digest or none, and where the digest came from", () => {
    expect(new Set(PINS.map((p) => p.name)).size).toBe(PINS.length);
    for (const p of PINS) {
      expect(p.tag, p.name).toMatch(/^v?\d+\.\d+\.\d+[\w.-]*$/);
      if (p.digest !== null) expect(p.digest, p.name).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(p.source.length, p.name).toBeGreaterThan(10);
    }
  });

  it("is how compose, the Dockerfile and Kubernetes name each image: by digest where one is recorded, else by tag", () => {
    const refs = references();
    expect(refs.length).toBeGreaterThanOrEqual(7);
    for (const { where, ref } of refs) {
      const pin = PINS.find((p) => p.name === imageName(ref));
      expect(pin, `${where}: ${ref} is not in deploy/images.yaml`).toBeDefined();
      expect(ref, where).toBe(pin!.digest ? `${pin!.name}:${pin!.tag}@${pin!.digest}` : `${pin!.name}:${pin!.tag}`);
    }
    for (const p of PINS) expect(refs.map((r) => imageName(r.ref)), `${p.name} is recorded but not used`).toContain(p.name);
  });

  it("reads image names as kustomize matches them: no tag, no digest, a registry port kept", () => {
    expect(imageName("node:20.20.2-bookworm-slim@sha256:" + HEX64)).toBe("node");
    expect(imageName("registry.internal:5000/groundwatch:0.1.0")).toBe("registry.internal:5000/groundwatch");
    expect(imageName("registry.internal:5000/groundwatch")).toBe("registry.internal:5000/groundwatch");
    expect(imageName("otel/opentelemetry-collector-contrib@sha256:" + HEX64)).toBe("otel/opentelemetry-collector-contrib");
  });
});

describe("deploy/overlays/production: every Kubernetes image by digest", () => {
  it("refuses the shipped template until each placeholder is replaced, naming each image", () => {
    const problems = unpinnedImages(overlay());
    const names = [...new Set(baseImages(DIR).map(imageName))];
    expect(names.sort()).toEqual(["groundwatch", "otel/opentelemetry-collector-contrib"]);
    for (const name of names) expect(problems.some((p) => p.startsWith(`${name}: digest "sha256:SET-ME"`)), name).toBe(true);
    expect(problems).toContain("groundwatch: newName registry.example.com/groundwatch is the template's; name your registry");
  });

  it("passes an overlay with every digest set, and names an image whose entry is missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-overlay-"));
    try {
      const filled = filledOverlay(dir);
      expect(unpinnedImages(filled)).toEqual([]);
      const without = { images: filled.images.filter((i) => i.name !== "otel/opentelemetry-collector-contrib") };
      expect(unpinnedImages(without)).toEqual(["otel/opentelemetry-collector-contrib: no digest (add to images: name: otel/opentelemetry-collector-contrib, digest: sha256:…)"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("builds with kustomize to containers that all run by digest (when kubectl is installed)", () => {
    if (!hasKubectl()) return; // kubectl is not required where the tests run; the checks above do not need it
    const dir = mkdtempSync(join(tmpdir(), "gw-overlay-"));
    try {
      filledOverlay(dir);
      const rendered = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      const images = [...rendered.matchAll(/^\s+image: (\S+)$/gm)].map((m) => m[1]!);
      expect(images.length).toBe(baseImages(DIR).length);
      for (const image of images) expect(image).toMatch(new RegExp(`@sha256:${HEX64}$`));
      expect(images).toContain(`registry.internal:5000/groundwatch@sha256:${HEX64}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("image-pins.ts --render: the one way an overlay reaches kubectl apply", () => {
  const deployment = (image: string, init?: string): string =>
    stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { template: { spec: { containers: [{ name: "c", image }], ...(init ? { initContainers: [{ name: "i", image: init }] } : {}) } } } });
  const cronJob = (image: string): string => stringify({ apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "j" }, spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image }] } } } } } });

  it("checks every container of every workload in the rendered manifests, init containers and CronJobs included", () => {
    const pinned = `registry.internal:5000/groundwatch@sha256:${HEX64}`;
    expect(unpinnedRendered(`${deployment(pinned, `busybox@sha256:${HEX64}`)}---\n${cronJob(`otel/opentelemetry-collector-contrib:0.114.0@sha256:${HEX64}`)}`)).toEqual([]);
    expect(unpinnedRendered(deployment(pinned, "busybox:1.36"))).toEqual(["Deployment/d i: busybox:1.36 is not pinned by digest (NAME@sha256:<64 hex digits>)"]);
    expect(unpinnedRendered(cronJob("otel/opentelemetry-collector-contrib@sha256:SET-ME"))).toEqual(["CronJob/j c: otel/opentelemetry-collector-contrib@sha256:SET-ME is not pinned by digest (NAME@sha256:<64 hex digits>)"]);
    expect(unpinnedRendered(deployment(`registry.example.com/groundwatch@sha256:${HEX64}`))).toEqual([`Deployment/d c: registry.example.com/groundwatch@sha256:${HEX64} is the template's registry; name your registry`]);
    expect(unpinnedRendered(stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "only" } }))).toHaveLength(1);
  });

  it("writes nothing for kubectl apply while the shipped overlays, or the base itself, run any image by tag or placeholder (when kubectl is installed)", () => {
    if (!hasKubectl()) return; // the checks above do not need it
    for (const dir of [OVERLAY_DIR, join(ROOT, "deploy", "overlays", "model-tier"), DIR]) {
      const run = renderGate(dir);
      expect(run.code, dir).toBe(1);
      expect(run.stdout, dir).toBe("");
      expect(run.stderr, dir).toContain("is not pinned by digest");
    }
  });

  it("writes the rendered manifests, every image by digest, once the overlay is filled in, and refuses one a patch adds a tagged image to (when kubectl is installed)", () => {
    if (!hasKubectl()) return; // the checks above do not need it
    const dir = mkdtempSync(join(tmpdir(), "gw-overlay-"));
    try {
      const filled = filledOverlay(dir);
      const run = renderGate(dir);
      expect(run.code, run.stderr).toBe(0);
      const images = renderedImages(run.stdout);
      expect(images.length).toBe(baseImages(DIR).length);
      for (const { image } of images) expect(image).toMatch(new RegExp(`@sha256:${HEX64}$`));
      // What the kustomization-only check cannot see: a patch that adds a container by tag.
      writeFileSync(join(dir, "debug-patch.yaml"), stringify({ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "groundwatch" }, spec: { template: { spec: { initContainers: [{ name: "debug", image: "busybox:1.36" }] } } } }));
      writeFileSync(join(dir, "kustomization.yaml"), stringify({ ...filled, patches: [{ path: "debug-patch.yaml" }] }));
      expect(unpinnedImages(filled)).toEqual([]);
      const patched = renderGate(dir);
      expect(patched.code).toBe(1);
      expect(patched.stdout).toBe("");
      expect(patched.stderr).toContain("StatefulSet/groundwatch debug: busybox:1.36 is not pinned by digest");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
