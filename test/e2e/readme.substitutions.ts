// The README walkthrough (readme.test.ts): the fakes that stand for what its commands reach outside
// this machine, and the substitutions that point the commands at them, each with its reason.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { startFakePrometheus } from "../helpers/fake-prometheus.ts";
import { startHubServer } from "../helpers/hub-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import type { JudgeRequest } from "../helpers/judge-server.ts";
import { startShell } from "../helpers/processes.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "groundwatch.js");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const FIXTURE_MODEL = join(ROOT, "test", "fixtures", "models", "bert-wordpiece");

export interface Fixtures {
  /** The walkthrough directory: a copy of examples/ and whatever earlier commands wrote. */
  dir: string;
  hubUrl?: string;
  judge?: { url: string; requests: JudgeRequest[] };
  prometheusUrl?: string;
  collectorUrl?: string;
  /** Where the example RAG service (a background command) listens. */
  ragUrl?: string;
  /** Variables the README's `export` lines set, for the commands after them. */
  readonly sessionEnv: Record<string, string>;
}

export type FixtureName = "hub" | "judge" | "prometheus" | "collector";

export const FIXTURES: Record<FixtureName, { readonly what: string; readonly start: (fx: Fixtures) => Promise<void> }> = {
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
      const p = await startShell(`${q(process.execPath)} ${q(BIN)} serve --port 0`, { cwd: fx.dir, env: walkthroughEnv(fx), listening: /listening on (http:\/\/127\.0\.0\.1:\d+)/ });
      onTestFinished(async () => {
        await p.stop();
      });
      fx.collectorUrl = p.url;
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Substitutions: each rewrites what a README line needs from outside this machine, with why.

export interface Substitution {
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
export function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not running`);
  return value;
}

export const SUBSTITUTIONS = {
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

export type SubstitutionName = keyof typeof SUBSTITUTIONS;
export const GLOBAL_SUBSTITUTIONS: readonly SubstitutionName[] = ["npx groundwatch", "npx tsx"];

/**
 * The environment of every command: the test's own, without anything that would change what the
 * README's commands do (a developer's GROUNDWATCH_*, HF_* or OTEL_* settings, or CI's job summary,
 * which eval appends to), and a Hugging Face cache of its own that starts empty, as on a machine
 * that never pulled a model. `export` lines in the README add to it.
 */
export function walkthroughEnv(fx: Fixtures): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(GROUNDWATCH_|HF_|OTEL_|GITHUB_STEP_SUMMARY$)/.test(k)) env[k] = v;
  return { ...env, HF_HOME: join(fx.dir, "hf-home"), ...fx.sessionEnv };
}
