/**
 * The revision bench/quality.ts compares against, laid out in a temporary directory: which one
 * (`--against REV`; by default the commit before HEAD, or HEAD itself while src/ or scripts/ have
 * uncommitted changes, so the figures compare the change being made), its tree written out with
 * `git archive` (the repository's worktrees and branches are left alone) and this checkout's
 * node_modules linked into it, and its scores (bench/quality-tree.ts run on it in a child process,
 * so its modules never meet this checkout's).
 *
 *   npx tsx bench/quality-revision.ts [REV]   writes out REV's tree (default as above) and prints its
 *                                             commit and directory, tab-separated (the caller removes it)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TreeScores } from "./quality-tree.ts";

const ROOT = resolve(import.meta.dirname, "..");

const git = (args: readonly string[]): string => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

/** The revision compared against when `--against` names none: HEAD~1, or HEAD while src/ or scripts/ have uncommitted changes. */
export function defaultAgainst(): string {
  return git(["status", "--porcelain", "--", "src", "scripts"]) === "" ? "HEAD~1" : "HEAD";
}

/** A revision's commit hash and subject line. */
export function describeRevision(rev: string): { commit: string; subject: string } {
  const commit = git(["rev-parse", "--verify", `${rev}^{commit}`]);
  return { commit, subject: git(["log", "-1", "--format=%s", commit]) };
}

/** Writes the tree of `commit` into a new temporary directory with this checkout's node_modules linked in; returns the directory. */
export function checkOutRevision(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), "groundwatch-quality-"));
  try {
    execFileSync("bash", ["-c", 'git archive --format=tar "$1" | tar -x -C "$2"', "archive", commit, dir], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Scores the sets with the tree of `commit` (in a child process, the rows still read by this checkout). */
export function scoreRevision(commit: string, options: { readonly set?: string | undefined; readonly limit?: string | undefined }): TreeScores {
  const dir = checkOutRevision(commit);
  try {
    const args = ["tsx", join(ROOT, "bench", "quality-tree.ts"), "--root", dir, ...(options.set ? ["--set", options.set] : []), ...(options.limit ? ["--limit", options.limit] : [])];
    const out = execFileSync("npx", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] });
    return JSON.parse(out) as TreeScores;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { commit } = describeRevision(process.argv[2] ?? defaultAgainst());
  process.stdout.write(`${commit}\t${checkOutRevision(commit)}\n`);
}
