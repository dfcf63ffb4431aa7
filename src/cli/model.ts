import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isConfigError } from "../config/errors.ts";
import { DEFAULT_MODEL_REPO, hubCacheDir, listCachedModels } from "../nli/hub/cache.ts";
import { pullModel } from "../nli/hub/pull.ts";
import type { OnnxModelDescription } from "../nli/onnx/engine.ts";
import { createOnnxEngine, describeOnnxModel } from "../nli/onnx/engine.ts";
import type { OnnxVariant } from "../nli/onnx/model-dir.ts";
import type { OnnxImporter, OnnxRuntime } from "../nli/onnx/runtime.ts";
import { ONNX_RUNTIME_INSTALL, ONNX_RUNTIME_INSTALL_CPU, ONNX_RUNTIME_PACKAGE, isOnnxRuntimeMissing, loadOnnxRuntime } from "../nli/onnx/runtime.ts";
import { resolveModelDir } from "../nli/registry.ts";
import { UsageError } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import { outputDir } from "./files.ts";
import type { CommandIo } from "./io.ts";
import { sanitizeForTerminal } from "./io.ts";

export const MODEL_HELP = `groundwatch model — get and inspect NLI models for the onnx backend

Usage:
  groundwatch model pull [REPO] [--variant quantized|fp32] [--dir DIR] [--revision REV]
  groundwatch model list
  groundwatch model info DIR|REPO [--variant quantized|fp32]

pull   downloads REPO (default ${DEFAULT_MODEL_REPO}) from the Hugging Face Hub into the
       cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub), or into --dir.
       Honours HF_ENDPOINT, HF_HUB_OFFLINE and HF_TOKEN. An interrupted pull resumes.
list   shows the cached models and their sizes.
info   loads a model and shows its label mapping, inputs, maximum length and files. Without
       ${ONNX_RUNTIME_PACKAGE} installed it shows what the files say; the inputs need the runtime.

Exit codes: 0 ok, 1 download or load failure, 2 bad flags, repo id, revision or --dir.
`;

/** An error's message for the terminal: the values it quotes may come from the hub or a model file. */
function message(error: unknown): string {
  return sanitizeForTerminal((error as Error).message);
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export interface ModelCommandDeps {
  /** Imports onnxruntime-node for `model info` (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
}

/** The runtime, or undefined when it is not installed (any other load failure is thrown). */
async function optionalRuntime(importer: OnnxImporter | undefined): Promise<OnnxRuntime | undefined> {
  try {
    return await loadOnnxRuntime(importer);
  } catch (error) {
    if (isOnnxRuntimeMissing(error)) return undefined;
    throw error;
  }
}

/** Runs `groundwatch model`; resolves to the exit code. pull and list never load onnxruntime-node. */
export async function runModel(argv: readonly string[], io: CommandIo, deps: ModelCommandDeps = {}): Promise<number> {
  const [sub, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { variant: { type: "string" }, dir: { type: "string" }, revision: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.stderr.write(`groundwatch model: ${(error as Error).message}\n\n${MODEL_HELP}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help || sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    io.stdout.write(MODEL_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (values.variant !== undefined && values.variant !== "quantized" && values.variant !== "fp32") {
    io.stderr.write(`groundwatch model: --variant must be quantized or fp32 (got ${JSON.stringify(values.variant)})\n`);
    return EXIT.usage;
  }
  const variant = values.variant as OnnxVariant | undefined;
  switch (sub) {
    case "pull": {
      const repo = positionals[0] ?? DEFAULT_MODEL_REPO;
      let lastDraw = 0;
      try {
        // An absolute --dir stays absolute; a relative one is relative to the command's directory.
        const dir = values.dir ? outputDir("--dir", values.dir, io) : undefined;
        const result = await pullModel({
          repo,
          env: io.env,
          ...(variant ? { variant } : {}),
          ...(dir ? { dir } : {}),
          ...(values.revision ? { revision: values.revision } : {}),
          onProgress: ({ file, received, total }) => {
            if (!io.stderr.isTTY || Date.now() - lastDraw < 100) return;
            lastDraw = Date.now();
            const pct = total ? Math.min(100, (100 * received) / total) : undefined;
            const bar = pct === undefined ? "" : `[${"#".repeat(Math.round(pct / 5)).padEnd(20)}] ${pct.toFixed(0)}% `;
            io.stderr.write(`\r  ${file} ${bar}${mb(received)}${total ? ` of ${mb(total)}` : ""}   `);
          },
        });
        if (io.stderr.isTTY) io.stderr.write("\n");
        for (const f of result.files) io.stdout.write(`${f.status.padEnd(10)} ${f.path} (${mb(f.bytes)})${f.sha256 ? ` sha256 ${f.sha256.slice(0, 12)}…` : ""}\n`);
        io.stdout.write(`model ${repo}@${result.revision} is in ${result.dir}\nuse it with: --backend onnx --model ${values.dir ? result.dir : repo}\n`);
        return EXIT.ok;
      } catch (error) {
        io.stderr.write(`${io.stderr.isTTY ? "\n" : ""}groundwatch model pull: ${message(error)}\n`);
        return isConfigError(error) || error instanceof UsageError ? EXIT.usage : EXIT.failure;
      }
    }
    case "list": {
      const cache = hubCacheDir(io.env);
      const models = listCachedModels(cache);
      if (models.length === 0) {
        io.stdout.write(`no models cached in ${cache}; run \`groundwatch model pull\`\n`);
        return EXIT.ok;
      }
      for (const m of models) {
        io.stdout.write(`${m.repo}@${sanitizeForTerminal(m.revision)}  ${mb(m.bytes)}  ${m.dir}\n    ${sanitizeForTerminal(m.files.join(", "))}\n`);
        for (const s of m.skipped) io.stderr.write(`groundwatch model list: skipped ${sanitizeForTerminal(join(m.dir, s.path))}: ${s.reason}\n`);
      }
      return EXIT.ok;
    }
    case "info": {
      const target = positionals[0];
      if (!target) {
        io.stderr.write("groundwatch model info: name a model directory or a cached repo\n");
        return EXIT.usage;
      }
      try {
        // A directory is found relative to the command's directory, not the process's.
        const local = resolve(io.cwd, target);
        const dir = resolveModelDir(existsSync(local) ? local : target, io.env);
        const options = { dir, ...(variant ? { variant } : {}) };
        const runtime = await optionalRuntime(deps.importOnnxRuntime);
        let info: OnnxModelDescription & { readonly inputs?: readonly string[] };
        if (runtime) {
          const engine = await createOnnxEngine(options, { runtime });
          info = engine.info;
          await engine.close();
        } else {
          info = describeOnnxModel(options);
        }
        const mapping = info.labels.kind === "three" ? `entailment=${info.labels.entailment}, neutral=${info.labels.neutral}, contradiction=${info.labels.contradiction}` : `entailment=${info.labels.entailment}, not_entailment=${info.labels.notEntailment} (two-label: contradiction is reported as 0)`;
        io.stdout.write(
          [
            `model:       ${dir}`,
            `graph:       ${info.graph} (${mb(statSync(join(dir, info.graph)).size)}, sha256 ${info.graphSha256}…)`,
            `labels:      ${info.labels.labels.map((l, i) => `${i}:${l}`).join(" ")}`,
            `mapping:     ${mapping}`,
            `inputs:      ${info.inputs ? info.inputs.join(", ") : `unknown: reading them needs ${ONNX_RUNTIME_PACKAGE}, which is not installed`}`,
            `max length:  ${info.maxLength} tokens`,
            "",
          ].join("\n"),
        );
        if (!info.inputs) io.stderr.write(`groundwatch model info: ${ONNX_RUNTIME_PACKAGE} is not installed; the onnx backend needs it. Install it with \`${ONNX_RUNTIME_INSTALL}\` (on CPU-only machines, or where only the npm registry is reachable: \`${ONNX_RUNTIME_INSTALL_CPU}\`).\n`);
        return EXIT.ok;
      } catch (error) {
        io.stderr.write(`groundwatch model info: ${message(error)}\n`);
        return isConfigError(error) ? EXIT.usage : EXIT.failure;
      }
    }
    default:
      io.stderr.write(`groundwatch model: unknown subcommand ${JSON.stringify(sub)}\n\n${MODEL_HELP}`);
      return EXIT.usage;
  }
}
