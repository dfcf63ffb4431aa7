// Checks that a kustomize overlay of deploy/kubernetes runs every image by digest, two ways:
//
//   npx tsx scripts/image-pins.ts deploy/overlays/production
//       reads the overlay's own kustomization.yaml: each image the base's Deployments name by tag
//       needs an `images:` entry with a digest (deploy/images.yaml says why the base cannot carry
//       them all itself). Needs no kubectl; does not see components or further overlays.
//
//   npx tsx scripts/image-pins.ts --render deploy/overlays/production | kubectl apply -f -
//       renders the overlay (`kubectl kustomize`) and checks what would be applied: every container,
//       init container and ephemeral container of every workload runs NAME@sha256:<64 hex digits>,
//       from a registry that is not the template's. Only then is the rendered YAML written to
//       standard output; otherwise nothing is, so `kubectl apply -f -` has nothing to apply and fails.
//       This is the way to apply an overlay: patches, components and overlays of overlays included.
//
// Either exits 1, naming each image left unpinned, while any is; the shipped overlays are templates
// and fail until their SET-ME placeholders are replaced.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse, parseAllDocuments } from "yaml";

const ROOT = join(import.meta.dirname, "..");
const BASE_DIR = join(ROOT, "deploy", "kubernetes");
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** One entry of a kustomization's `images:`. */
export interface KustomizeImage {
  /** The image name it rewrites, as the manifests write it (no tag). */
  name: string;
  /** The name to write instead (a registry path). */
  newName?: string;
  /** The tag to write instead. */
  newTag?: string;
  /** The digest to pin (`sha256:` and 64 hex digits); kustomize then drops the tag. */
  digest?: string;
}

type Pod = { spec?: { template?: { spec?: { containers?: Array<{ image?: string }>; initContainers?: Array<{ image?: string }> } } } };

/** The image references of the base's Deployments' containers, as written. */
export function baseImages(dir = BASE_DIR): string[] {
  const refs: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), "utf8"))) {
      const pod = (doc.toJS() ?? {}) as Pod;
      const spec = pod.spec?.template?.spec;
      for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) if (c.image) refs.push(c.image);
    }
  }
  return refs;
}

/** An image reference's name, without its tag and digest (a registry's `host:port/` kept). */
export function imageName(ref: string): string {
  const noDigest = ref.split("@")[0]!;
  const slash = noDigest.lastIndexOf("/");
  const colon = noDigest.lastIndexOf(":");
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** A registry name only a template uses (registry.example.com and the like): the user has not named theirs. */
const TEMPLATE_REGISTRY = /(^|\.)example\.(com|org|net)(\/|:|$)/;

/** What keeps an overlay from running every base image by digest, one line each; empty when nothing does. */
export function unpinnedImages(overlay: { images?: KustomizeImage[] }, refs: readonly string[] = baseImages()): string[] {
  const problems: string[] = [];
  for (const name of new Set(refs.filter((r) => !r.includes("@")).map(imageName))) {
    const entry = overlay.images?.find((e) => e.name === name);
    if (!entry?.digest) problems.push(`${name}: no digest (add to images: name: ${name}, digest: sha256:…)`);
    else if (!DIGEST.test(entry.digest)) problems.push(`${name}: digest ${JSON.stringify(entry.digest)} is not "sha256:" and 64 hex digits`);
    if (entry?.newName && TEMPLATE_REGISTRY.test(entry.newName)) problems.push(`${name}: newName ${entry.newName} is the template's; name your registry`);
  }
  return problems;
}

type PodSpecImages = { containers?: Array<{ name?: string; image?: string }>; initContainers?: Array<{ name?: string; image?: string }>; ephemeralContainers?: Array<{ name?: string; image?: string }> };
type Rendered = { kind?: string; metadata?: { name?: string }; spec?: { template?: { spec?: PodSpecImages }; jobTemplate?: { spec?: { template?: { spec?: PodSpecImages } } } } & PodSpecImages };

/** The pod spec of an object that runs pods (a Pod, a CronJob's job template, any other workload's template). */
function podSpecOf(obj: Rendered): PodSpecImages | undefined {
  if (obj.kind === "Pod") return obj.spec;
  if (obj.kind === "CronJob") return obj.spec?.jobTemplate?.spec?.template?.spec;
  return obj.spec?.template?.spec;
}

/** Every container image in rendered manifests, with where it is ("Deployment/groundwatch otel-sidecar"). */
export function renderedImages(yaml: string): Array<{ where: string; image: string }> {
  const out: Array<{ where: string; image: string }> = [];
  for (const doc of parseAllDocuments(yaml)) {
    if (doc.errors.length > 0) throw new Error(`the rendered manifests are not valid YAML: ${doc.errors[0]?.message ?? ""}`);
    const obj = (doc.toJS() ?? {}) as Rendered;
    const spec = podSpecOf(obj);
    for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])]) {
      out.push({ where: `${obj.kind ?? "?"}/${obj.metadata?.name ?? "?"} ${c.name ?? "?"}`, image: c.image ?? "" });
    }
  }
  return out;
}

/** What keeps rendered manifests from running every image by digest, one line each; empty when nothing does. */
export function unpinnedRendered(yaml: string): string[] {
  const images = renderedImages(yaml);
  if (images.length === 0) return ["no container images in the rendered manifests: nothing to check (is this a kustomize directory of workloads?)"];
  const problems: string[] = [];
  for (const { where, image } of images) {
    const at = image.lastIndexOf("@");
    if (at < 0 || !DIGEST.test(image.slice(at + 1))) problems.push(`${where}: ${image || "(no image)"} is not pinned by digest (NAME@sha256:<64 hex digits>)`);
    if (TEMPLATE_REGISTRY.test(imageName(image))) problems.push(`${where}: ${image} is the template's registry; name your registry`);
  }
  return problems;
}

/** The overlay rendered by kustomize (kubectl's); throws with kubectl's message when it cannot be. */
function render(dir: string): string {
  try {
    return execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 2 ** 20 });
  } catch (error) {
    const e = error as { code?: string; stderr?: string; message: string };
    throw new Error(e.code === "ENOENT" ? "kubectl is not installed (--render needs `kubectl kustomize`)" : (e.stderr ?? e.message).trim());
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const args = process.argv.slice(2);
  const rendering = args[0] === "--render";
  const dir = rendering ? args[1] : args[0];
  if (!dir || args.length !== (rendering ? 2 : 1)) {
    console.error("usage: npx tsx scripts/image-pins.ts [--render] OVERLAY_DIR");
    process.exit(2);
  }
  if (rendering) {
    let yaml: string;
    try {
      yaml = render(dir);
    } catch (error) {
      console.error(`${dir}: cannot render: ${(error as Error).message}`);
      process.exit(2);
    }
    const problems = unpinnedRendered(yaml);
    for (const p of problems) console.error(`${dir}: ${p}`);
    if (problems.length > 0) {
      console.error(`${dir}: refused: nothing written (${problems.length} problem${problems.length === 1 ? "" : "s"})`);
      process.exit(1);
    }
    process.stdout.write(yaml);
    console.error(`${dir}: every image pinned by digest (${renderedImages(yaml).length} containers)`);
  } else {
    const overlay = parse(readFileSync(join(resolve(dir), "kustomization.yaml"), "utf8")) as { images?: KustomizeImage[] };
    const problems = unpinnedImages(overlay);
    for (const p of problems) console.error(`${dir}: ${p}`);
    if (problems.length > 0) process.exit(1);
    console.log(`${dir}: every image pinned by digest`);
  }
}
