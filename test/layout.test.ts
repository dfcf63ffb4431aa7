/**
 * Where tests live (docs/development.md, "Running the tests"): one folder per part of src/, each flat
 * (a test of src/<part>/<sub>/<file>.ts is test/<part>/<sub>-<name>.test.ts), beside a fixed set of
 * folders that test no single part.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const TEST = join(ROOT, "test");

/** The folders of test/ that mirror no part of src/, each with what it holds. */
const OTHER_FOLDERS: Readonly<Record<string, string>> = {
  e2e: "the package as a user runs it",
  chaos: "faults and hostile input",
  helpers: "shared set-up and waits",
  deploy: "the deployment files",
  dashboards: "the Grafana dashboards",
  docs: "what the docs claim",
  scripts: "the build scripts",
  fixtures: "data the tests read",
  instrumentations: "the instrumentation capture workspaces",
  bench: "the benchmarks' own code",
};

const foldersOf = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== "node_modules")
    .map((e) => e.name);

describe("the test layout", () => {
  const parts = foldersOf(join(ROOT, "src"));

  it("has a folder of test/ only for a part of src/ or one of the named others", () => {
    expect(foldersOf(TEST).filter((f) => !parts.includes(f) && !(f in OTHER_FOLDERS))).toEqual([]);
  });

  it("keeps each part's folder flat: a sub-folder's tests are named by prefix", () => {
    const nested = parts.flatMap((part) => {
      try {
        return foldersOf(join(TEST, part)).map((sub) => `test/${part}/${sub}`);
      } catch {
        return [];
      }
    });
    expect(nested).toEqual([]);
  });
});
