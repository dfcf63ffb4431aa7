import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { importOnnxRuntime } from "../../src/nli/onnx/import-runtime.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

// The commands import onnxruntime-node through this module; a test can make it fail the way a
// missing package does. Inference workers load their own copy and are never affected.
vi.mock("../../src/nli/onnx/import-runtime.ts", async (importOriginal) => {
  const real = await importOriginal<{ importOnnxRuntime: typeof importOnnxRuntime }>();
  return { importOnnxRuntime: vi.fn(real.importOnnxRuntime) };
});

/** Makes the runtime import fail as if onnxruntime-node were not installed, for this test only. */
function withoutRuntime(): void {
  const mock = vi.mocked(importOnnxRuntime);
  mock.mockImplementation(() => Promise.reject(Object.assign(new Error("Cannot find package 'onnxruntime-node' imported from /srv/app/node_modules/groundwatch/dist/nli/onnx/import-runtime.js"), { code: "ERR_MODULE_NOT_FOUND" })));
  onTestFinished(async () => {
    const real = await vi.importActual<{ importOnnxRuntime: typeof importOnnxRuntime }>("../../src/nli/onnx/import-runtime.ts");
    mock.mockImplementation(real.importOnnxRuntime);
  });
}

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const INSTALL_FIX = "-> npm install onnxruntime-node (on CPU-only machines, or where only the npm registry is reachable: ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node)";

const jsonl = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
const Q = "In what year was the Zorbex Protocol ratified?";

describe("groundwatch entropy", () => {
  it("writes one result per row with clusters, judgements and the fail-closed flags", async () => {
    const rows = [
      { id: "spread", question: Q, samples: ["It was 1998.", "It was ratified in 2004.", "1976.", "Around 2011."] },
      { id: "same", question: Q, samples: ["1998.", "1998.", "1998."] },
      { id: "nan", question: Q, samples: ["It was 1998.", "It was 2004."], logprobs: [[-1, null], [-2]] },
    ];
    const run = await runCli(["entropy", "--input", "-", "--backend", "offline"], { stdin: jsonl(rows) });
    expect(run.code).toBe(0);
    const out = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out.map((r) => r.id)).toEqual(["spread", "same", "nan"]);
    expect(out[0]).toMatchObject({ reliable: true, estimator: "discrete", backend: { name: "offline" } });
    expect((out[0]?.clusters as unknown[]).length).toBeGreaterThan(1);
    expect(out[0]?.judgements).toBeInstanceOf(Array);
    expect(out[1]).toMatchObject({ reliable: false, entropy: 0 });
    expect(String((out[1]?.reasons as string[])[0])).toContain("temperature 0");
    expect(out[2]).toMatchObject({ reliable: false, estimator: "discrete" });
    expect(run.stderr).toContain("3 measured (2 unreliable, 0 abstained), 0 invalid");
  });

  it("prints an audit trail with --explain, stripping escapes and bidi controls from model text", async () => {
    const rows = [{ id: "x", question: Q, samples: ["It was \u001b[31m1998\u001b[0m.", "It was 2004.\u202e", "I don't know."] }];
    const run = await runCli(["entropy", "--input", "-", "--backend", "offline", "--explain"], { stdin: jsonl(rows) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("meanings:");
    expect(run.stdout).toMatch(/#+\.* 0\.\d{3} {2}n=1/);
    expect(run.stdout).toContain("(declined) I don't know.");
    expect(run.stdout).toContain("verdict: ");
    expect(run.stdout).not.toContain("\u001b");
    expect(run.stdout).not.toContain("\u202e");
  });

  it("checks each claim of a row's answer against the samples and explains which are unstable", async () => {
    const question = "Where was the Zorbex Protocol signed, and when was it ratified?";
    const samples = ["The Zorbex Protocol was signed in Geneva and ratified in 2004.", "It was signed in Geneva; it was ratified in 1976.", "Signed in Geneva, ratified in 2011.", "The protocol was signed in Geneva and ratified in 1987.", "It was signed in Geneva and ratified in 1998."];
    const rows = [
      { id: "answered", question, samples, answer: "The Zorbex Protocol was signed in Geneva. It was ratified in 1998." },
      { id: "bare", question, samples },
    ];
    const explain = await runCli(["entropy", "--input", "-", "--backend", "offline", "--explain"], { stdin: jsonl(rows) });
    expect(explain.code).toBe(0);
    expect(explain.stdout).toContain("claims of the answer, checked against 5 samples (unstable: entailed by fewer than 50% of them):");
    expect(explain.stdout).toMatch(/✓ {2}5\/5 entail, 0 contradict +"The Zorbex Protocol was signed in Geneva\."\n/);
    expect(explain.stdout).toMatch(/✗ {2}1\/5 entail, 4 contradict +"It was ratified in 1998\." {2}← UNSTABLE\n/);
    expect(explain.stdout).toContain("claim stability: UNSTABLE — 1 of 2 claims entailed by fewer than 50% of the samples: the model would not say it again");
    expect(explain.stdout).toContain("entailment calls 10 (every claim against every sample, both ways: 20)");
    // The row without an answer reads as before.
    expect(explain.stdout.match(/claims of the answer/g)).toHaveLength(1);
    expect(explain.stderr).toContain("2 measured (0 unreliable, 0 abstained), 0 invalid; 1 of 1 answers with unstable claims");

    const json = await runCli(["entropy", "--input", "-", "--backend", "offline", "--unstable-share", "0.1"], { stdin: jsonl(rows) });
    const [answered, bare] = json.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect((answered?.claims as Array<{ resampleSupport: unknown }>).map((c) => c.resampleSupport)).toEqual([
      { supported: 5, contradicted: 0, of: 5 },
      { supported: 1, contradicted: 4, of: 5 },
    ]);
    // 1 of 5 is not below 10%.
    expect(answered?.unstableClaims).toEqual([]);
    expect(answered?.claimConsistency).toMatchObject({ unstableShare: 0.1, claims: 2, measured: 2, reliable: true });
    expect(bare).not.toHaveProperty("claims");
    expect(bare).not.toHaveProperty("unstableClaims");
  });

  it("explains that identical samples are no evidence of claim stability", async () => {
    const rows = [{ id: "same", question: Q, samples: ["It was ratified in 1998.", "It was ratified in 1998.", "It was ratified in 1998."], answer: "It was ratified in 1998." }];
    const run = await runCli(["entropy", "--input", "-", "--backend", "offline", "--explain"], { stdin: jsonl(rows) });
    expect(run.stdout).toMatch(/\? {2}3\/3 entail, 0 contradict +"It was ratified in 1998\."/);
    expect(run.stdout).toContain("claim stability: UNRELIABLE — not evidence of stability: all 3 samples are identical");
  });

  it("rejects a bad --unstable-share and a non-string answer", async () => {
    const flag = await runCli(["entropy", "--input", "-", "--backend", "offline", "--unstable-share", "2"], { stdin: "" });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--unstable-share must be a number from 0 to 1 (got "2")');
    const row = await runCli(["entropy", "--input", "-", "--backend", "offline"], { stdin: jsonl([{ id: 1, question: Q, samples: ["1998.", "2004."], answer: 5 }]) });
    expect(row.code).toBe(3);
    expect(row.stderr).toContain('line 1: "answer" must be a string when present');
  });

  it("names the field of a malformed row", async () => {
    const run = await runCli(["entropy", "--input", "-", "--backend", "offline"], { stdin: jsonl([{ id: 1, question: Q, samples: ["a", 5] }]) });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('line 1: "samples[1]" must be a string or {"text": string, "logprobs"?: number[]} (got number)');
  });
});

describe("score with resamples", () => {
  it("adds semantic entropy and a combined verdict, failing closed on identical resamples", async () => {
    const base = { context: "The Zorbex Protocol was ratified in 1998 by nine states.", answer: "The Zorbex Protocol was ratified in 1998.", question: Q };
    const rows = [
      { id: "identical", ...base, samples: ["It was ratified in 1998.", "It was ratified in 1998.", "It was ratified in 1998."] },
      { id: "none", ...base },
    ];
    const run = await runCli(["score", "--input", "-", "--backend", "offline"], { stdin: jsonl(rows) });
    expect(run.code).toBe(0);
    const [identical, none] = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(identical?.combined).toMatchObject({ verdict: "unscorable" });
    expect(String((identical?.combined as { reasons: string[] }).reasons[0])).toContain("semantic entropy unreliable");
    expect(identical?.entropy).toMatchObject({ reliable: false });
    expect(none).not.toHaveProperty("combined");
    expect(none).not.toHaveProperty("entropy");
  });
});

describe("groundwatch doctor", () => {
  function script(body: string): string {
    const path = join(tempDir(), "sampler.sh");
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  it("passes a sampler whose samples differ, and gives it the prompt", async () => {
    const cmd = script('read p; i=0; while [ $i -lt "$GROUNDWATCH_SAMPLES" ]; do echo "sample $i for: $p"; i=$((i+1)); done');
    const run = await runCli(["doctor", "--sampler-cmd", cmd, "--samples", "4"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[PASS] sample diversity   4 distinct of 4");
    expect(run.stdout).toContain("READY");
  });

  it("fails a deterministic sampler and names temperature 0, a cache or a fixed seed", async () => {
    const cmd = script('echo \'["Canberra.", "Canberra.", "Canberra.", "Canberra.", "Canberra."]\'');
    const run = await runCli(["doctor", "--sampler-cmd", cmd]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAIL] sample diversity   5 samples, 1 distinct string");
    expect(run.stdout).toContain("temperature 0, a response cache in front of the model, or a fixed seed");
  });

  it("fails a sampler that returns too few samples", async () => {
    const run = await runCli(["doctor", "--sampler-cmd", script('echo "Canberra."; echo "Sydney."'), "--samples", "5"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAIL] sample count       2 of 5 samples");
  });

  it("fails a sampler that errors, with its message", async () => {
    const run = await runCli(["doctor", "--sampler-cmd", script('echo "rate limited" >&2; exit 7')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAIL] sampler runs       exited 7: rate limited");
  });
});

describe("groundwatch doctor: deployment preflight", () => {
  it("passes the backend, warns on a triage tier and a missing calibration, and is READY", async () => {
    const run = await runCli(["doctor", "--backend", "offline"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\[WARN\] entailment backend +offline offline-[\w.+-]+ \(triage\)/);
    expect(run.stdout).toMatch(/\[PASS\] backend answers +2 test pairs/);
    expect(run.stdout).toMatch(/\[WARN\] threshold +not calibrated \(no --calibration\)/);
    expect(run.stdout).toContain("READY (2 warning(s)).");
  });

  it("fails a triage backend under --require-production, with the fix", async () => {
    const run = await runCli(["doctor", "--backend", "offline", "--require-production"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAIL] entailment backend");
    expect(run.stdout).toContain("refusing to score with the triage-tier offline backend");
    expect(run.stdout).toContain("-> fix the backend configuration");
  });

  // Issue 25: it printed "invalid model: undefined (the onnx backend needs …)".
  it("--backend onnx without a model says what is missing, not 'invalid model: undefined'", async () => {
    const run = await runCli(["doctor", "--backend", "onnx"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAIL] entailment backend model: the onnx backend needs --model DIR|REPO (or GROUNDWATCH_MODEL)\n");
    expect(run.stdout).not.toContain("undefined");
  });

  // Issue 25: the flag was reported as "(GROUNDWATCH_REQUIRE_PRODUCTION is set)".
  it("--require-production given as a flag is not reported as the environment variable", async () => {
    const run = await runCli(["doctor", "--backend", "offline", "--require-production"]);
    expect(run.stdout).not.toContain("GROUNDWATCH_REQUIRE_PRODUCTION is set");
    expect(run.stdout).toContain("production is required: --require-production, GROUNDWATCH_REQUIRE_PRODUCTION=1 or the config's scoring.requireProduction");
  });

  it("shows the label mapping of an onnx model", async () => {
    const run = await runCli(["doctor", "--backend", "onnx", "--model", "test/fixtures/models/bert-permuted"]);
    expect(run.stdout).toMatch(/\[PASS\] label mapping +three-label: 0:ENTAILMENT 1:NEUTRAL 2:CONTRADICTION/);
  });

  it("fails on an unreachable collector and Prometheus, naming the fix", async () => {
    const run = await runCli(["doctor", "--skip-backend", "--collector", "http://127.0.0.1:9", "--prometheus", "http://127.0.0.1:9"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAIL] collector");
    expect(run.stdout).toContain("-> start groundwatch serve");
    expect(run.stdout).toContain("[FAIL] prometheus");
    expect(run.stdout).toContain("NOT READY: 2 failure(s)");
  });

  it("checks a given calibration file with --skip-backend too (regression: it printed READY for a missing file)", async () => {
    const run = await runCli(["doctor", "--skip-backend", "--calibration", "/nonexistent/calibration.json"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\[FAIL\] threshold +cannot read \/nonexistent\/calibration\.json/);
    expect(run.stdout).toContain("NOT READY: 1 failure(s)");
  });

  it("fails a calibration whose set did not establish a signal", async () => {
    const path = join(tempDir(), "cal.json");
    writeFileSync(path, JSON.stringify({ threshold: 0.4, verdict: "weak", auroc: { value: 0.55, low: 0.4, high: 0.7 }, dataset: { rows: 12 }, referenceScores: [0.1] }));
    const run = await runCli(["doctor", "--backend", "offline", "--calibration", path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("did not establish a signal (weak)");
  });
});

describe("onnxruntime-node, an optional peer", () => {
  it("entropy --backend onnx exits 2 with the install commands when it is not installed", async () => {
    withoutRuntime();
    const run = await runCli(["entropy", "--input", "-", "--backend", "onnx", "--model", FIXTURE], { stdin: jsonl([{ id: 1, question: Q, samples: ["1998.", "2004."] }]) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('groundwatch entropy: invalid backend: "onnx" (the onnx backend needs onnxruntime-node, an optional peer dependency that is not installed');
    expect(run.stderr).toContain("`npm install onnxruntime-node`");
    expect(run.stderr).toContain("`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`");
  });

  it("doctor reports the installed runtime and its version when the backend needs it", async () => {
    const version = (createRequire(import.meta.url)("onnxruntime-node/package.json") as { version: string }).version;
    const run = await runCli(["doctor", "--backend", "onnx", "--model", FIXTURE]);
    expect(run.stdout).toContain(`[PASS] onnx runtime       onnxruntime-node ${version}\n`);
  });

  it("doctor fails a missing runtime for --backend onnx, with the install command as the fix", async () => {
    withoutRuntime();
    const run = await runCli(["doctor", "--backend", "onnx", "--model", FIXTURE]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`[FAIL] onnx runtime       onnxruntime-node is not installed, and the onnx backend needs it\n       ${INSTALL_FIX}\n`);
    expect(run.stdout).toContain("[FAIL] entailment backend backend: the onnx backend needs onnxruntime-node");
    expect(run.stdout).not.toContain("-> fix the backend configuration");
  });

  it("doctor warns when auto would use the cached default model but the runtime is missing", async () => {
    withoutRuntime();
    const home = tempDir();
    const base = join(home, "hub", "models--Xenova--nli-deberta-v3-xsmall");
    cpSync(FIXTURE, join(base, "snapshots", "abc"), { recursive: true });
    mkdirSync(join(base, "refs"), { recursive: true });
    writeFileSync(join(base, "refs", "main"), "abc");
    const run = await runCli(["doctor"], { env: { HF_HOME: home } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`[WARN] onnx runtime       onnxruntime-node is not installed: auto falls back to the triage-grade offline backend, though Xenova/nli-deberta-v3-xsmall is cached\n       ${INSTALL_FIX}\n`);
    expect(run.stdout).toMatch(/\[WARN\] entailment backend +offline /);
  });

  // Issue 25: plain doctor printed no runtime line at all, though the README says it reports it.
  it("plain doctor reports a missing runtime as INFO (not a warning) when the backend does not use it", async () => {
    withoutRuntime();
    const run = await runCli(["doctor", "--backend", "offline"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`[INFO] onnx runtime       onnxruntime-node is not installed (not needed by the configured backend; a local model (groundwatch model pull) needs it)\n       ${INSTALL_FIX}\n`);
    expect(run.stdout).toContain("READY (2 warning(s)).");
  });

  it("plain doctor reports the installed runtime and its version, as INFO, when the backend does not use it", async () => {
    const version = (createRequire(import.meta.url)("onnxruntime-node/package.json") as { version: string }).version;
    const run = await runCli(["doctor"]);
    expect(run.stdout).toContain(`[INFO] onnx runtime       onnxruntime-node ${version} (not used by the configured backend; a local model (groundwatch model pull) would use it)\n`);
  });
});
