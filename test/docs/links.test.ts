// Issue 25: the README was cut down and its reference material moved to docs/. Every relative link
// in README.md and docs/*.md must still lead somewhere: to a file that exists and, for `#anchor`, to a
// heading that exists there (the anchor GitHub gives that heading).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isUrl, markdownLinks } from "../helpers/markdown-links.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2… */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence: string | undefined;
  for (const line of md.split("\n")) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f !== undefined && (fence === undefined || (f[0] === fence[0] && f.length >= fence.length))) {
      fence = fence === undefined ? f : undefined;
      continue;
    }
    const h = fence === undefined ? /^#{1,6} +(.*?) *#*$/.exec(line)?.[1] : undefined;
    if (h === undefined) continue;
    const text = h.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  readonly page: string;
  readonly line: number;
  readonly target: string;
}

function links(page: string): Link[] {
  return markdownLinks(readFileSync(join(ROOT, page), "utf8")).map(({ line, target }) => ({ page, line, target }));
}

/** What is wrong with a link, or undefined when it leads somewhere. */
function broken({ page, target }: Link): string | undefined {
  if (isUrl(target)) return undefined; // https:, mailto:
  const [path = "", anchor] = target.split("#", 2);
  const file = path === "" ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(path));
  if (!file.startsWith(ROOT)) return "points outside the repository";
  if (!existsSync(file)) return `no file ${relative(ROOT, file)}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(file).isDirectory() || !file.endsWith(".md")) return `an anchor into ${relative(ROOT, file)}, which has no headings`;
  return anchors(readFileSync(file, "utf8")).has(anchor) ? undefined : `no heading with the anchor #${anchor} in ${relative(ROOT, file)}`;
}

describe("links in the README and docs/", () => {
  it("each lead to a file that exists and, for an #anchor, to a heading in it", () => {
    const all = PAGES.flatMap(links);
    expect(all.length).toBeGreaterThan(50);
    const problems = all.flatMap((l) => {
      const why = broken(l);
      return why === undefined ? [] : [`${l.page}:${l.line}: (${l.target}) ${why}`];
    });
    expect(problems).toEqual([]);
  });

  it("read anchors as GitHub does, so a broken one is caught", () => {
    const md = "# A title\n## Release gate and calibration: `groundwatch eval`, `groundwatch calibrate`\n## Pathological inputs — `npx tsx bench/pathological.ts`\n## Notes\n## Notes\n```sh\n# not a heading\n```\n";
    expect([...anchors(md)]).toEqual(["a-title", "release-gate-and-calibration-groundwatch-eval-groundwatch-calibrate", "pathological-inputs--npx-tsx-benchpathologicalts", "notes", "notes-1"]);
    expect(broken({ page: "README.md", line: 1, target: "docs/no-such-page.md" })).toBe("no file docs/no-such-page.md");
    expect(broken({ page: "README.md", line: 1, target: "#no-such-heading" })).toBe("no heading with the anchor #no-such-heading in README.md");
    expect(broken({ page: "docs/ci-gate.md", line: 1, target: "../README.md#quick-start" })).toBeUndefined();
  });

  it("keep the README short: under 400 lines, the reference material in docs/", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThan(400);
  });
});
