import type { Attributes } from "@opentelemetry/api";
import type { Observation } from "../scoring/scorer.ts";
import type { ObserveInput } from "./types.ts";
import { copyDocuments, copySamples } from "./copy.ts";
import { observationBytes } from "../core/observation-bytes.ts";
import { isPlainObject } from "../core/plain-object.ts";

/**
 * The host's input to observe(), read inside the monitor's guard: first the route and the sampling
 * override only (readRouting), then, for a sampled observation, everything else, copied (copyInput).
 */

/** The host's input, copied field by field into plain data, or which field could not be read. */
export type Copied =
  | { readonly ok: true; readonly route: string | undefined; readonly sample: ObserveInput["sample"]; readonly observation: Observation; readonly attributes: Attributes | undefined; readonly bytes: number }
  | { readonly ok: false; readonly route: string | undefined; readonly field: string; readonly why: string };

/** Most span attributes copied from one observe() call; longer string values are cut. */
const MAX_ATTRIBUTES = 64;
const MAX_ATTRIBUTE_CHARS = 4096;

function isPrimitive(v: unknown): v is string | number | boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

/** Copies span attributes: primitive values and arrays of them only, a bounded number, read once. */
function copyAttributes(raw: unknown): Attributes | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object") throw new TypeError("not an object");
  const out: Attributes = {};
  let n = 0;
  for (const key of Object.keys(raw)) {
    if (n >= MAX_ATTRIBUTES) break;
    const v = (raw as Record<string, unknown>)[key];
    if (isPrimitive(v)) out[key] = typeof v === "string" ? v.slice(0, MAX_ATTRIBUTE_CHARS) : v;
    else if (Array.isArray(v)) out[key] = Array.from(v).filter(isPrimitive).slice(0, MAX_ATTRIBUTES) as string[] | number[] | boolean[];
    else continue;
    n++;
  }
  return out;
}

/** Reads one field of the host's object; a getter or Proxy trap that throws gives the error instead. */
function readField(input: object, field: string): { value: unknown } | { error: string } {
  try {
    return { value: (input as Record<string, unknown>)[field] };
  } catch (error) {
    return { error: `reading it threw: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** What observe() needs before the sampling decision: the route and the per-call override, nothing else. */
export type RoutingFields = { readonly ok: true; readonly route: string | undefined; readonly sample: ObserveInput["sample"] } | { readonly ok: false; readonly route: string | undefined; readonly field: string; readonly why: string };

/**
 * Reads the route and the `sample` override only, so an unsampled observation costs no copy of its
 * text. The route is read from `options` when it is an object (observe()'s second argument), else from `input`.
 */
export function readRouting(input: unknown, options?: unknown): RoutingFields {
  if (!input || typeof input !== "object") return { ok: false, route: undefined, field: "input", why: "observe() was called without an observation object" };
  const r = options && typeof options === "object" ? readField(options, "route") : readField(input, "route");
  const route = "value" in r && typeof r.value === "string" ? r.value : undefined;
  if ("error" in r) return { ok: false, route, field: "route", why: r.error };
  const sample = readField(input, "sample");
  if ("error" in sample) return { ok: false, route, field: "sample", why: sample.error };
  return { ok: true, route, sample: sample.value === "always" || sample.value === "never" ? sample.value : undefined };
}

/**
 * Reads the host's input once, field by field, into plain data: a getter that throws, a Proxy,
 * or a value of the wrong type names the field instead of escaping into the host. Nothing of the
 * host's objects is kept, so later changes to them cannot affect scoring. `bytes` is everything
 * the copy holds (see observationBytes), as the queue's byte budget counts it.
 */
export function copyInput(input: object, routing: Extract<RoutingFields, { ok: true }>): Copied {
  const get = (field: string): { value: unknown } | { error: string } => readField(input, field);
  const route = routing.route;
  const fail = (field: string, why: string): Copied => ({ ok: false, route, field, why });
  const fields: Record<string, unknown> = {};
  for (const field of ["answer", "context", "question", "samples", "attributes"]) {
    const v = get(field);
    if ("error" in v) return fail(field, v.error);
    fields[field] = v.value;
  }
  /** Runs a copy; an element getter or Proxy trap that throws names the field. */
  const copy = <T>(field: string, fn: () => T): T | { error: string } => {
    try {
      return fn();
    } catch (error) {
      return { error: `reading it threw: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
  const threw = (v: unknown): v is { error: string } => isPlainObject(v) && "error" in v && Object.keys(v).length === 1;
  if (typeof fields.answer !== "string") return fail("answer", "not a string");
  const answer = fields.answer;
  const context = copy("context", () => (typeof fields.context === "string" ? fields.context : copyDocuments(fields.context)));
  if (threw(context)) return fail("context", context.error);
  if (context === undefined) return fail("context", "not a string or an array of strings or { text, id?, title?, url? } documents");
  if (!Array.isArray(context) && typeof context !== "string") return fail(`context${context.at}`, context.why);
  if (fields.question !== undefined && typeof fields.question !== "string") return fail("question", "not a string");
  const question = fields.question as string | undefined;
  const samples = fields.samples === undefined ? undefined : copy("samples", () => copySamples(fields.samples) ?? null);
  if (threw(samples)) return fail("samples", samples.error);
  if (samples === null) return fail("samples", "not an array of strings or { text } objects");
  let attributes: Attributes | undefined;
  try {
    attributes = copyAttributes(fields.attributes);
  } catch (error) {
    return fail("attributes", error instanceof TypeError && error.message === "not an object" ? "not an object" : `reading it threw: ${(error as Error).message}`);
  }
  const bytes = observationBytes({ answer, context, question, samples, attributes });
  return {
    ok: true,
    route,
    sample: routing.sample,
    observation: { answer, context, ...(question !== undefined ? { question } : {}), ...(samples ? { samples } : {}) },
    attributes,
    bytes,
  };
}
