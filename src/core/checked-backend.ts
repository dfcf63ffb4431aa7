import { GroundwatchError } from "../errors/groundwatch-error.ts";
import type { CallOptions, EntailmentBackend, NliPair, NliResult, RelevancePair } from "./backend.ts";

/**
 * The backend port's replies checked once, where a backend enters scoring: one result per pair, in
 * order, each probability (and each relevance score) a finite number in [0, 1]. A reply that is not
 * is a BackendReplyError, whichever measurement asked (groundedness, semantic entropy, claim
 * consistency, context and answer relevance), so a broken backend fails every path the same way
 * and no measurement re-checks what it was given.
 */

/** A backend's reply broke the port's contract: the wrong number of results, or a probability that is not a number in [0, 1]. */
export class BackendReplyError extends GroundwatchError {
  override readonly name = "BackendReplyError";
  override readonly code = "backend_reply";
}

/** Marks a checked backend; spread with it (scopedBackend's view), so a view of a checked backend is not checked twice. */
const CHECKED: unique symbol = Symbol("groundwatch.checkedBackend");

const isProbability = (x: unknown): boolean => typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= 1;

function checkCount(name: string, reply: unknown, pairs: number, what: string): void {
  if (!Array.isArray(reply) || reply.length !== pairs) throw new BackendReplyError(`${name} backend returned ${Array.isArray(reply) ? reply.length : "no"} ${what} for ${pairs} pairs`);
}

function invalid(name: string, value: unknown): BackendReplyError {
  return new BackendReplyError(`${name} backend returned an invalid probability (${String(value)}): not a number in [0, 1]`);
}

/** Checks a classify reply: one result per pair, three probabilities in [0, 1] each. */
function checkResults(name: string, reply: unknown, pairs: number): NliResult[] {
  checkCount(name, reply, pairs, "results");
  for (const r of reply as unknown[]) {
    const x = r as Partial<NliResult> | null;
    for (const p of [x?.entailment, x?.neutral, x?.contradiction]) if (!isProbability(p)) throw invalid(name, p);
  }
  return reply as NliResult[];
}

/** Checks a relevance reply: one score in [0, 1] per pair. */
function checkScores(name: string, reply: unknown, pairs: number): number[] {
  checkCount(name, reply, pairs, "scores");
  for (const s of reply as unknown[]) if (!isProbability(s)) throw invalid(name, s);
  return reply as number[];
}

/**
 * `backend` with every reply checked (see the file's comment); the backend itself when it is
 * checked already. The view does not own anything new: closing it closes the backend.
 */
export function checkedBackend(backend: EntailmentBackend): EntailmentBackend {
  if ((backend as { [CHECKED]?: true })[CHECKED]) return backend;
  const name = backend.name;
  const relevance = backend.relevance?.bind(backend);
  return {
    ...backend,
    [CHECKED]: true,
    classify: async (pairs: readonly NliPair[], options?: CallOptions) => checkResults(name, await backend.classify(pairs, options), pairs.length),
    ...(relevance ? { relevance: async (pairs: readonly RelevancePair[], options?: CallOptions) => checkScores(name, await relevance(pairs, options), pairs.length) } : {}),
    close: () => backend.close(),
  } as EntailmentBackend;
}

/** Why a backend call failed, for a measurement's reason: a broken reply says what was wrong; any other failure is the backend's own. */
export function backendFailure(name: string, error: unknown): string {
  if (error instanceof BackendReplyError) return error.message;
  return `${name} backend failed: ${error instanceof Error ? error.message : String(error)}`;
}
