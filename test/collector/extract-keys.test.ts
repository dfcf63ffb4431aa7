/**
 * The collector's inbound names live in one place: conventions/keys.ts. The extractors name every
 * attribute, event and log-event key they read through its constants, never as a string literal.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as keys from "../../src/collector/conventions/keys.ts";
import { labelOrUndefined } from "../../src/telemetry/labels.ts";

const root = join(import.meta.dirname, "../../src/collector");
const readers = [
  "extract.ts",
  "trace-parts.ts",
  "joiner.ts",
  ...readdirSync(join(root, "conventions"))
    .filter((f) => f.endsWith(".ts") && f !== "keys.ts")
    .map((f) => join("conventions", f)),
];

/** Source without its comments (doc comments name the keys they describe). */
function code(file: string): string {
  return readFileSync(join(root, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}

/** Quoted dotted names: "gen_ai.input.messages", 'http.route', `db.query.result` — not "./x.ts" imports. */
const DOTTED_KEY = /["'`][a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+["'`]/g;

describe("collector inbound attribute names", () => {
  it.each(readers)("%s names no attribute key as a string literal", (file) => {
    expect(code(file).match(DOTTED_KEY) ?? []).toEqual([]);
  });

  it("the check finds a literal key where there is one", () => {
    expect(`const q = a["gen_ai.retrieval.query.text"];`.match(DOTTED_KEY)).toEqual(['"gen_ai.retrieval.query.text"']);
    expect(`import { x } from "./conventions/keys.ts";`.match(DOTTED_KEY)).toBeNull();
  });

  it("keys.ts declares each name once", () => {
    const names = (Object.values(keys) as unknown[]).filter((v): v is string => typeof v === "string");
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("labelOrUndefined", () => {
  it("labels a route or service name as sanitizeLabel does, and is undefined for anything else or nothing left", () => {
    expect(labelOrUndefined("/api/chat")).toBe("/api/chat");
    expect(labelOrUndefined("\u001b[31m/red\u001b[0m")).toBe("/red");
    expect(labelOrUndefined("  ")).toBeUndefined();
    expect(labelOrUndefined("\u001b]8;;http://x\u0007")).toBeUndefined();
    expect(labelOrUndefined(42)).toBeUndefined();
    expect(labelOrUndefined(undefined)).toBeUndefined();
  });
});
