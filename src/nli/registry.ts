import { ConfigError } from "../config/errors.ts";
import type { TextAnalyzer } from "../core/text.ts";
import type { EntailmentBackend } from "./backend.ts";
import { createOfflineBackend } from "./offline/backend.ts";

/** Backend names this build can create. */
export const BACKEND_NAMES = ["offline"] as const;

/** Creates a backend by name; an unknown name is a ConfigError listing the known ones. */
export function createBackend(name: string, deps: { analyzer: TextAnalyzer }): EntailmentBackend {
  switch (name) {
    case "offline":
      return createOfflineBackend({ analyzer: deps.analyzer });
    default:
      throw new ConfigError("backend", name, `unknown backend; available: ${BACKEND_NAMES.join(", ")}`);
  }
}
