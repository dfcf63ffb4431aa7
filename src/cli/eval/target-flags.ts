import { UsageError, numberFlag } from "../shared/command.ts";
import type { TargetOptions } from "./target.ts";
import { DEFAULT_MAX_REPLY_BYTES, parseReplyPath, pathHasWildcard, renderRequest } from "./target.ts";

/** The --target flags of eval, as parsed (each undefined when not given). */
export interface TargetFlags {
  /** POST endpoint of the RAG service. */
  readonly target?: string | undefined;
  /** Request body template, {{question}} where the question goes. */
  readonly request?: string | undefined;
  /** Where the answer is in the reply. */
  readonly "answer-path"?: string | undefined;
  /** An array of resamples in the reply. */
  readonly "samples-path"?: string | undefined;
  /** Where the retrieved documents are in the reply. */
  readonly "context-path"?: string | undefined;
  /** Per-request timeout in milliseconds. */
  readonly "timeout-ms"?: string | undefined;
  /** Retries after a failed request. */
  readonly retries?: string | undefined;
  /** Largest reply read, in bytes. */
  readonly "max-reply-bytes"?: string | undefined;
}

/** A reply path flag, checked before anything is asked. */
function replyPath(flag: string, value: string, wildcard: boolean): string {
  const steps = parseReplyPath(value);
  if (typeof steps === "string") throw new UsageError(`--${flag} ${JSON.stringify(value)} is not a path: ${steps}`);
  if (!wildcard && pathHasWildcard(value)) throw new UsageError(`--${flag} must name one string; [*] is for --context-path and --samples-path`);
  return value;
}

/** The RAG endpoint to ask, from the --target flags, checked before anything is asked; undefined without --target. */
export function targetFromFlags(args: TargetFlags): TargetOptions | undefined {
  if (args["context-path"] !== undefined && !args.target) throw new UsageError("--context-path takes the documents from the service's reply: it needs --target");
  if (!args.target) return undefined;
  if (!/^https?:\/\//.test(args.target)) throw new UsageError(`--target must be an http(s) URL (got ${JSON.stringify(args.target)})`);
  const requestTemplate = args.request ?? '{"question":"{{question}}"}';
  try {
    renderRequest(requestTemplate, "probe");
  } catch {
    throw new UsageError(`--request is not a JSON template: ${requestTemplate}`);
  }
  return {
    url: args.target,
    requestTemplate,
    answerPath: replyPath("answer-path", args["answer-path"] ?? "answer", false),
    ...(args["samples-path"] ? { samplesPath: replyPath("samples-path", args["samples-path"], true) } : {}),
    ...(args["context-path"] !== undefined ? { contextPath: replyPath("context-path", args["context-path"], true) } : {}),
    timeoutMs: numberFlag("timeout-ms", args["timeout-ms"], (n) => n > 0, "a positive number") ?? 30_000,
    attempts: (numberFlag("retries", args.retries, (n) => Number.isInteger(n) && n >= 0, "a whole number") ?? 2) + 1,
    maxReplyBytes: numberFlag("max-reply-bytes", args["max-reply-bytes"], (n) => Number.isSafeInteger(n) && n >= 1, "a positive whole number of bytes") ?? DEFAULT_MAX_REPLY_BYTES,
  };
}
