// Checks that a kustomize overlay of deploy/kubernetes runs every image by digest: each image the
// base's Deployments name by tag needs an `images:` entry with a digest in the overlay's
// kustomization.yaml (deploy/images.yaml says why the base cannot carry them all itself).
//
//   npx tsx scripts/image-pins.ts deploy/overlays/production
//
// exits 1, naming each image left unpinned, while any is; the shipped overlay is a template and fails
// until its SET-ME placeholders are replaced. It reads the overlay's own kustomization.yaml only (not
// components or further overlays).
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

/** What keeps an overlay from running every base image by digest, one line each; empty when nothing does. */
export function unpinnedImages(overlay: { images?: KustomizeImage[] }, refs: readonly string[] = baseImages()): string[] {
  const problems: string[] = [];
  for (const name of new Set(refs.filter((r) => !r.includes("@")).map(imageName))) {
    const entry = overlay.images?.find((e) => e.name === name);
    if (!entry?.digest) problems.push(`${name}: no digest (add to images: name: ${name}, digest: sha256:…)`);
    else if (!DIGEST.test(entry.digest)) problems.push(`${name}: digest ${JSON.stringify(entry.digest)} is not "sha256:" and 64 hex digits`);
    if (entry?.newName && /(^|\.)example\.(com|org|net)(\/|:|$)/.test(entry.newName)) problems.push(`${name}: newName ${entry.newName} is the template's; name your registry`);
  }
  return problems;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: npx tsx scripts/image-pins.ts OVERLAY_DIR");
    process.exit(2);
  }
  const overlay = parse(readFileSync(join(resolve(dir), "kustomization.yaml"), "utf8")) as { images?: KustomizeImage[] };
  const problems = unpinnedImages(overlay);
  for (const p of problems) console.error(`${dir}: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log(`${dir}: every image pinned by digest`);
}
