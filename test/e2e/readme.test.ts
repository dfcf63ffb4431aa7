// Issue 14: every command line in the README is executed, in the README's order, as a reader
// following it from a fresh clone would run it; then (issue 25) those of the reference pages the
// README moved to docs/, page by page in DOCUMENTS' order. What cannot run here as written (the internet, the
// default port) is replaced by a local fake named in SUBSTITUTIONS, each with its reason; the few
// lines not run at all are in NOT_EXECUTED, each with its reason. A command line the README gains
// without an entry here fails the test, so no command reaches the README unverified.
// What each line must do is in readme.expectations.ts, the fakes and substitutions in
// readme.substitutions.ts; the Markdown reading is test/helpers/readme-blocks.ts.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LongRunning } from "../helpers/processes.ts";
import { runShell, startShell } from "../helpers/processes.ts";
import { SHELL_LANGS, codeBlocks, shellCommands } from "../helpers/readme-blocks.ts";
import { EXECUTED, NOT_EXECUTED } from "./readme.expectations.ts";
import type { Fixtures, Substitution, SubstitutionName } from "./readme.substitutions.ts";
import { FIXTURES, GLOBAL_SUBSTITUTIONS, ROOT, SUBSTITUTIONS, walkthroughEnv } from "./readme.substitutions.ts";

/**
 * The README, then the reference pages moved out of it, in the order a reader following them runs
 * their commands: files earlier commands wrote are read by later ones, and `model pull` (in
 * backends.md) must come after every command that expects the offline backend, as it caches the
 * default model. Pages without command lines are here for the block and inline-command checks.
 */
const DOCUMENTS = ["README.md", "docs/scoring.md", "docs/entropy.md", "docs/ci-gate.md", "docs/backends.md", "docs/sdk.md", "docs/collector.md", "docs/metrics.md", "docs/configuration.md", "docs/stack.md", "docs/development.md"] as const;
const TEXTS = DOCUMENTS.map((doc) => ({ doc, text: readFileSync(join(ROOT, doc), "utf8") }));
/** Pages under docs/ with shell blocks that are not walked, and why; a new page with commands must be walked or named here. */
const NOT_WALKED: Readonly<Record<string, string>> = {
  "docs/benchmarks.md": "benchmark runs: minutes of CPU each, on generated models and loads, with timings that are the output (benchmarks are not part of CI; each command is the package.json script the page names)",
  "docs/deploy.md": "deployment steps: docker build and run, docker-compose, a registry push and kubectl against a cluster, none of which exists where the tests run; test/deploy/*.test.ts validate the Dockerfile, compose file and manifests those commands use",
  "docs/models.md": "exporting a model with pip and optimum-cli needs the internet and Python's ML stack; the groundwatch lines there run on the exported directory",
  "docs/review.md": "groundwatch review is interactive (a terminal, a reviewer): test/e2e/review-terminal.test.ts drives it in tmux and test/cli/review-terminal.test.ts runs the scripted form",
};

const BLOCKS = TEXTS.flatMap(({ doc, text }) => codeBlocks(doc, text));
const COMMANDS = shellCommands(BLOCKS);

// ---------------------------------------------------------------------------------------------

const matches = (entry: { command: string | RegExp }, text: string): boolean => (typeof entry.command === "string" ? entry.command === text : entry.command.test(text));

describe("the command lines of the README and the reference pages it links", () => {
  it("are each either executed below or listed as not executed, with a reason", () => {
    const problems: string[] = [];
    for (const c of COMMANDS) {
      const n = EXECUTED.filter((e) => matches(e, c.text)).length + NOT_EXECUTED.filter((e) => matches(e, c.text)).length;
      if (n !== 1) problems.push(`${c.doc}:${c.line}: ${n === 0 ? "not in EXECUTED or NOT_EXECUTED" : `matched by ${n} entries`}: ${c.text}`);
    }
    for (const e of [...EXECUTED, ...NOT_EXECUTED]) {
      const n = COMMANDS.filter((c) => matches(e, c.text)).length;
      if (n === 0) problems.push(`no line of ${DOCUMENTS.join(", ")} for the entry ${String(e.command)}`);
      if (typeof e.command !== "string" && n !== 1) problems.push(`the pattern ${String(e.command)} matches ${n} lines (it must match exactly one)`);
    }
    expect(problems).toEqual([]);
  });

  it("cover every page under docs/ with shell blocks: walked here, or named in NOT_WALKED with a reason", () => {
    const withCommands = readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`)
      .filter((doc) => codeBlocks(doc, readFileSync(join(ROOT, doc), "utf8")).some((b) => SHELL_LANGS.has(b.lang)));
    const problems = withCommands.filter((doc) => !(DOCUMENTS as readonly string[]).includes(doc) && NOT_WALKED[doc] === undefined).map((doc) => `${doc}: has command lines, but is neither in DOCUMENTS nor in NOT_WALKED`);
    for (const doc of Object.keys(NOT_WALKED)) if (!withCommands.includes(doc)) problems.push(`${doc}: in NOT_WALKED, but has no command lines (any more)`);
    expect(problems).toEqual([]);
  });

  it("document every non-zero exit code they are expected to have, and no other", () => {
    const problems: string[] = [];
    for (const c of COMMANDS) {
      const e = EXECUTED.find((x) => matches(x, c.text));
      if (!e) continue;
      const documented = /\bexit (\d+)\b/.exec(c.comment)?.[1];
      if (e.exit !== 0 && documented !== String(e.exit)) problems.push(`${c.doc}:${c.line} exits ${e.exit}: its comment must say "exit ${e.exit}": ${c.text}`);
      if (documented !== undefined && Number(documented) !== e.exit) problems.push(`${c.doc}:${c.line}: its comment says exit ${documented}, the test expects ${e.exit}`);
    }
    expect(problems).toEqual([]);
  });

  it("keep runnable commands in shell blocks: every block has a language, and no other block or inline code holds an npx command that is not run", () => {
    const problems: string[] = [];
    for (const b of BLOCKS) {
      if (b.lang === "") problems.push(`${b.doc}:${b.line}: a code block without a language (text, sh, json, ts, yaml…)`);
      if (SHELL_LANGS.has(b.lang)) continue;
      for (const { n, text } of b.lines) if (/^\s*(\$ |npx )/.test(text)) problems.push(`${b.doc}:${n}: a command in a ${b.lang} block is never run; put it in a sh block: ${text.trim()}`);
    }
    const executed = COMMANDS.filter((c) => EXECUTED.some((e) => matches(e, c.text))).map((c) => c.text);
    for (const { doc, text: md } of TEXTS) {
      let inBlock = false;
      md.split("\n").forEach((text, i) => {
        if (/^ {0,3}(`{3,}|~{3,})/.test(text)) inBlock = !inBlock;
        if (inBlock) return;
        for (const m of text.matchAll(/`([^`]+)`/g)) {
          const span = m[1] ?? "";
          if (span.startsWith("npx ") && !executed.includes(span)) problems.push(`${doc}:${i + 1}: inline \`${span}\` is not a command the test runs; use a shell block, or write it without npx`);
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it("list every substitution they use, and each still applies", () => {
    const problems: string[] = [];
    for (const e of EXECUTED) {
      const line = COMMANDS.find((c) => matches(e, c.text));
      if (!line) continue;
      for (const s of e.substitutions ?? []) {
        const find = SUBSTITUTIONS[s].find;
        find.lastIndex = 0;
        if (!find.test(line.text)) problems.push(`${line.doc}:${line.line}: substitution "${s}" no longer applies: ${line.text}`);
      }
    }
    // A line that reaches outside this machine without its substitution would fail for the wrong reason.
    for (const c of COMMANDS) {
      const e = EXECUTED.find((x) => matches(x, c.text));
      if (!e) continue;
      for (const [name, s] of Object.entries(SUBSTITUTIONS) as Array<[SubstitutionName, Substitution]>) {
        if (GLOBAL_SUBSTITUTIONS.includes(name) || e.substitutions?.includes(name)) continue;
        s.find.lastIndex = 0;
        if (s.find.test(c.text)) problems.push(`${c.doc}:${c.line}: needs substitution "${name}" (${s.reason}): ${c.text}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the README and its reference pages, run from a fresh clone in their order", () => {
  const fx: Fixtures = { dir: "", sessionEnv: {} };
  /** Background commands, by code block, stopped after the block's last line. */
  const background = new Map<number, Array<{ text: string; exit: number; process: LongRunning }>>();

  beforeAll(() => {
    fx.dir = mkdtempSync(join(tmpdir(), "groundwatch-readme-"));
    cpSync(join(ROOT, "examples"), join(fx.dir, "examples"), { recursive: true });
  });
  afterAll(() => {
    for (const list of background.values()) for (const b of list) b.process.kill();
    if (fx.dir) rmSync(fx.dir, { recursive: true, force: true });
  }, 60_000);

  for (const c of COMMANDS) {
    const entry = EXECUTED.find((e) => matches(e, c.text));
    const skipped = NOT_EXECUTED.find((e) => matches(e, c.text));
    if (skipped) {
      // Listed with its reason, and shown as skipped in every run.
      it.skip(`${c.doc}:${c.line}: ${c.text} — not run here: ${skipped.reason}`, () => undefined);
      continue;
    }
    const lastOfBlock = !COMMANDS.some((o) => o.block === c.block && o.line > c.line);

    it(`${c.doc}:${c.line}: ${c.text}`, { timeout: (entry?.timeoutMs ?? 45_000) + 20_000 }, async () => {
      if (!entry) throw new Error("not in EXECUTED or NOT_EXECUTED (see the first test)");
      try {
        if (entry.kind === "export") {
          const m = /^export ([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(c.text);
          if (!m?.[1] || m[2] === undefined) throw new Error(`not a plain export: ${c.text}`);
          fx.sessionEnv[m[1]] = m[2];
          return;
        }
        // The command's own substitutions first: they find the README's text, before npx is replaced.
        const names = [...(entry.substitutions ?? []), ...GLOBAL_SUBSTITUTIONS];
        for (const f of new Set(names.flatMap((s) => (SUBSTITUTIONS[s] as Substitution).fixtures ?? []))) await FIXTURES[f].start(fx);
        let command = c.text;
        const env = walkthroughEnv(fx);
        for (const name of names) {
          const s: Substitution = SUBSTITUTIONS[name];
          s.find.lastIndex = 0;
          if (!s.find.test(command)) {
            if (GLOBAL_SUBSTITUTIONS.includes(name)) continue;
            throw new Error(`substitution "${name}" does not apply to: ${command}`);
          }
          if (s.replace) {
            const replace = s.replace;
            command = command.replace(s.find, (m) => replace(m, fx));
          }
          if (s.env) Object.assign(env, s.env(fx));
        }
        const cwd = entry.cwd?.dir ?? fx.dir;
        const timeoutMs = entry.timeoutMs ?? 45_000;

        if (entry.kind === "server" || entry.kind === "background") {
          const p = await startShell(command, { cwd, env, listening: entry.listening ?? /(?!)/, timeoutMs, killAfterTest: entry.kind !== "background" });
          try {
            await entry.probe?.({ fx, url: p.url, ...p.output() });
          } catch (error) {
            await p.stop();
            throw error;
          }
          if (entry.kind === "background") {
            background.set(c.block, [...(background.get(c.block) ?? []), { text: c.text, exit: entry.exit, process: p }]);
            return;
          }
          const end = await p.stop();
          expect({ code: end.code, signal: end.signal }, `after SIGTERM\n--- stdout\n${end.stdout}\n--- stderr\n${end.stderr}`).toEqual({ code: entry.exit, signal: null });
          await entry.check?.({ fx, url: p.url, stdout: end.stdout, stderr: end.stderr });
          return;
        }

        const end = await runShell(command, { cwd, env, timeoutMs });
        expect(end.code, `exit code of: ${command}\n--- stdout\n${end.stdout}\n--- stderr\n${end.stderr}`).toBe(entry.exit);
        await entry.check?.({ fx, url: "", stdout: end.stdout, stderr: end.stderr });
      } finally {
        if (lastOfBlock) {
          for (const b of background.get(c.block) ?? []) {
            const end = await b.process.stop();
            expect({ code: end.code, signal: end.signal }, `${b.text}, after SIGTERM\n--- stderr\n${end.stderr}`).toEqual({ code: b.exit, signal: null });
          }
          background.delete(c.block);
        }
      }
    });
  }
});
