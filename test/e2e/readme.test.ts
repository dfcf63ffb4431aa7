// Issue 14: every command line in the README is executed, in the README's order, as a reader
// following it from a fresh clone would run it; then (issue 25) those of the reference pages the
// README moved to docs/, page by page in DOCUMENTS' order. What cannot run here as written (the internet, the
// default port) is replaced by a local fake named in SUBSTITUTIONS, each with its reason; the few
// lines not run at all are in NOT_EXECUTED, each with its reason. A command line the README gains
// without an entry here fails the test, so no command reaches the README unverified.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { startHubServer } from "../helpers/hub-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import type { JudgeRequest } from "../helpers/judge-server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "groundwatch.js");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const FIXTURE_MODEL = join(ROOT, "test", "fixtures", "models", "bert-wordpiece");
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
  "docs/deploy.md": "deployment steps: docker build and run, docker-compose, a registry push and kubectl against a cluster, none of which exists where the tests run; test/deploy/*.test.ts validate the Dockerfile, compose file and manifests those commands use",
  "docs/models.md": "exporting a model with pip and optimum-cli needs the internet and Python's ML stack; the groundwatch lines there run on the exported directory",
};
const SHELL_LANGS = new Set(["sh", "bash", "shell"]);

// ---------------------------------------------------------------------------------------------
// Reading the README

interface CodeBlock {
  /** The file it is in, relative to the repository root. */
  readonly doc: string;
  readonly lang: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lines: ReadonlyArray<{ readonly n: number; readonly text: string }>;
}

/** One command line of a shell block: what runs, and the trailing `# comment` it had. */
interface ReadmeCommand {
  /** The file it is in, relative to the repository root. */
  readonly doc: string;
  readonly line: number;
  readonly text: string;
  readonly comment: string;
  /** Index of its code block among all blocks. */
  readonly block: number;
}

function codeBlocks(doc: string, md: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; line: number; fence: string; lines: Array<{ n: number; text: string }> } | undefined;
  md.split("\n").forEach((text, i) => {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
    if (open) {
      const closes = fence?.[1] !== undefined && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && (fence[2] ?? "").trim() === "";
      if (closes) {
        blocks.push({ doc, lang: open.lang, line: open.line, lines: open.lines });
        open = undefined;
      } else open.lines.push({ n: i + 1, text });
    } else if (fence?.[1] !== undefined) {
      open = { lang: (fence[2] ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "", line: i + 1, fence: fence[1], lines: [] };
    }
  });
  if (open) throw new Error(`${doc}: the code block opened at line ${open.line} is never closed`);
  return blocks;
}

/** Splits a shell line at its comment: a `#` at the start or after a blank, outside quotes. */
function splitComment(doc: string, line: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "\\") i++;
    else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return { code: line.slice(0, i).trim(), comment: line.slice(i + 1).trim() };
  }
  if (quote !== undefined) throw new Error(`${doc}: unterminated ${quote} in: ${line}`);
  return { code: line.trim(), comment: "" };
}

function shellCommands(blocks: readonly CodeBlock[]): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  blocks.forEach((b, block) => {
    if (!SHELL_LANGS.has(b.lang)) return;
    let pending: { line: number; text: string } | undefined;
    for (const { n, text } of b.lines) {
      const { code, comment } = splitComment(b.doc, text);
      if (code === "") continue;
      // A line ending in a backslash continues on the next one.
      if (code.endsWith("\\")) {
        pending = { line: pending?.line ?? n, text: `${pending ? `${pending.text} ` : ""}${code.slice(0, -1).trim()}` };
        continue;
      }
      commands.push({ doc: b.doc, line: pending?.line ?? n, text: pending ? `${pending.text} ${code}` : code, comment, block });
      pending = undefined;
    }
    if (pending) throw new Error(`${b.doc}:${pending.line}: a continued command line never ends`);
  });
  return commands;
}

const BLOCKS = TEXTS.flatMap(({ doc, text }) => codeBlocks(doc, text));
const COMMANDS = shellCommands(BLOCKS);

// ---------------------------------------------------------------------------------------------
// Fakes for what the README reaches outside this machine

interface Fixtures {
  /** The walkthrough directory: a copy of examples/ and whatever earlier commands wrote. */
  dir: string;
  hubUrl?: string;
  judge?: { url: string; requests: JudgeRequest[] };
  prometheusUrl?: string;
  collectorUrl?: string;
  /** Where the example RAG service (a background command) listens. */
  ragUrl?: string;
}

type FixtureName = "hub" | "judge" | "prometheus" | "collector";

/** A Prometheus HTTP API that is ready and answers every query with one groundwatch series. */
async function startFakePrometheus(): Promise<string> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/-/ready") {
      res.writeHead(200).end("Prometheus Server is Ready.\n");
      return;
    }
    const range = url.pathname.endsWith("/query_range");
    const metric = { groundwatch_route: "/api/answer", groundwatch_backend_name: "offline", groundwatch_backend_tier: "triage", alertname: "GroundwatchHallucinationRateHigh", severity: "page" };
    const result = [{ metric, ...(range ? { values: [[Number(url.searchParams.get("start") ?? 1_700_000_000), "0.25"]] } : { value: [1_700_000_000, "12"] }) }];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "success", data: { resultType: range ? "matrix" : "vector", result } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const FIXTURES: Record<FixtureName, { readonly what: string; readonly start: (fx: Fixtures) => Promise<void> }> = {
  hub: {
    what: "a local server with the Hugging Face Hub's URL layout serving test/fixtures/models/bert-wordpiece (a random-weight NLI model with a WordPiece tokenizer) as Xenova/nli-deberta-v3-xsmall",
    start: async (fx) => {
      fx.hubUrl = (await startHubServer({ dir: FIXTURE_MODEL, repo: "Xenova/nli-deberta-v3-xsmall" })).url;
    },
  },
  judge: {
    what: "a local OpenAI-compatible chat-completions server that answers ENTAILMENT",
    start: async (fx) => {
      fx.judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT") }));
    },
  },
  prometheus: {
    what: "a fake Prometheus HTTP API (/-/ready, /api/v1/query, /api/v1/query_range) with one groundwatch series",
    start: async (fx) => {
      fx.prometheusUrl = await startFakePrometheus();
    },
  },
  collector: {
    what: "`groundwatch serve --port 0` started by the test, standing for the collector the README's serve commands left running",
    start: async (fx) => {
      const p = await startLong(`${q(process.execPath)} ${q(BIN)} serve --port 0`, { cwd: fx.dir, env: walkthroughEnv(fx), listening: /listening on (http:\/\/127\.0\.0\.1:\d+)/ });
      onTestFinished(async () => {
        await p.stop();
      });
      fx.collectorUrl = p.url;
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Substitutions: each rewrites what a README line needs from outside this machine, with why.

interface Substitution {
  readonly reason: string;
  /** What the README line contains; a substitution listed for a command that no longer contains it fails. */
  readonly find: RegExp;
  /** The replacement for each match. */
  readonly replace?: (match: string, fx: Fixtures) => string;
  /** Environment added to the command. */
  readonly env?: (fx: Fixtures) => Record<string, string>;
  /** Fakes it needs, started before the command and stopped after it. */
  readonly fixtures?: readonly FixtureName[];
}

/** Single-quotes a path for bash. */
function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not running`);
  return value;
}

const SUBSTITUTIONS = {
  // Applied to every line that has them.
  "npx groundwatch": {
    reason: "npx would run the checkout's node_modules/.bin/groundwatch, i.e. bin/groundwatch.js on dist/ (the vitest global setup builds it); the walkthrough directory has no node_modules, so the binary is named directly",
    find: /\bnpx groundwatch\b/g,
    replace: () => `${q(process.execPath)} ${q(BIN)}`,
  },
  "npx tsx": {
    reason: "as for npx groundwatch: the checkout's tsx (a devDependency), named directly",
    find: /\bnpx tsx\b/g,
    replace: () => `${q(process.execPath)} ${q(TSX)}`,
  },
  // Listed per command.
  "--port 4319": {
    reason: "4319 may be taken by a developer's collector or by another test running in parallel; port 0 takes a free one, read back from the command's listening line",
    find: /--port 4319\b/,
    replace: () => "--port 0",
  },
  "port from the default or the config file": {
    reason: "as for --port 4319: the command binds 4319 by default (or from groundwatch.yaml's collector.port); a --port flag outranks both",
    find: /^npx groundwatch (?:serve|demo)\b(?!.*--port|.*--print-config).*$/,
    replace: (line) => `${line} --port 0`,
  },
  "PORT=3000": {
    reason: "as for --port 4319, for the example RAG service",
    find: /\bPORT=3000\b/,
    replace: () => "PORT=0",
  },
  "the RAG service's URL": {
    reason: "the example RAG service started by the previous line listens on a free port (PORT=0), read from its listening line",
    find: /http:\/\/127\.0\.0\.1:3000/,
    replace: (_m, fx) => need(fx.ragUrl, "the example RAG service"),
  },
  "the collector's URL": {
    reason: "the README's serve commands were stopped after their checks; doctor is pointed at a collector the test starts in the same way",
    find: /http:\/\/127\.0\.0\.1:4319/,
    replace: (_m, fx) => need(fx.collectorUrl, "the collector"),
    fixtures: ["collector"],
  },
  "Prometheus's URL": {
    reason: "no Prometheus listens on 9090 here, and a real one would have no data for a fixed past period; a fake answers the queries (a real Prometheus scraping the collector is tested in test/e2e/evidence.test.ts and test/e2e/prometheus.test.ts)",
    find: /http:\/\/127\.0\.0\.1:9090/,
    replace: (_m, fx) => need(fx.prometheusUrl, "the fake Prometheus"),
    fixtures: ["prometheus"],
  },
  "the OpenAI API": {
    reason: "no internet and no API key here: a local OpenAI-compatible server stands for api.openai.com (test/nli/judge*.test.ts test the judge's parsing, retries and budget)",
    find: /https:\/\/api\.openai\.com\/v1/,
    replace: (_m, fx) => need(fx.judge, "the judge server").url,
    fixtures: ["judge"],
  },
  "the Hugging Face Hub": {
    reason: "no internet here: HF_ENDPOINT points model pull at a local hub serving the small test model under the default repo's name (test/nli/hub.test.ts tests pull itself: resume, checksums, tokens, offline)",
    find: /^npx groundwatch model pull\b/,
    env: (fx) => ({ HF_ENDPOINT: need(fx.hubUrl, "the hub") }),
    fixtures: ["hub"],
  },
} satisfies Record<string, Substitution>;

type SubstitutionName = keyof typeof SUBSTITUTIONS;
const GLOBAL_SUBSTITUTIONS: readonly SubstitutionName[] = ["npx groundwatch", "npx tsx"];

/**
 * The environment of every command: the test's own, without anything that would change what the
 * README's commands do (a developer's GROUNDWATCH_*, HF_* or OTEL_* settings, or CI's job summary,
 * which eval appends to), and a Hugging Face cache of its own that starts empty, as on a machine
 * that never pulled a model. `export` lines in the README add to it.
 */
const sessionEnv: Record<string, string> = {};
function walkthroughEnv(fx: Fixtures): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(GROUNDWATCH_|HF_|OTEL_|GITHUB_STEP_SUMMARY$)/.test(k)) env[k] = v;
  return { ...env, HF_HOME: join(fx.dir, "hf-home"), ...sessionEnv };
}

// ---------------------------------------------------------------------------------------------
// Running commands

interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Every process group this file started, so none outlives it. */
const started = new Set<ChildProcess>();

function spawnShell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): { child: ChildProcess; out: () => { stdout: string; stderr: string }; exited: Promise<Finished> } {
  // Its own process group, so a timeout can stop the whole pipeline.
  const child = spawn("bash", ["-c", command], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  started.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const exited = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => {
      started.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, out: () => ({ stdout, stderr }), exited };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function runToEnd(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Finished> {
  const { child, out, exited } = spawnShell(command, options);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      const { stdout, stderr } = out();
      reject(new Error(`still running after ${options.timeoutMs} ms: ${command}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    }, options.timeoutMs);
  });
  try {
    return await Promise.race([exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface LongRunning {
  readonly url: string;
  output(): { stdout: string; stderr: string };
  /** Sends SIGTERM (what Ctrl-C's SIGINT also triggers) and resolves when the process has exited. */
  stop(): Promise<Finished>;
}

/** Starts a command that keeps running, and resolves once it printed the line with its URL. */
async function startLong(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; listening: RegExp; timeoutMs?: number }): Promise<LongRunning> {
  const { child, out, exited } = spawnShell(command, options);
  let finished: Finished | undefined;
  void exited.then((f) => (finished = f));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const { stdout, stderr } = out();
    const url = options.listening.exec(`${stdout}\n${stderr}`)?.[1];
    if (url) {
      return {
        url,
        output: out,
        stop: async () => {
          if (finished) return finished;
          // bash runs a simple command in its own place (exec), so the signal reaches the command itself.
          child.kill("SIGTERM");
          const timer = setTimeout(() => killGroup(child, "SIGKILL"), 15_000);
          try {
            return await exited;
          } finally {
            clearTimeout(timer);
          }
        },
      };
    }
    if (finished || Date.now() > deadline) {
      killGroup(child, "SIGKILL");
      throw new Error(`${finished ? `exited (${finished.code ?? finished.signal})` : "did not print its listening line"} before listening: ${command}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l.trim() !== "");
const json = <T = unknown>(text: string): T => JSON.parse(text) as T;
const file = (fx: Fixtures, name: string): string => readFileSync(join(fx.dir, name), "utf8");

/** The labels of the start-up banner the README shows (```text block opening with serve's listening line). */
function readmeBannerLabels(): string[] {
  const banner = BLOCKS.find((b) => b.lang === "text" && b.lines[0]?.text.startsWith("groundwatch serve: listening on"));
  if (!banner) throw new Error("README.md: the serve banner block is missing");
  return banner.lines.slice(1).map(({ text }) => /^ {2}(\S+(?: \S+)?) {2,}/.exec(text)?.[1] ?? `unparsed banner line: ${text}`);
}

/** Checks serve's banner against the README's, label by label. */
function expectReadmeBanner(stderr: string): void {
  for (const label of readmeBannerLabels()) expect(stderr, `banner line "${label}"`).toMatch(new RegExp(`\\n {2}${label} {2,}\\S`));
}

// ---------------------------------------------------------------------------------------------
// What each README command line must do

interface Context {
  readonly fx: Fixtures;
  /** Output so far (long-running commands: while running; others: at exit). */
  readonly stdout: string;
  readonly stderr: string;
  /** Long-running commands: the URL from their listening line. */
  readonly url: string;
}

interface Executed {
  /** The command line as the README has it, trailing comment removed (a RegExp must match exactly one line). */
  readonly command: string | RegExp;
  /**
   * "run" (default): runs to its end. "server": started, `listening` awaited, `probe` run, then
   * stopped with SIGTERM. "background": the same, but left running for the next lines of its code
   * block (as "in a second terminal") and stopped after the block's last one. "export": sets a
   * variable for the commands after it (each line runs in a shell of its own).
   */
  readonly kind?: "run" | "server" | "background" | "export";
  /** Exit code: at the end of a run, or after SIGTERM for long-running commands. */
  readonly exit: number;
  readonly substitutions?: readonly SubstitutionName[];
  /** Where it runs, when not in the walkthrough directory, and why. */
  readonly cwd?: { readonly dir: string; readonly reason: string };
  readonly listening?: RegExp;
  /** Long-running commands: what to ask of them while they run. */
  readonly probe?: (c: Context) => Promise<void>;
  /** After the command ended. */
  readonly check?: (c: Context) => void | Promise<void>;
  readonly timeoutMs?: number;
}

const SERVE_LISTENING = /groundwatch serve: listening on (http:\/\/127\.0\.0\.1:\d+)/;

async function probeCollector({ url }: Context): Promise<void> {
  expect((await get(`${url}/healthz`)).status).toBe(200);
  const ready = await get(`${url}/readyz`);
  expect(ready.status, ready.body).toBe(200);
  expect((await get(`${url}/metrics`)).status).toBe(200);
}

const EXECUTED: readonly Executed[] = [
  // Quick start
  {
    command: "npx groundwatch demo",
    kind: "server",
    exit: 0,
    substitutions: ["port from the default or the config file"],
    listening: /groundwatch demo: collector on (http:\/\/127\.0\.0\.1:\d+)/,
    probe: async ({ url }) => {
      expect((await get(`${url}/healthz`)).status).toBe(200);
      // Replayed traffic is scored and shows on /metrics.
      const end = Date.now() + 15_000;
      let metrics = "";
      while (!/groundwatch_evaluations_total\{/.test(metrics) && Date.now() < end) {
        metrics = (await get(`${url}/metrics`)).body;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(metrics).toMatch(/groundwatch_evaluations_total\{[^}]*groundwatch_route="\/api\/(returns|shipping|warranty)"/);
    },
    check: ({ stdout }) => {
      expect(stdout).toMatch(/replayed \d+\/120 observations — metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
      expect(stdout).toContain("backend: offline (triage) — TRIAGE-GRADE");
    },
  },
  {
    command: "npx groundwatch score examples/answers.jsonl --format table",
    exit: 0,
    check: ({ stdout, stderr }) => {
      expect(stdout).toContain("refund-wrong-days");
      expect(stdout).toContain("✗ contradicted");
      expect(stderr).toMatch(/9 scored \(\d+ grounded, \d+ ungrounded, 2 unscorable\), 0 invalid/);
    },
  },
  // Getting started
  {
    command: "npx groundwatch init",
    exit: 0,
    check: ({ fx }) => {
      expect(file(fx, "groundwatch.yaml")).toContain("scoring:");
      expect(lines(file(fx, "groundwatch-eval.jsonl"))).toHaveLength(6);
    },
  },
  {
    command: "npx groundwatch score groundwatch-eval.jsonl --format table",
    exit: 0,
    check: ({ stdout }) => expect(stdout).toContain("returns-window"),
  },
  {
    command: "npx groundwatch eval --set groundwatch-eval.jsonl --config groundwatch.yaml",
    exit: 1,
    check: ({ fx, stdout }) => {
      expect(stdout).toContain("## groundwatch eval — FAILED");
      const labels = lines(file(fx, "groundwatch-eval.jsonl")).map((l) => json<{ label: number }>(l).label);
      expect(labels.filter((l) => l === 0), "made-up answers in the init set").toHaveLength(3);
      for (const f of ["report.json", "report.md", "report.html", "junit.xml"]) expect(existsSync(join(fx.dir, "groundwatch-report", f)), f).toBe(true);
    },
  },
  {
    command: "npx groundwatch calibrate --set examples/labelled.jsonl --out calibration.json",
    exit: 0,
    check: ({ fx, stdout, stderr }) => {
      expect(stdout).toMatch(/^PASS: /m);
      // Issue 25: the demo says it is one, and the file records what it was fitted on.
      expect(stderr).toContain("is one of groundwatch's bundled examples: this run demonstrates the command, it does not calibrate your service");
      expect(json<{ dataset: { rows: number }; threshold: number }>(file(fx, "calibration.json"))).toMatchObject({ dataset: { rows: 40, path: "examples/labelled.jsonl", bundled: true }, threshold: expect.any(Number) as unknown });
    },
  },
  {
    command: "npx groundwatch serve --config groundwatch.yaml --calibration calibration.json",
    kind: "server",
    exit: 0,
    substitutions: ["port from the default or the config file"],
    listening: SERVE_LISTENING,
    probe: async (c) => {
      await probeCollector(c);
      const runbooks = await get(`${c.url}/runbooks`);
      expect(runbooks.status).toBe(200);
      expect(runbooks.type).toContain("text/html");
      expect(c.stderr).toMatch(/\n {2}threshold +[\d.]+ \(calibration\)/);
      expect(c.stderr).toMatch(/\n {2}WARNING +calibration: calibrated on groundwatch's bundled examples \(examples\/labelled\.jsonl\), not your data/);
    },
  },
  // The collector
  {
    command: "npx groundwatch serve --port 4319 --sample-rate 0.05 --calibration calibration.json",
    kind: "server",
    exit: 0,
    substitutions: ["--port 4319"],
    listening: SERVE_LISTENING,
    probe: async (c) => {
      await probeCollector(c);
      expectReadmeBanner(c.stderr);
      expect(c.stderr).toMatch(/\n {2}sampling +0\.05 by default/);
    },
  },
  {
    command: "npx groundwatch serve --log-evaluations --sample-rate 1",
    kind: "server",
    exit: 0,
    substitutions: ["port from the default or the config file"],
    listening: SERVE_LISTENING,
    probe: async (c) => {
      const posted = await get(`${c.url}/v1/observations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ route: "/api/answer", context: ["Express shipping costs $15."], answer: "Express shipping costs $15." }),
      });
      expect(posted.status).toBe(202);
    },
    check: ({ stderr }) => {
      expect(stderr).toMatch(/groundwatch serve: evaluation route=\/api\/answer grounded score [\d.]+/);
      expect(stderr).not.toContain("Express shipping costs");
    },
  },
  {
    command: "npx groundwatch serve --print-config",
    exit: 0,
    check: ({ stdout }) => expect(json(stdout)).toMatchObject({ collector: { host: "127.0.0.1", port: 4319 }, sampling: { default: 0.05 } }),
  },
  // Scoring answers
  {
    command: "npx groundwatch score examples/answers.jsonl --output scored.jsonl",
    exit: 0,
    check: ({ fx, stdout }) => {
      expect(stdout).toBe("");
      expect(lines(file(fx, "scored.jsonl")).map((l) => json<{ id: string }>(l).id)).toHaveLength(9);
    },
  },
  {
    command: "cat examples/answers.jsonl | npx groundwatch score --format json",
    exit: 0,
    check: ({ stdout }) => expect(json<unknown[]>(stdout)).toHaveLength(9),
  },
  {
    command: "npx groundwatch score examples/eval/deepeval.jsonl --format table",
    exit: 0,
    check: ({ stderr }) => expect(stderr).toMatch(/3 scored \(\d+ grounded, \d+ ungrounded, \d+ unscorable\), 0 invalid/),
  },
  // Semantic entropy
  {
    command: "npx groundwatch entropy examples/entropy-samples.jsonl --explain",
    exit: 0,
    check: ({ stdout }) => {
      for (const id of ["consistent", "scattered", "identical"]) expect(stdout).toContain(`${id} — `);
      expect(stdout).toContain("all 5 samples are identical");
    },
  },
  {
    command: `npx groundwatch doctor --sampler-cmd 'yes "It opened in 1998." | head -n "$GROUNDWATCH_SAMPLES"'`,
    exit: 1,
    check: ({ stdout }) => {
      expect(stdout).toMatch(/\[PASS\] sample count +5 samples/);
      expect(stdout).toMatch(/\[FAIL\] sample diversity +5 samples, 1 distinct string/);
    },
  },
  // Release gate and calibration
  {
    command: "npx groundwatch calibrate --set examples/labelled.jsonl --criterion youden --out calibration.json",
    exit: 0,
    check: ({ fx }) => expect(json(file(fx, "calibration.json"))).toMatchObject({ criterion: "youden", verdict: "pass" }),
  },
  {
    command: "npx groundwatch eval --set examples/eval-set.jsonl --min-grounded-share 0.9 --max-hallucination-rate 0.05 --calibration calibration.json",
    exit: 1,
    check: ({ stdout }) => {
      expect(stdout).toContain("## groundwatch eval — FAILED");
      expect(stdout).toContain("(flag --min-grounded-share)");
      expect(stdout).toContain("(calibration file calibration.json)");
      expect(stdout).toMatch(/\| membership-invented \| ungrounded \|/);
    },
  },
  {
    command: "npx groundwatch eval --set examples/eval-set.jsonl --calibration calibration.json --no-gate --out baseline",
    exit: 0,
    check: ({ fx, stdout }) => {
      expect(stdout).toContain("report only, no gate");
      expect(json(file(fx, "baseline/report.json"))).toMatchObject({ rows: expect.any(Array) as unknown });
    },
  },
  {
    command: "npx groundwatch eval --set examples/eval-set.jsonl --calibration calibration.json --no-gate --baseline baseline/report.json",
    exit: 0,
    check: ({ stdout }) => expect(stdout).toMatch(/\| regressions vs baseline \| 0 \|/),
  },
  {
    command: "npx groundwatch eval --set examples/eval/ragas.json --out ragas-report",
    exit: 1,
    check: ({ fx }) => expect(json(file(fx, "ragas-report/report.json"))).toMatchObject({ summary: expect.anything() as unknown, rows: [{}, {}, {}] }),
  },
  {
    command: "npx groundwatch eval --set examples/eval/deepeval.jsonl --no-gate --out deepeval-report",
    exit: 0,
    check: ({ fx }) => expect(existsSync(join(fx.dir, "deepeval-report", "junit.xml"))).toBe(true),
  },
  {
    command: "OTEL_SDK_DISABLED=true PORT=3000 npx tsx examples/rag-service/server.ts",
    kind: "background",
    exit: 0,
    substitutions: ["PORT=3000"],
    cwd: { dir: ROOT, reason: "the example imports groundwatch from ../../src, so it runs in the checkout, as the README says (from a clone); it writes nothing" },
    listening: /rag-service listening on (http:\/\/127\.0\.0\.1:\d+)/,
    probe: async ({ fx, url }) => {
      fx.ragUrl = url;
      const reply = json<{ answer: string; sources: string[] }>((await get(`${url}/api/ask`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question: "Is standard shipping free?" }) })).body);
      expect(reply.answer).toEqual(expect.any(String));
      expect(reply.sources.length).toBeGreaterThan(0);
    },
  },
  {
    command: "npx groundwatch eval --set examples/eval/questions.jsonl --target http://127.0.0.1:3000/api/ask --context-path sources",
    exit: 1,
    substitutions: ["the RAG service's URL"],
    check: ({ fx, stdout }) => {
      expect(stdout).toContain("## groundwatch eval — FAILED");
      const report = json<{ rows: Array<{ contextFrom?: string; answer: string }> }>(file(fx, "groundwatch-report/report.json"));
      expect(report.rows).toHaveLength(8);
      // Every answer and its documents came from the service's replies.
      for (const row of report.rows) expect(row).toMatchObject({ contextFrom: "reply", answer: expect.stringMatching(/\S/) as unknown });
    },
  },
  // Evidence and preflight. The evidence line is matched by pattern: its period flags are being reworked.
  {
    command: /^npx groundwatch evidence --prometheus http:\/\/127\.0\.0\.1:9090 .*--calibration calibration\.json --out evidence\.html --pdf$/,
    exit: 0,
    substitutions: ["Prometheus's URL"],
    timeoutMs: 90_000,
    check: ({ fx }) => {
      const html = file(fx, "evidence.html");
      expect(html).toContain("<td>/api/answer</td>");
      expect(html).toContain("AUROC");
      expect(readFileSync(join(fx.dir, "evidence.pdf")).subarray(0, 5).toString()).toBe("%PDF-");
    },
  },
  {
    command: "npx groundwatch doctor --calibration calibration.json --collector http://127.0.0.1:4319 --prometheus http://127.0.0.1:9090",
    exit: 0,
    substitutions: ["the collector's URL", "Prometheus's URL"],
    check: ({ stdout }) => {
      // Issue 25: the README's calibration is the demo's, and doctor says so instead of passing it.
      expect(stdout).toMatch(/\[WARN\] threshold +calibrated [\d.]+ from 40 labels/);
      expect(stdout).toMatch(/\[WARN\] calibration data +calibrated on groundwatch's bundled examples/);
      expect(stdout).toMatch(/\[PASS\] collector/);
      expect(stdout).toMatch(/\[PASS\] groundwatch series/);
      expect(stdout).toMatch(/^READY/m);
    },
  },
  // A local model
  {
    command: "npx groundwatch model pull",
    exit: 0,
    substitutions: ["the Hugging Face Hub"],
    check: ({ fx, stdout }) => {
      expect(stdout).toContain("downloaded onnx/model_quantized.onnx");
      expect(existsSync(join(fx.dir, "hf-home", "hub", "models--Xenova--nli-deberta-v3-xsmall"))).toBe(true);
    },
  },
  {
    command: "npx groundwatch model pull Xenova/nli-deberta-v3-xsmall --variant fp32",
    exit: 0,
    substitutions: ["the Hugging Face Hub"],
    check: ({ stdout }) => expect(stdout).toContain("downloaded onnx/model.onnx"),
  },
  {
    command: "npx groundwatch model list",
    exit: 0,
    check: ({ stdout }) => expect(stdout).toContain("Xenova/nli-deberta-v3-xsmall@main"),
  },
  {
    command: "npx groundwatch model info Xenova/nli-deberta-v3-xsmall",
    exit: 0,
    check: ({ stdout }) => {
      expect(stdout).toMatch(/labels: +0:contradiction 1:entailment 2:neutral/);
      expect(stdout).toMatch(/inputs: +input_ids, attention_mask, token_type_ids/);
    },
  },
  {
    command: "npx groundwatch nli examples/nli-pairs.jsonl --model Xenova/nli-deberta-v3-xsmall",
    exit: 0,
    check: ({ stdout, stderr }) => {
      expect(stderr).toContain("backend onnx");
      const rows = lines(stdout).map((l) => json<{ id: string; label: string }>(l));
      expect(rows.map((r) => r.id)).toEqual(["entails", "contradicts", "neutral", "number"]);
      for (const r of rows) expect(["entailment", "neutral", "contradiction"]).toContain(r.label);
    },
  },
  // An LLM judge
  { command: "export GROUNDWATCH_JUDGE_API_KEY=...", kind: "export", exit: 0 },
  {
    command: "npx groundwatch score examples/answers.jsonl --backend judge --judge-url https://api.openai.com/v1 --judge-model gpt-4o-mini",
    exit: 0,
    substitutions: ["the OpenAI API"],
    check: ({ fx, stdout }) => {
      const judge = need(fx.judge, "the judge server");
      expect(judge.requests.length).toBeGreaterThan(0);
      // The key exported on the line before, sent as the bearer token.
      for (const r of judge.requests) expect(r).toMatchObject({ model: "gpt-4o-mini", temperature: 0, authorization: "Bearer ..." });
      const rows = lines(stdout).map((l) => json<{ verdict: string; backend?: { name: string } }>(l));
      expect(rows).toHaveLength(9);
      for (const r of rows.filter((r) => r.verdict !== "unscorable")) expect(r.backend?.name).toBe("judge");
    },
  },
];

/** Lines not run here, and why. Keep this list short: a line belongs here only when it cannot run in a test at all. */
const NOT_EXECUTED: ReadonlyArray<{ readonly command: string; readonly reason: string }> = [
  { command: "npm install groundwatch", reason: "needs the npm registry; test/e2e/package.test.ts installs the packed tarball into a fresh project and runs `npx groundwatch` (the demo included) from it" },
  { command: "npm install groundwatch @opentelemetry/api @opentelemetry/sdk-node @opentelemetry/instrumentation-http express", reason: "needs the npm registry; test/e2e/package.test.ts installs these into a fresh project with the packed tarball, compiles the quick start and runs it" },
  { command: "OTEL_EXPORTER_OTLP_ENDPOINT=http://your-otel-collector:4318 node --import ./tracing.js server.js", reason: "runs the quick start compiled in a user's project; test/e2e/package.test.ts compiles it in a fresh project with the packed tarball and runs this line there (node --import ./out/tracing.js out/server.js) against a local OTLP receiver" },
  { command: "npm install onnxruntime-node", reason: "needs the npm registry and downloads CUDA files; the runtime is already installed here (a devDependency), and test/nli/onnx-runtime.test.ts checks the errors that name this command" },
  { command: "ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node", reason: "as npm install onnxruntime-node" },
  { command: "npm ci && npm start", reason: "installs the dependencies from the registry into this clone; CI (.ci/run) runs `npm ci` on a fresh clone, and `npm start` is `groundwatch demo`, which the quick start's `npx groundwatch demo` line runs below" },
  { command: "npm test", reason: "the test suite this file is part of; CI runs it" },
  { command: "export GROUNDWATCH_TOKEN=$(openssl rand -hex 16) GRAFANA_ADMIN_PASSWORD=$(openssl rand -hex 16)", reason: "sets the two variables docker-compose.yml requires, for the docker-compose line after it; test/deploy/deploy.test.ts runs `docker-compose config` with both set, and without each (refused, naming it)" },
  { command: "docker-compose up", reason: "there is no Docker engine where the tests run; test/deploy/deploy.test.ts validates the stack's files and test/e2e/alerting.test.ts runs its pieces without Docker" },
];

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
  const fx: Fixtures = { dir: "" };
  /** Background commands, by code block, stopped after the block's last line. */
  const background = new Map<number, Array<{ text: string; exit: number; process: LongRunning }>>();

  beforeAll(() => {
    fx.dir = mkdtempSync(join(tmpdir(), "groundwatch-readme-"));
    cpSync(join(ROOT, "examples"), join(fx.dir, "examples"), { recursive: true });
  });
  afterAll(() => {
    for (const child of started) killGroup(child, "SIGKILL");
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
          sessionEnv[m[1]] = m[2];
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
          const p = await startLong(command, { cwd, env, listening: entry.listening ?? /(?!)/, timeoutMs });
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

        const end = await runToEnd(command, { cwd, env, timeoutMs });
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
