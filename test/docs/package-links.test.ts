// Issue 36: the installed package's README and docs linked to files the package does not hold
// (examples/README.md, examples/eval/, examples/rag-service/, deploy/, the docker-compose stack).
// Every relative link in a Markdown file of the tarball must lead to a file (or folder) in the
// tarball, or say on its line, after the link, that its target is "in the repository".
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { isUrl, markdownLinks } from "../helpers/markdown-links.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** How a link to a file outside the package says where its target is. */
const MARKER = "in the repository";

/** The tarball's files, as `npm pack` lists them (package.json "files", .npmignore), relative to the package root. */
function packedFiles(): string[] {
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })) as Array<{ files: Array<{ path: string }> }>;
  return packed!.files.map((f) => f.path);
}

/** Each relative link of a shipped page whose target is not in the package and whose line does not say it is in the repository. */
function unshippedLinks(page: string, md: string, files: readonly string[]): string[] {
  const shipped = new Set(files);
  for (const f of files) for (let d = posix.dirname(f); d !== "."; d = posix.dirname(d)) shipped.add(d);
  return markdownLinks(md).flatMap(({ line, target, after }) => {
    const [path = ""] = target.split("#", 1);
    if (isUrl(target) || path === "") return [];
    const resolved = posix.normalize(posix.join(posix.dirname(page), decodeURI(path))).replace(/\/$/, "");
    if (shipped.has(resolved) || after.includes(MARKER)) return [];
    return [`${page}:${line}: (${target}) ${resolved} is not in the package, and the line does not say it is ${MARKER}`];
  });
}

describe("links in the Markdown files the package ships", () => {
  let files: string[] = [];
  beforeAll(() => {
    files = packedFiles();
  }, 60_000);

  it("lead to a file in the package, or say their target is in the repository", () => {
    const pages = files.filter((f) => f.endsWith(".md"));
    expect(pages).toEqual(expect.arrayContaining(["README.md", "docs/deploy.md", "examples/README.md"]));
    const problems = pages.flatMap((page) => unshippedLinks(page, readFileSync(join(ROOT, page), "utf8"), files));
    expect(problems).toEqual([]);
  });

  it("ship the example data the docs tell users to run: examples/README.md and examples/eval/", () => {
    expect(files).toEqual(expect.arrayContaining(["examples/README.md", "examples/eval/ragas.json", "examples/eval/deepeval.jsonl", "examples/eval/questions.jsonl"]));
  });

  it("catch a link to an unshipped file, and accept one marked as in the repository or to a shipped folder", () => {
    const shipped = ["docs/deploy.md", "examples/quickstart/server.ts", "README.md"];
    const md = "See [the compose file](../docker-compose.yml).\n[`Dockerfile`](../Dockerfile) (in the repository) builds it.\nThe [quick start](../examples/quickstart/) and [README](../README.md#quick-start), [on GitHub](https://example.com/x).\n```\n[not a link](../nowhere.md)\n```\n";
    expect(unshippedLinks("docs/deploy.md", md, shipped)).toEqual(["docs/deploy.md:1: (../docker-compose.yml) docker-compose.yml is not in the package, and the line does not say it is in the repository"]);
    // The marker must come after the link on its line.
    expect(unshippedLinks("README.md", "(in the repository) [deploy](deploy/images.yaml)", shipped)).toHaveLength(1);
  });
});
