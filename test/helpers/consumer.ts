import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

interface LockEntry {
  version?: string;
  name?: string;
  integrity?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/** Where Node (and npm's lockfile) finds `name` when required from the package installed at `from`. */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let at = from; ; ) {
    const candidate = `${at ? `${at}/` : ""}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!at) return undefined;
    const cut = at.lastIndexOf("/node_modules/");
    at = cut === -1 ? "" : at.slice(0, cut);
  }
}

export interface Consumer {
  readonly dir: string;
  readonly tarball: string;
  /** Runs a command in the project; returns stdout, throws with stderr on a non-zero exit. */
  run(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): string;
  remove(): void;
}

/**
 * A fresh project that installs groundwatch from its packed tarball, as a user would, with
 * `npm ci --offline` from the npm cache that this repository's `npm ci` filled. npm 11's
 * `npm install` insists on full packuments, which `npm ci` never caches, so the project gets a
 * lockfile instead: the packages the consumer needs, at the versions this repository's own
 * lockfile tested, in the same layout. `deps` are the consumer's own dependencies (names
 * from this repository's lockfile), `extra` files are written into the project. `workspace` adds
 * dependencies from another lockfile of this repository (an instrumentation workspace's, whose
 * `npm ci` cached them), placed at the top, their own dependencies resolved through this
 * repository's layout. `copies` installs a second copy of a package at a nested path (e.g.
 * `node_modules/a/node_modules/b`: b, the version this repository's lockfile has), as npm does when
 * a package pins another version of one already at the top.
 */
export function createConsumer(options: { deps: readonly string[]; extra?: Record<string, string>; workspace?: { lockfile: string; deps: readonly string[] }; copies?: Record<string, string> }): Consumer {
  const dir = mkdtempSync(join(tmpdir(), "groundwatch-consumer-"));
  try {
    const packed = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT, encoding: "utf8" })) as Array<{ filename: string }>;
    const tarball = join(dir, basename(packed[0]!.filename));
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
    const workspace = options.workspace ? (JSON.parse(readFileSync(options.workspace.lockfile, "utf8")) as { packages: Record<string, LockEntry> }) : undefined;
    for (const name of options.workspace?.deps ?? []) {
      const entry = workspace?.packages[`node_modules/${name}`];
      if (!entry?.version) throw new Error(`consumer: ${name} is not in ${options.workspace?.lockfile}`);
      if (lock.packages[`node_modules/${name}`]) throw new Error(`consumer: ${name} is in this repository's lockfile already`);
      lock.packages[`node_modules/${name}`] = entry;
    }
    for (const [at, name] of Object.entries(options.copies ?? {})) {
      const entry = lock.packages[`node_modules/${name}`];
      if (!entry) throw new Error(`consumer: no ${name} to copy to ${at}`);
      if (!at.endsWith(`/node_modules/${name}`)) throw new Error(`consumer: ${at} is not a place for ${name}`);
      lock.packages[at] = entry;
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as LockEntry & { name: string; version: string; bin: Record<string, string>; license: string; engines: Record<string, string> };
    const registry = execFileSync("npm", ["config", "get", "registry"], { cwd: dir, encoding: "utf8" }).trim().replace(/\/$/, "");
    const spec = `file:${basename(tarball)}`;
    const rootDeps: Record<string, string> = { [pkg.name]: spec };
    for (const name of [...options.deps, ...(options.workspace?.deps ?? [])]) {
      const entry = lock.packages[`node_modules/${name}`];
      if (!entry?.version) throw new Error(`consumer: ${name} is not in this repository's lockfile`);
      rootDeps[name] = entry.version;
    }
    const out: Record<string, LockEntry> = {
      "": { name: "groundwatch-consumer", version: "1.0.0", dependencies: rootDeps },
      [`node_modules/${pkg.name}`]: {
        version: pkg.version,
        resolved: spec,
        integrity: `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`,
        license: pkg.license,
        ...(pkg.dependencies ? { dependencies: pkg.dependencies } : {}),
        ...(pkg.peerDependencies ? { peerDependencies: pkg.peerDependencies } : {}),
        ...(pkg.peerDependenciesMeta ? { peerDependenciesMeta: pkg.peerDependenciesMeta } : {}),
        bin: pkg.bin,
        engines: pkg.engines,
      },
    };
    // Walk the dependency closure through this repository's lockfile layout.
    const queue: Array<[string, Record<string, string>, ReadonlySet<string>]> = [
      ["", Object.fromEntries([...options.deps, ...(options.workspace?.deps ?? [])].map((d) => [d, "*"])), new Set()],
      ["", pkg.dependencies ?? {}, new Set()],
    ];
    while (queue.length > 0) {
      const [from, deps, optional] = queue.shift()!;
      for (const name of Object.keys(deps)) {
        const at = locate(lock.packages, from, name);
        if (!at) {
          if (optional.has(name)) continue;
          throw new Error(`consumer: cannot place ${name} (needed from ${from || "the root"})`);
        }
        if (out[at]) continue;
        const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[at]!;
        const real = entry.name ?? at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length);
        out[at] = { ...entry, resolved: `${registry}/${real}/-/${real.split("/").pop()}-${entry.version}.tgz` };
        const optionalPeers = new Set(Object.entries(entry.peerDependenciesMeta ?? {}).filter(([, m]) => m.optional).map(([n]) => n));
        const peers = Object.fromEntries(Object.entries(entry.peerDependencies ?? {}).filter(([n]) => !optionalPeers.has(n)));
        queue.push([at, { ...entry.dependencies, ...peers }, new Set()]);
        if (entry.optionalDependencies) queue.push([at, entry.optionalDependencies, new Set(Object.keys(entry.optionalDependencies))]);
      }
    }
    writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "groundwatch-consumer", version: "1.0.0", private: true, type: "module", dependencies: rootDeps }, null, 2)}\n`);
    writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify({ name: "groundwatch-consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages: out }, null, 2)}\n`);
    for (const [name, text] of Object.entries(options.extra ?? {})) writeFileSync(join(dir, name), text);
    // No project .npmrc and no ONNXRUNTIME_NODE_INSTALL: a user's plain install.
    const env = { ...process.env };
    delete env.ONNXRUNTIME_NODE_INSTALL;
    delete env.npm_config_onnxruntime_node_install;
    execFileSync("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return {
      dir,
      tarball,
      run(command, args, extraEnv = {}) {
        return execFileSync(command, [...args], { cwd: dir, env: { ...env, ...extraEnv }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      },
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const e = error as Error & { stderr?: string };
    throw new Error(`${e.message}${e.stderr ? `\n${e.stderr}` : ""}`);
  }
}
