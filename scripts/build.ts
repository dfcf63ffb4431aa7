// Builds dist/: ES modules with declarations (tsc), CommonJS twins (esbuild, per file, not
// bundled), and the runtime data files that live beside the sources.
//
//   dist/x/y.js    + y.js.map   ESM, from tsc (relative imports rewritten .ts → .js)
//   dist/x/y.d.ts               its declarations
//   dist/x/y.cjs   + y.cjs.map  CommonJS, from esbuild; require("./z.cjs")
//   dist/x/y.d.cts              the declarations again, pointing at the .cjs twins
//
// Both formats sit in the same folders, so a path computed from the module's own URL
// (data files, worker scripts) is the same in either. Worker threads always run the ESM
// worker.js, which is fine: a worker is its own module graph.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { transform } from "esbuild";
import { distIsStale } from "./build-freshness.ts";

const ROOT = join(import.meta.dirname, "..");
const SRC = join(ROOT, "src");
// Built aside and moved into place at the end, so nothing ever sees a half-built dist/.
const FINAL = join(ROOT, "dist");
const DIST = join(ROOT, `dist.partial-${process.pid}`);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Rewrites relative module specifiers ending in `from` to end in `to` (quotes kept). */
function rewriteRelative(code: string, from: string, to: string): string {
  const ext = from.replace(".", "\\.");
  return code.replace(new RegExp(`((?:from|import|require)\\s*\\(?\\s*)(["'])(\\.{1,2}/[^"']+?)${ext}\\2`, "g"), (_m, lead: string, q: string, path: string) => `${lead}${q}${path}${to}${q}`);
}

// --if-stale (npm start): keep a dist/ that is newer than every input, by test/global-setup.ts's rule.
if (process.argv.includes("--if-stale") && !distIsStale(ROOT)) process.exit(0);

rmSync(DIST, { recursive: true, force: true });

const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.build.json"), "--outDir", DIST], { stdio: "inherit" });
if (tsc.status !== 0) {
  rmSync(DIST, { recursive: true, force: true });
  process.exit(tsc.status ?? 1);
}

const sources = walk(SRC);
let cjs = 0;
for (const file of sources) {
  const rel = relative(SRC, file);
  const out = join(DIST, rel);
  if (file.endsWith(".ts")) {
    const base = out.slice(0, -".ts".length);
    // tsc keeps `.ts` specifiers in declaration files; consumers need them to name the emitted files.
    const dts = rewriteRelative(readFileSync(`${base}.d.ts`, "utf8"), ".ts", ".js");
    writeFileSync(`${base}.d.ts`, dts);
    writeFileSync(`${base}.d.cts`, rewriteRelative(dts, ".js", ".cjs"));
    const result = await transform(readFileSync(file, "utf8"), {
      loader: "ts",
      format: "cjs",
      platform: "node",
      target: "node20",
      sourcefile: relative(dirname(out), file),
      sourcemap: "external",
      sourcesContent: true,
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
      define: { "import.meta.url": "__groundwatchModuleUrl" },
      banner: 'var __groundwatchModuleUrl = require("node:url").pathToFileURL(__filename).href;',
    });
    const name = `${rel.split("/").pop()!.slice(0, -".ts".length)}.cjs`;
    writeFileSync(`${base}.cjs`, `${rewriteRelative(result.code, ".ts", ".cjs")}//# sourceMappingURL=${name}.map\n`);
    writeFileSync(`${base}.cjs.map`, result.map);
    cjs++;
  } else if (!file.endsWith("worker-entry.js")) {
    // Runtime data beside the sources (the offline backend's weights).
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(file, out);
  }
}

// A stray `.ts` specifier left in any output would break plain Node; fail the build instead.
const stray = walk(DIST).filter((f) => /\.(c?js|d\.c?ts)$/.test(f) && /(?:from|require\(|import\()\s*["']\.{1,2}\/[^"']+\.ts["']/.test(readFileSync(f, "utf8")));
if (stray.length > 0) {
  console.error(`build: .ts import specifiers left in:\n  ${stray.map((f) => relative(DIST, f)).join("\n  ")}`);
  rmSync(DIST, { recursive: true, force: true });
  process.exit(1);
}
// Written last: test/global-setup.ts compares its time with the sources' to skip fresh builds.
writeFileSync(join(DIST, ".built"), `${new Date().toISOString()}\n`);
rmSync(FINAL, { recursive: true, force: true });
renameSync(DIST, FINAL);
console.log(`build: dist/ — ${cjs} modules as ESM (.js) and CommonJS (.cjs), with declarations and source maps`);
