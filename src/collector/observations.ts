import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ObserveInput } from "../sdk/types.ts";

/** The published schema of /v1/observations (docs/observation.schema.json). */
export const OBSERVATION_SCHEMA_PATH = fileURLToPath(new URL("../../docs/observation.schema.json", import.meta.url));

export interface ObservationLimits {
  /** Most documents in one observation's context. */
  readonly maxDocuments: number;
  /** Longest answer, in characters. */
  readonly maxAnswerChars: number;
  /** Most observations in one request. */
  readonly maxBatch: number;
}

export type ParsedObservations = { readonly ok: true; readonly observations: Array<Omit<ObserveInput, "route"> & { route?: string }> } | { readonly ok: false; readonly errors: string[] };

/** Validates a /v1/observations body against the published JSON Schema and the size limits; errors name the field. */
export function createObservationParser(limits: ObservationLimits): (body: unknown) => ParsedObservations {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(OBSERVATION_SCHEMA_PATH, "utf8")) as object);
  return (body: unknown): ParsedObservations => {
    const items = Array.isArray(body) ? body : [body];
    if (items.length === 0) return { ok: false, errors: ["the body is an empty array"] };
    if (items.length > limits.maxBatch) return { ok: false, errors: [`a batch may hold at most ${limits.maxBatch} observations (got ${items.length})`] };
    const errors: string[] = [];
    items.forEach((item, i) => {
      const where = Array.isArray(body) ? `[${i}]` : "";
      if (!validate(item)) {
        for (const e of (validate.errors ?? []).slice(0, 5)) {
          const field = `${where}${e.instancePath.replace(/\//g, ".") || "(root)"}`;
          const detail = e.keyword === "additionalProperties" ? `unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"` : e.keyword === "required" ? `missing "${(e.params as { missingProperty: string }).missingProperty}"` : (e.message ?? "invalid");
          errors.push(`${field}: ${detail}`);
        }
        return;
      }
      const o = item as { context: string | string[]; answer: string };
      if (Array.isArray(o.context) && o.context.length > limits.maxDocuments) errors.push(`${where}.context: at most ${limits.maxDocuments} documents (got ${o.context.length})`);
      if (o.answer.length > limits.maxAnswerChars) errors.push(`${where}.answer: at most ${limits.maxAnswerChars} characters (got ${o.answer.length})`);
    });
    return errors.length > 0 ? { ok: false, errors } : { ok: true, observations: items as Array<Omit<ObserveInput, "route"> & { route?: string }> };
  };
}
