export { BACKEND_NAMES, createBackend } from "./registry.ts";
export { createOfflineBackend, loadOfflineModel } from "./offline/backend.ts";
export type { OfflineBackendOptions } from "./offline/backend.ts";
export { loadLexicon } from "./offline/lexicon.ts";
export type { Lexicon } from "./offline/lexicon.ts";
