import type { EntailmentBackend } from "../../core/backend.ts";

/** A line on backend resource use (judge calls and tokens), or undefined when there is none. */
export function describeUsage(backend: EntailmentBackend): string | undefined {
  const withUsage = backend as EntailmentBackend & { usage?: () => { calls: number; promptTokens: number; completionTokens: number } };
  if (typeof withUsage.usage !== "function") return undefined;
  const u = withUsage.usage();
  return `judge usage: ${u.calls} calls, ${u.promptTokens} prompt tokens, ${u.completionTokens} completion tokens`;
}
