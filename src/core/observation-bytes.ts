import type { ContextInput } from "./context.ts";
import { contextBytes } from "./context.ts";
import type { Sample } from "./entropy/semantic-entropy.ts";

/** Characters of text in samples (≈ bytes, as queueBytes counts). */
export function sampleChars(samples: readonly Sample[]): number {
  let n = 0;
  for (const s of samples) n += typeof s === "string" ? s.length : s.text.length;
  return n;
}

/** Bytes counted per number or boolean (a float64), and per value besides its text. */
const VALUE_BYTES = 8;

/** Span attributes as an observation carries them: primitive values and arrays of them (OpenTelemetry's Attributes, structurally). */
export type ObservationAttributes = Readonly<Record<string, string | number | boolean | ReadonlyArray<string | number | boolean | null | undefined> | undefined>>;

/** What an observation holds, for counting its bytes. */
export interface CountedObservation {
  readonly answer: string;
  readonly context: ContextInput;
  readonly question?: string | undefined;
  readonly samples?: readonly Sample[] | undefined;
  readonly attributes?: ObservationAttributes | undefined;
}

/**
 * Everything an observation holds, in characters of text (≈ bytes) plus 8 per number: the answer,
 * the question, each document's text and its id, title and url, the samples with their logprobs,
 * and the span attributes (keys and values). The one count of an observation's size: what the SDK's
 * queue charges against queueBytes, and what the collector's admission and its trace joiner's
 * hand-off ask the queue about, so no part of an observation is held uncounted and an observation
 * handed on is charged what was asked.
 */
export function observationBytes(o: CountedObservation): number {
  let n = o.answer.length + contextBytes(o.context) + (o.question?.length ?? 0) + sampleChars(o.samples ?? []);
  for (const s of o.samples ?? []) if (typeof s !== "string" && s.logprobs !== undefined) n += (typeof s.logprobs === "number" ? 1 : s.logprobs.length) * VALUE_BYTES;
  for (const [key, value] of Object.entries(o.attributes ?? {})) {
    n += key.length;
    for (const v of Array.isArray(value) ? value : [value]) n += typeof v === "string" ? v.length : VALUE_BYTES;
  }
  return n;
}
