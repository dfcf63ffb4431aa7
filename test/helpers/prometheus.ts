import type { ChildProcess } from "node:child_process";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { stringify } from "yaml";
import { closedPort } from "./net.ts";
import { waitUntil } from "./wait.ts";
import { waitForCondition } from "./wait.ts";

/** Whether a tool of Debian's prometheus package is installed (.ci/run installs it; CI=true makes its absence a failure). */
function installed(tool: "prometheus" | "promtool"): boolean {
  try {
    execFileSync(tool, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    if (process.env.CI) throw new Error(`${tool} is not installed: .ci/run must install Debian's prometheus package`);
    return false;
  }
}

/** Whether Debian's prometheus is installed. */
export const prometheusAvailable = (): boolean => installed("prometheus");

/** Whether promtool (from the same package) is installed. */
export const promtoolAvailable = (): boolean => installed("promtool");

/**
 * Runs promtool unit tests of PromQL expressions (no rules: each test's `promql_expr_test` and
 * `input_series` as promtool's test file takes them) and returns promtool's output and status.
 * The files live in a temporary folder removed when the test ends.
 */
export function promtoolExprTests(tests: readonly unknown[]): { output: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), "gw-promql-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "rules.yml"), "groups: []\n");
  writeFileSync(join(dir, "test.yml"), stringify({ rule_files: ["rules.yml"], evaluation_interval: "15s", tests }));
  const r = spawnSync("promtool", ["test", "rules", join(dir, "test.yml")], { encoding: "utf8" });
  return { output: `${r.stdout}${r.stderr}`, status: r.status };
}

export interface RunningPrometheus {
  readonly url: string;
  /** Runs an instant query and returns the result vector. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /**
   * Resolves once a scrape of the target that began after `since` (epoch ms, default now) is stored:
   * whatever the target served before `since` is then in Prometheus. Resolves with the wall-clock time
   * at which that was seen, epoch ms.
   */
  scrapedAfter(since?: number): Promise<number>;
  /**
   * Resolves once every rule group has been evaluated at a timestamp after `since` (epoch ms): a rule
   * group's evaluation timestamp is the last tick of its interval before it started, so its start
   * must be more than one interval after `since`.
   */
  evaluatedAfter(since: number): Promise<void>;
  /**
   * Resolves once what the target served before the call is scraped and every rule has been evaluated
   * on it twice over: the second round lets rules that read recorded series (the alerts) see the
   * first round's records.
   */
  caughtUp(): Promise<void>;
}

/**
 * Starts a real Prometheus scraping `target` (host:port) every second as job `groundwatch`, with
 * `scrape`'s settings added to the job (scheme, tls_config, authorization, as prometheus.yml spells
 * them); stopped when the test ends.
 */
export async function startPrometheus(target: string, extraConfig = "", scrape: Readonly<Record<string, unknown>> = {}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "gw-prom-"));
  const port = await closedPort();
  const job = stringify({ scrape_configs: [{ job_name: "groundwatch", static_configs: [{ targets: [target] }], ...scrape }] });
  writeFileSync(join(dir, "prometheus.yml"), `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n${extraConfig}\n${job}`);
  const child: ChildProcess = spawn("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: "ignore" });
  onTestFinished(async () => {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForCondition(
    "prometheus ready",
    async () => {
      try {
        return (await fetch(`${url}/-/ready`)).ok;
      } catch {
        return false; // not listening yet
      }
    },
    { timeout: 20_000, interval: 200 },
  );
  const query = async (promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
    const res = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    if (res.status !== "success") throw new Error(`query failed: ${promql}`);
    return res.data.result;
  };
  const scrapedAfter = async (since = Date.now()): Promise<number> => {
    // `up` is stored with the scraped samples, in the same commit, stamped with the scrape's start.
    await waitUntil(`a scrape that began after ${new Date(since).toISOString()}`, async () => Number((await query('max(timestamp(up{job="groundwatch"}))'))[0]?.value[1] ?? 0) * 1000, (t) => t > since, { timeout: 20_000, interval: 100 });
    return Date.now();
  };
  const evaluatedAfter = async (since: number): Promise<void> => {
    type Groups = { data: { groups: Array<{ name: string; interval: number; lastEvaluation: string }> } };
    await waitUntil(
      `every rule group evaluated at a time after ${new Date(since).toISOString()}`,
      async () => ((await (await fetch(`${url}/api/v1/rules`)).json()) as Groups).data.groups.map((g) => ({ name: g.name, interval: g.interval, lastEvaluation: g.lastEvaluation })),
      (groups) => groups.every((g) => Date.parse(g.lastEvaluation) > since + g.interval * 1000),
      { timeout: 20_000, interval: 100 },
    );
  };
  return {
    url,
    query,
    scrapedAfter,
    evaluatedAfter,
    async caughtUp() {
      await evaluatedAfter(await scrapedAfter());
      await evaluatedAfter(Date.now());
    },
  };
}
