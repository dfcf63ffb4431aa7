/**
 * How long `groundwatch score` takes on inputs that once stalled it: a 1 MB single token
 * (in the answer, in a document), 200 KB base64 and hex blobs inside a document, a 500 KB
 * "and"-chain and a 500 KB semicolon list as the answer, spelled-out number words, 1,500
 * distinct resamples; a "(source:" marker followed by a run of whitespace (8 KB and 49 KB, with
 * named documents) and document URLs of 80 KB and 1.5 MB of slashes (issue 24). Each case is one
 * input row scored by the real binary in a child process (offline backend), with a per-case
 * timeout: a case still running is killed and reported as "> N s" instead of hanging the benchmark.
 *
 * Collector cases (issue 24) run `groundwatch serve` from the same root: one OTLP log record whose
 * gen_ai.input.messages holds 80,000 distinct messages, posted while /healthz is polled; reported
 * are the request's time and the slowest /healthz answer meanwhile (a liveness probe times out at 3 s).
 *
 *   npx tsx bench/pathological.ts [--root DIR] [--timeout 120] [--case NAME[,NAME]] [--env K=V ...] [--scale F] [--in-process]
 *
 * --root scores with another checkout's build (e.g. a `git worktree` of the previous commit
 * with `dist/` built), for before/after figures. --env passes extra environment (repeatable),
 * e.g. --env GROUNDWATCH_MAX_ANSWER_CHARS=1000000 to see the work behind the caps grow.
 * --scale multiplies the generated sizes (to check that time grows linearly with them).
 * --in-process scores the rows with this checkout's sources in this process instead (no
 * timeout: for profiling with `node --cpu-prof --import tsx bench/pathological.ts --in-process`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { flag } from "./args.ts";
import { rng } from "../src/core/rng.ts";

const WORDS = "river tower budget council museum refund station library ticket harbour bridge engine forest garden market village school doctor patient winter summer".split(" ");
const NUMBER_WORDS = "one two three four five six seven eight nine ten eleven twelve twenty thirty forty hundred thousand million and".split(" ");

function flags(name: string): string[] {
  const out: string[] = [];
  process.argv.forEach((a, i) => {
    const v = process.argv[i + 1];
    if (a === `--${name}` && v !== undefined) out.push(v);
  });
  return out;
}

/** Multiplies every generated size (the sample count excepted), to check that time grows linearly. */
const SCALE = Number(flag("scale") ?? "1");

const r = rng(7);
const pick = (list: readonly string[]): string => list[Math.floor(r() * list.length)] ?? list[0] ?? "";

/** `n` characters of text built by repeating `make()` pieces. */
function fill(size: number, make: () => string): string {
  const n = Math.round(size * SCALE);
  const parts: string[] = [];
  let length = 0;
  while (length < n) {
    const p = make();
    parts.push(p);
    length += p.length;
  }
  return parts.join("").slice(0, n);
}

const DOC = "The museum opens at nine in the morning and closes at six. Entry costs ten euros; children under twelve enter free. The library beside the station lends books for three weeks.";
const ANSWER = "The museum opens at nine in the morning. Entry costs ten euros.";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX = "0123456789abcdef";

interface Case {
  readonly name: string;
  readonly what: string;
  readonly row: () => Record<string, unknown>;
}

const CASES: readonly Case[] = [
  { name: "baseline", what: "one ordinary row (start-up and model load)", row: () => ({ context: [DOC], answer: ANSWER }) },
  { name: "answer-token-1mb", what: "answer: one 1 MB token", row: () => ({ context: [DOC], answer: `The museum opens at ${fill(1e6, () => pick(WORDS))}.` }) },
  { name: "context-token-1mb", what: "a document holding one 1 MB token", row: () => ({ context: [`${DOC} ${fill(1e6, () => pick(WORDS))} ${DOC}`], answer: ANSWER }) },
  { name: "base64-200kb", what: "a document with a 200 KB base64 blob", row: () => ({ context: [`${DOC} Attachment: ${fill(200e3, () => pick([...BASE64]))}== ${DOC}`], answer: ANSWER }) },
  { name: "hex-200kb", what: "a document with a 200 KB hex blob", row: () => ({ context: [`${DOC} Checksum 0x${fill(200e3, () => pick([...HEX]))} ${DOC}`], answer: ANSWER }) },
  { name: "and-chain-500kb", what: 'answer: 500 KB "a and b and c and …"', row: () => ({ context: [DOC], answer: `The ${fill(500e3, () => `${pick(WORDS)} and `)}museum opens at nine.` }) },
  { name: "semicolons-500kb", what: "answer: 500 KB semicolon list of clauses", row: () => ({ context: [DOC], answer: fill(500e3, () => `the ${pick(WORDS)} opens at ${pick(NUMBER_WORDS)}; `) }) },
  { name: "number-words-200kb", what: 'answer and document: 200 KB of "one two … thousand …"', row: () => ({ context: [`${DOC} ${fill(200e3, () => `${pick(NUMBER_WORDS)} `)}`], answer: fill(200e3, () => `${pick(NUMBER_WORDS)} `) }) },
  // Issue 24: the citation parser backtracked on "(source:" + whitespace when documents carry names.
  { name: "citation-ws-8kb", what: 'answer: "(source:" + 8 KB of spaces, named documents', row: () => ({ context: [{ text: DOC, id: "museum" }], answer: `${ANSWER} (source:${" ".repeat(Math.round(8e3 * SCALE))}` }) },
  { name: "citation-ws-49kb", what: 'answer: "[sources :" + 49 KB of spaces, named documents', row: () => ({ context: [{ text: DOC, id: "museum" }], answer: `${ANSWER} [sources :${" ".repeat(Math.round(49e3 * SCALE))}` }) },
  // Issue 24: normalising a document's URL (trailing slashes) was quadratic in a run of slashes.
  { name: "url-slashes-80kb", what: "a document URL of 80 KB of slashes, cited by name", row: () => ({ context: [{ text: DOC, url: `https://x${"/".repeat(Math.round(80e3 * SCALE))}y` }], answer: `${ANSWER} (source: museum.md)` }) },
  { name: "url-slashes-1.5mb", what: "a document URL of 1.5 MB of slashes, cited by name", row: () => ({ context: [{ text: DOC, url: `https://x${"/".repeat(Math.round(1.5e6 * SCALE))}y` }], answer: `${ANSWER} (source: museum.md)` }) },
  {
    name: "samples-1500",
    what: "1,500 distinct resamples",
    row: () => ({ context: [DOC], answer: ANSWER, question: "When does the museum open?", samples: Array.from({ length: 1500 }, (_, i) => `The ${pick(WORDS)} opens at ${i % 12 + 1} and the ${pick(WORDS)} costs ${i} euros.`) }),
  },
];

interface Outcome {
  readonly seconds: number;
  readonly timedOut: boolean;
  readonly code: number | null;
  readonly peakMb: number;
  readonly verdict: string;
  readonly limits: string;
}

function run(root: string, input: string, output: string, timeoutS: number, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((done) => {
    const started = performance.now();
    // Its own process group, so a timeout kills the CLI and anything it started.
    const child = spawn(process.execPath, [join(root, "bin", "groundwatch.js"), "score", "--input", input, "--output", output, "--backend", "offline"], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "ignore"],
      detached: true,
    });
    let timedOut = false;
    let peak = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m?.[1]) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {
        // exited between polls
      }
    }, 100);
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, timeoutS * 1000);
    child.on("close", (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      let verdict = "—";
      let limits = "—";
      if (!timedOut && existsSync(output) && statSync(output).size > 0) {
        const row = JSON.parse(readFileSync(output, "utf8").trim().split("\n")[0] ?? "{}") as { verdict?: string; reason?: string; limits?: string[]; combined?: { verdict: string } };
        verdict = `${row.verdict ?? "?"}${row.reason ? ` (${row.reason})` : ""}${row.combined ? `, combined ${row.combined.verdict}` : ""}`;
        limits = row.limits && row.limits.length > 0 ? row.limits.join(", ") : "none";
      }
      done({ seconds, timedOut, code, peakMb: peak, verdict, limits });
    });
  });
}

/**
 * One OTLP/JSON log record (a GenAI operation-details event) whose gen_ai.input.messages holds `n`
 * distinct messages, as a structured value (an array of {role, content} kvlists, as an
 * instrumentation recording messages as AnyValue sends them; a JSON string over 2 MB is not parsed).
 */
function messagesRecord(n: number): string {
  const kv = (key: string, value: string): object => ({ key, value: { stringValue: value } });
  const messages = { arrayValue: { values: Array.from({ length: n }, (_, i) => ({ kvlistValue: { values: [kv("role", "user"), kv("content", `q${i}`)] } })) } };
  const record = { timeUnixNano: "1", traceId: "5b8efff798038103d269b633813fc60c", spanId: "0000000000000001", eventName: "gen_ai.client.inference.operation.details", attributes: [{ key: "gen_ai.input.messages", value: messages }] };
  return JSON.stringify({ resourceLogs: [{ resource: { attributes: [kv("service.name", "chat")] }, scopeLogs: [{ logRecords: [record] }] }] });
}

/** Starts `groundwatch serve` from `root` (bodyLimit 16mb) and resolves with its URL and a stop function. */
async function startServe(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<{ url: string; pid: number; stop: () => void }> {
  const config = join(dir, "serve.json");
  writeFileSync(config, JSON.stringify({ collector: { bodyLimit: "16mb" } }));
  const child = spawn(process.execPath, [join(root, "bin", "groundwatch.js"), "serve", "--port", "0", "--config", config, "--backend", "offline"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const seen = (d: Buffer): void => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+?) /.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  return { url, pid: child.pid ?? 0, stop: () => (child.pid !== undefined ? process.kill(-child.pid, "SIGKILL") : undefined) };
}

interface ServeCase {
  readonly name: string;
  readonly what: string;
  readonly body: () => string;
}

const SERVE_CASES: readonly ServeCase[] = [
  { name: "genai-messages-20k", what: "one log record, 20,000 distinct GenAI input messages", body: () => messagesRecord(Math.round(20_000 * SCALE)) },
  { name: "genai-messages-80k", what: "one log record, 80,000 distinct GenAI input messages", body: () => messagesRecord(Math.round(80_000 * SCALE)) },
];

/** Posts the case's body to /v1/logs while /healthz is polled every 50 ms; the request's time and the slowest /healthz answer. */
async function runServeCase(url: string, c: ServeCase, timeoutS: number): Promise<{ requestS: number; status: number | string; healthMaxS: number; polls: number }> {
  const body = c.body();
  let done = false;
  let healthMax = 0;
  let polls = 0;
  const poll = (async () => {
    while (!done) {
      const t0 = performance.now();
      await fetch(`${url}/healthz`)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
      healthMax = Math.max(healthMax, (performance.now() - t0) / 1000);
      polls++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t0 = performance.now();
  let status: number | string;
  try {
    const res = await fetch(`${url}/v1/logs`, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(timeoutS * 1000) });
    await res.arrayBuffer();
    status = res.status;
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code;
    status = (error as Error).name === "TimeoutError" ? `> ${timeoutS} s` : `${(error as Error).message}${cause ? ` (${cause})` : ""}`;
  }
  const requestS = (performance.now() - t0) / 1000;
  done = true;
  await poll;
  return { requestS, status, healthMaxS: healthMax, polls };
}

/** Scores each case with this checkout's sources in this process: where the time goes, without start-up. */
async function inProcess(only: readonly string[] | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const { createScorer } = await import("../src/sdk/create-scorer.ts");
  const scorer = await createScorer({ backend: "offline" }, { env });
  console.log("| case | row size | score() time | verdict | limits |");
  console.log("|---|---|---|---|---|");
  for (const c of CASES) {
    if (only && !only.includes(c.name)) continue;
    const row = c.row() as { context: string[]; answer: string; question?: string; samples?: string[] };
    const t0 = performance.now();
    const r = await scorer.score(row);
    const ms = performance.now() - t0;
    console.log(`| ${c.name} | ${(JSON.stringify(row).length / 1e3).toFixed(0)} KB | ${ms.toFixed(0)} ms | ${r.verdict}${r.combined ? `, combined ${r.combined.verdict}` : ""} | ${r.limits.join(", ") || "none"} |`);
  }
  await scorer.close();
}

async function main(): Promise<void> {
  const root = resolve(flag("root") ?? join(import.meta.dirname, ".."));
  const timeoutS = Number(flag("timeout") ?? "120");
  const only = flag("case")?.split(",");
  if (process.argv.includes("--in-process")) {
    const env: NodeJS.ProcessEnv = {};
    for (const kv of flags("env")) {
      const eq = kv.indexOf("=");
      if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    return inProcess(only, env);
  }
  if (!existsSync(join(root, "dist", "cli", "run.js"))) throw new Error(`${root}/dist is not built: run \`npx tsx scripts/build.ts\` there first`);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HF_HOME: "/nonexistent/groundwatch-bench-hf-home" };
  for (const kv of flags("env")) {
    const eq = kv.indexOf("=");
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const dir = mkdtempSync(join(tmpdir(), "gw-pathological-"));
  try {
    console.log(`root ${root}; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), Node ${process.version}; timeout ${timeoutS} s per case${flags("env").length > 0 ? `; env ${flags("env").join(" ")}` : ""}\n`);
    console.log("| case | input | row size | wall time | peak RSS | exit | verdict | limits |");
    console.log("|---|---|---|---|---|---|---|---|");
    for (const c of CASES) {
      if (only && !only.includes(c.name)) continue;
      const input = join(dir, `${c.name}.jsonl`);
      const output = join(dir, `${c.name}.out.jsonl`);
      writeFileSync(input, JSON.stringify({ id: c.name, ...c.row() }) + "\n");
      const o = await run(root, input, output, timeoutS, env);
      const time = o.timedOut ? `> ${timeoutS} s` : `${o.seconds.toFixed(1)} s`;
      console.log(`| ${c.name} | ${c.what} | ${(statSync(input).size / 1e3).toFixed(0)} KB | ${time} | ${o.peakMb.toFixed(0)} MB | ${o.timedOut ? "killed" : o.code} | ${o.verdict} | ${o.limits} |`);
    }
    const serveCases = SERVE_CASES.filter((c) => !only || only.includes(c.name));
    if (serveCases.length > 0) {
      console.log("\n| collector case | input | body | request time | status | slowest /healthz meanwhile | /healthz polls |");
      console.log("|---|---|---|---|---|---|---|");
      for (const c of serveCases) {
        const serve = await startServe(root, dir, env);
        try {
          const o = await runServeCase(serve.url, c, timeoutS);
          console.log(`| ${c.name} | ${c.what} | ${(c.body().length / 1e6).toFixed(2)} MB | ${o.requestS.toFixed(2)} s | ${o.status} | ${o.healthMaxS.toFixed(2)} s | ${o.polls} |`);
        } finally {
          serve.stop();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
