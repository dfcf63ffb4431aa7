/**
 * The architecture of src/: its parts import one way, and no module reaches itself through its imports.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "..", "src");

/** Every .ts file under `dir`, as an absolute path. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/**
 * The files a source file imports by a relative path: static imports, `import type`, re-exports
 * (`export … from`) and dynamic `import()`, all of them. A type-only import counts: it is erased at
 * run time, but the two modules still cannot be understood, moved or changed one without the other.
 */
function relativeImports(file: string): string[] {
  const found: string[] = [];
  for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
    const target = resolve(dirname(file), m[1] ?? "");
    found.push(existsSync(target) ? target : target.replace(/\.js$/, ".ts"));
  }
  return found;
}

/** The src/ part ("nli", "core", …) a path lies in. */
const partOf = (path: string): string => relative(SRC, path).split("/")[0] ?? "";

/** Every relative import in the .ts files under `part`, as the src/ part it reaches. */
function importsOf(part: string): Array<{ file: string; reaches: string }> {
  return sourceFiles(join(SRC, part)).flatMap((file) => relativeImports(file).map((target) => ({ file: relative(SRC, file), reaches: partOf(target) })));
}

/** The one error base (`errors/`): it imports nothing and sits below every part, core and the leaves included, so every part may import it. */
const BENEATH_EVERY_PART = ["errors"];

/**
 * The parts, bottom up, each with the parts it may import. `workers` (the generic worker pool and
 * batcher) sits just above `core`, whose pure helpers it may use; a part that does not exist yet has
 * no files and passes.
 */
const LAYERS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["errors", ["errors"]],
  ["core", ["core"]],
  ["workers", ["workers", "core"]],
  ["config", ["config", "core"]],
  ["net", ["net"]],
  ["nli", ["nli", "core", "config", "net", "workers"]],
  ["scoring", ["scoring", "nli", "core", "config", "net", "workers"]],
  ["evaluation", ["evaluation", "scoring", "nli", "core", "config", "net", "workers"]],
  ["telemetry", ["telemetry", "evaluation", "scoring", "nli", "core", "config", "net", "workers"]],
  ["review", ["review", "telemetry", "evaluation", "scoring", "nli", "core", "config", "net", "workers"]],
  ["sdk", ["sdk", "review", "telemetry", "evaluation", "scoring", "nli", "core", "config", "net", "workers"]],
  ["collector", ["collector", "sdk", "review", "telemetry", "evaluation", "scoring", "nli", "core", "config", "net", "workers"]],
  ["cli", ["cli", "collector", "sdk", "review", "telemetry", "evaluation", "scoring", "nli", "core", "config", "net", "workers"]],
];

describe("the parts depend one way: core ← config ← nli ← scoring ← evaluation ← telemetry ← review ← sdk ← collector ← cli (net and workers: for nli and above)", () => {
  it("has a rule for every folder of src/", () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => !LAYERS.some(([part]) => part === f))).toEqual([]);
  });

  it.each(LAYERS)("%s imports only from %j", (part, allowed) => {
    const outside = importsOf(part).filter((i) => !allowed.includes(i.reaches) && !BENEATH_EVERY_PART.includes(i.reaches));
    expect(outside).toEqual([]);
  });
});

/**
 * The import cycles of a graph (file → the files it imports), each as the chain of files from one back
 * to itself, found by a depth-first search: every edge back to a file still on the stack closes one.
 */
function importCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe("no import cycles", () => {
  it("finds the cycles of a graph, and none where imports only go down", () => {
    const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["d"]], ["e", ["a", "c"]]]);
    expect(importCycles(graph)).toEqual([["a", "b", "c", "a"], ["d", "d"]]);
    expect(importCycles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });

  // Type-only imports count (see relativeImports): core/groundedness.ts ↔ core/entropy/claim-consistency.ts
  // is a cycle although one of its two imports is `import type`.
  it("has no import cycle anywhere in src/, type-only imports included", () => {
    const files = sourceFiles(SRC);
    const edges = new Map(files.map((f) => [relative(SRC, f), relativeImports(f).filter((t) => t.startsWith(SRC)).map((t) => relative(SRC, t))]));
    expect(importCycles(edges)).toEqual([]);
  });
});

describe("one concept, one place", () => {
  it("tests for a plain object (not null, not an array) only in core/plain-object.ts", () => {
    const spelled = /typeof ([\w.]+) [!=]== "object".{0,60}Array\.isArray\(\1\)|Array\.isArray\(([\w.]+)\).{0,60}typeof \2 [!=]== "object"/;
    const copies = sourceFiles(SRC)
      .filter((file) => relative(SRC, file) !== join("core", "plain-object.ts"))
      .flatMap((file) => readFileSync(file, "utf8").split("\n").flatMap((line, i) => (spelled.test(line) ? [`${relative(SRC, file)}:${i + 1}`] : [])));
    expect(copies).toEqual([]);
  });

  it("sends HTTP requests only through the bounded client, net/bounded-fetch.ts", () => {
    // A fetch, a timeout made by hand, or a body read outside the client's bounds.
    const spelled = /(?:\bfetch|Fetch)\s*\(|AbortSignal\.timeout|\b(?:readCappedText|readCappedBytes|pipeCapped)\b/;
    // The review page's script runs in the browser (served as text), not in Node.
    const allowed = new Set([join("net", "bounded-fetch.ts"), join("net", "read-capped.ts"), join("cli", "review", "web-page.ts")]);
    const copies = sourceFiles(SRC)
      .filter((file) => !allowed.has(relative(SRC, file)))
      .flatMap((file) => readFileSync(file, "utf8").split("\n").flatMap((line, i) => (spelled.test(line) ? [`${relative(SRC, file)}:${i + 1}`] : [])));
    expect(copies).toEqual([]);
  });

  it("compares tokens and reads a bearer header only in net/bearer.ts", () => {
    const spelled = /timingSafeEqual|\^bearer/i;
    const copies = sourceFiles(SRC)
      .filter((file) => relative(SRC, file) !== join("net", "bearer.ts"))
      .filter((file) => spelled.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(copies).toEqual([]);
  });
});

describe("one error base", () => {
  // A class that extends a built-in error directly (Error, TypeError, …), written on one line or across several.
  const extendsBuiltIn = /class\s+(\w+)\s+extends\s+(?:globalThis\.)?(?:Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError)\b/g;
  const BASE = join("errors", "groundwatch-error.ts");

  it("finds a class that extends a built-in error, on one line or across several", () => {
    const found = (text: string): string[] => [...text.matchAll(extendsBuiltIn)].map((m) => m[1] ?? "");
    expect(found("export class A extends Error {}\nclass B\n  extends RangeError {}\nclass C extends GroundwatchError {}\nclass D extends globalThis.TypeError {}")).toEqual(["A", "B", "D"]);
  });

  it("every error class in src/ extends GroundwatchError (errors/groundwatch-error.ts), the only class that extends Error", () => {
    const direct = sourceFiles(SRC).flatMap((file) => [...readFileSync(file, "utf8").matchAll(extendsBuiltIn)].map((m) => `${relative(SRC, file)}: ${m[1] ?? ""}`));
    expect(direct).toEqual([`${BASE}: GroundwatchError`]);
  });
});

/**
 * The shapes an evaluation is shown in (its wire form and its views), and the functions that build
 * them, with the one folder each may be declared in: the evaluation's in evaluation/, the review
 * spool's on-disk record (a file format review owns) in review/.
 */
const PROJECTIONS: ReadonlyArray<{ readonly home: string; readonly types: readonly string[]; readonly functions: readonly string[] }> = [
  {
    home: "evaluation",
    types: ["EvaluationSummary", "EvaluationEvent", "EvidenceRef", "ClaimSummary", "ClaimText", "FlaggedAnswer", "FlaggedClaim", "FlaggedEvidence", "CitationCounts", "RelevanceSummary", "EntailmentCounts", "FlaggedClaimRef", "ReviewClaim"],
    functions: ["summarize", "claimSummary", "claimText", "evidenceRef", "flaggedAnswerOf", "spoolRecordOf", "evaluationEventOf"],
  },
  { home: "review", types: ["SpoolRecord", "SpoolClaim", "SpoolEvidence", "SpoolDocument"], functions: [] },
];

/** Where `text` declares one of the projections at module level outside its home, as "name (line)"; `part` is the src/ folder the text lies in. */
function strayProjections(text: string, part: string): string[] {
  const found: string[] = [];
  for (const { home, types, functions } of PROJECTIONS) {
    if (part === home) continue;
    const declared = new RegExp(`^(?:export\\s+)?(?:declare\\s+)?(?:(?:interface|type|class)\\s+(${types.join("|")})\\b|(?:async\\s+)?function\\s+(${functions.join("|")})\\b|const\\s+(${functions.join("|")})\\s*=)`);
    text.split("\n").forEach((line, i) => {
      const m = declared.exec(line);
      const name = m?.[1] ?? m?.[2] ?? m?.[3];
      if (name) found.push(`${name} (${i + 1})`);
    });
  }
  return found;
}

describe("an evaluation's shapes are declared in one place", () => {
  it("finds a projection declared outside its home, and not one that is only used there or a local of the same name", () => {
    const text = ["import type { FlaggedAnswer } from '../evaluation/types.ts';", "export interface FlaggedAnswer {", "type ClaimText = string;", "export function spoolRecordOf() {}", "const claimSummary = () => 1;", "export type SpoolRecord = {};", "const x: EvaluationSummary = y;", "interface FlaggedAnswerPage {}", "  const claimText = new Map();"].join("\n");
    expect(strayProjections(text, "sdk")).toEqual(["FlaggedAnswer (2)", "ClaimText (3)", "spoolRecordOf (4)", "claimSummary (5)", "SpoolRecord (6)"]);
    expect(strayProjections(text, "evaluation")).toEqual(["SpoolRecord (6)"]);
    expect(strayProjections(text, "review")).toEqual(["FlaggedAnswer (2)", "ClaimText (3)", "spoolRecordOf (4)", "claimSummary (5)"]);
  });

  it("declares the wire form and the views only in evaluation/, and the spool record only in review/", () => {
    const stray = sourceFiles(SRC).flatMap((file) => strayProjections(readFileSync(file, "utf8"), partOf(file)).map((d) => `${relative(SRC, file)}: ${d}`));
    expect(stray).toEqual([]);
  });
});

describe("options resolved once, at the edges", () => {
  // The edges (cli, collector, sdk) and config's resolvers read the environment; the layers below take resolved values.
  const BELOW_THE_EDGES = ["core", "nli", "scoring", "evaluation", "telemetry", "review", "workers", "net"];

  it("no layer below the edges reads the environment or takes it as a parameter", () => {
    const spelled = /process\.env|NodeJS\.ProcessEnv/;
    const readers = BELOW_THE_EDGES.flatMap((part) => sourceFiles(join(SRC, part)))
      .filter((file) => spelled.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(readers).toEqual([]);
  });
});

/**
 * The text of every string literal (quoted or template) in a TypeScript source, comments left out, each
 * with its line and the top-level `const` it lies in (undefined outside one).
 */
function stringLiterals(file: string, text: string): Array<{ text: string; line: number; constant: string | undefined }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ text: string; line: number; constant: string | undefined }> = [];
  const visit = (node: ts.Node, constant: string | undefined): void => {
    const inside = ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && ts.isSourceFile(node.parent.parent.parent) ? node.name.text : constant;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, constant: inside });
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, undefined);
  return found;
}

describe("environment variable names spelled once", () => {
  // The rule: a string literal in src/ that spells a GROUNDWATCH_* name lies in config/env.ts, or in a
  // command's usage text (a top-level const named *_HELP, which documents the names beside the flags).
  // Everything else (messages, templates, tables) takes the name from config/env.ts.
  const ENV_NAME = /GROUNDWATCH_[A-Z_]+/;
  const allowed = (file: string, constant: string | undefined): boolean => file === join("config", "env.ts") || (constant?.endsWith("_HELP") ?? false);

  it("finds an env name in a string, a template part and a message, and not in a comment or an identifier", () => {
    const text = 'const GROUNDWATCH_ONLY = 1; // GROUNDWATCH_PORT\nconst a = "GROUNDWATCH_PORT";\nconst b = `set ${x} GROUNDWATCH_TOKEN`;\nexport const X_HELP = "GROUNDWATCH_HOST";\n';
    const hits = stringLiterals("t.ts", text).filter((s) => ENV_NAME.test(s.text));
    expect(hits.map((h) => [h.line, h.constant])).toEqual([[2, "a"], [3, "b"], [4, "X_HELP"]]);
  });

  it("spells GROUNDWATCH_* names only in config/env.ts and in the commands' usage texts", () => {
    const inline = sourceFiles(SRC).flatMap((file) => {
      const name = relative(SRC, file);
      return stringLiterals(file, readFileSync(file, "utf8"))
        .filter((s) => ENV_NAME.test(s.text) && !allowed(name, s.constant))
        .map((s) => `${name}:${s.line} ${ENV_NAME.exec(s.text)?.[0] ?? ""}`);
    });
    expect(inline).toEqual([]);
  });
});
