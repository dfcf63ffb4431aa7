// Issue 36: the pages users read cited the project's internal issue numbers ("issue 27") and source
// paths (src/...), which mean nothing in an installed package. The contributors' pages
// (development.md, architecture.md) and the benchmark log (benchmarks.md) may; the others may not.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FOR_CONTRIBUTORS = new Set(["docs/development.md", "docs/architecture.md", "docs/benchmarks.md"]);
const USER_DOCS = ["README.md", "examples/README.md", "collector/README.md", "dashboards/README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)].filter((f) => !FOR_CONTRIBUTORS.has(f));

/** What a user page must not say: an internal issue number, or a path into the sources. */
const INTERNAL = [/\bissues? #?\d+/i, /(?<![\w.-])src\//];

/** Each line of a page that cites an issue number or a source path. */
function internalReferences(page: string, md: string): string[] {
  return md.split("\n").flatMap((line, i) => (INTERNAL.some((re) => re.test(line)) ? [`${page}:${i + 1}: ${line.trim()}`] : []));
}

describe("the pages users read", () => {
  it("cite no internal issue number and no source path", () => {
    expect(USER_DOCS.length).toBeGreaterThan(15);
    expect(USER_DOCS.flatMap((page) => internalReferences(page, readFileSync(join(ROOT, page), "utf8")))).toEqual([]);
  });

  it("are told apart from the contributors' pages, and a citation is caught", () => {
    expect(USER_DOCS).toEqual(expect.arrayContaining(["README.md", "docs/configuration.md", "docs/backends.md", "docs/review.md"]));
    for (const page of FOR_CONTRIBUTORS) expect(USER_DOCS).not.toContain(page);
    const md = "Relevance (issue 27) is lexical.\nSee `src/core/cause.ts`.\nSince issues 24 and 25.\nA tissue 3 cm wide; the resrc/ folder.\n";
    expect(internalReferences("x.md", md)).toEqual(["x.md:1: Relevance (issue 27) is lexical.", "x.md:2: See `src/core/cause.ts`.", "x.md:3: Since issues 24 and 25."]);
  });
});
