import { createRequire } from "node:module";
import { ConfigError } from "../../config/errors.ts";
import { importOnnxRuntime } from "./import-runtime.ts";

/** The npm package the onnx backend runs on: an optional peer dependency. */
export const ONNX_RUNTIME_PACKAGE = "onnxruntime-node";

/** Adds the runtime. */
export const ONNX_RUNTIME_INSTALL = "npm install onnxruntime-node";

/**
 * Adds the runtime without its postinstall download of CUDA provider files (which come from
 * outside the npm registry); the CPU runtime ships inside the package. The variable is the
 * one onnxruntime-node's script/install.js reads.
 */
export const ONNX_RUNTIME_INSTALL_CPU = "ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node";

/** How to install the runtime, for messages and fixes. */
export const ONNX_RUNTIME_INSTALL_HINT = `install it with \`${ONNX_RUNTIME_INSTALL}\`, or on CPU-only machines and where only the npm registry is reachable, \`${ONNX_RUNTIME_INSTALL_CPU}\``;

import type { OnnxRuntime } from "./runtime-types.ts";

export type { OnnxRuntime, OnnxSession, OnnxSessionOptions, OnnxTensor } from "./runtime-types.ts";

/** Imports the runtime module; injected in tests. */
export type OnnxImporter = () => Promise<unknown>;

/**
 * The onnx backend was asked for and onnxruntime-node is not installed. A ConfigError, so
 * commands exit 2 with the message; `field` and `value` name the setting that asked for it.
 */
export class OnnxRuntimeMissingError extends ConfigError {
  override readonly code = "onnx_runtime_missing";
  constructor(field = "backend", value: unknown = "onnx") {
    super(field, value, `the onnx backend needs ${ONNX_RUNTIME_PACKAGE}, an optional peer dependency that is not installed: ${ONNX_RUNTIME_INSTALL_HINT}`);
  }
}

/**
 * Whether onnxruntime-node can be found from here, without loading it (resolution only, so
 * it is cheap and synchronous): for callers that must fail at construction, like createMonitor.
 */
export function onnxRuntimeResolvable(resolve: (id: string) => string = createRequire(import.meta.url).resolve): boolean {
  try {
    resolve(ONNX_RUNTIME_PACKAGE);
    return true;
  } catch {
    return false;
  }
}

export function isOnnxRuntimeMissing(error: unknown): error is OnnxRuntimeMissingError {
  return error instanceof OnnxRuntimeMissingError;
}

/**
 * Whether an import failed because onnxruntime-node itself cannot be found, as opposed to
 * something it needs (a dependency, a file of a broken install, the native binary).
 */
export function isMissingPackageError(error: unknown, name: string = ONNX_RUNTIME_PACKAGE): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  // ESM: Cannot find package 'onnxruntime-node' imported from …; CommonJS: Cannot find module 'onnxruntime-node'.
  return typeof message === "string" && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}

function hasRuntimeShape(v: unknown): v is OnnxRuntime {
  if (typeof v !== "object" || v === null) return false;
  const m = v as { InferenceSession?: { create?: unknown }; Tensor?: unknown };
  return typeof m.InferenceSession?.create === "function" && typeof m.Tensor === "function";
}

/**
 * Loads onnxruntime-node, lazily: only creating an onnx backend or engine calls this, on
 * whichever thread will run it. A missing package is an OnnxRuntimeMissingError naming the
 * install commands; any other failure keeps its own message, prefixed with what was loading.
 */
export async function loadOnnxRuntime(importer: OnnxImporter = importOnnxRuntime): Promise<OnnxRuntime> {
  let mod: unknown;
  try {
    mod = await importer();
  } catch (error) {
    if (isMissingPackageError(error)) throw new OnnxRuntimeMissingError();
    throw new Error(`onnx backend: cannot load ${ONNX_RUNTIME_PACKAGE}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // A CommonJS package seen through import(): the exports may sit on `default` only.
  const candidate = hasRuntimeShape(mod) ? mod : (mod as { default?: unknown } | null)?.default;
  if (!hasRuntimeShape(candidate)) throw new Error(`onnx backend: cannot load ${ONNX_RUNTIME_PACKAGE}: the module has no InferenceSession.create or Tensor (an incompatible version?)`);
  return candidate;
}

/** The installed runtime's version, when it reports one. */
export function onnxRuntimeVersion(runtime: OnnxRuntime): string | undefined {
  return runtime.env?.versions?.node;
}
