import type { ChildProcess } from "node:child_process";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** Whether Debian's prometheus is installed (.ci/run installs it; CI=true makes its absence a failure). */
export function prometheusAvailable(): boolean {
  try {
    execFileSync("prometheus", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    if (process.env.CI) throw new Error("prometheus is not installed: .ci/run must install Debian's prometheus package");
    return false;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  readonly url: string;
  /** Runs an instant query and returns the result vector. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
}

/** Starts a real Prometheus scraping `target` (host:port) every second; stopped when the test ends. */
export async function startPrometheus(target: string, extraConfig = ""): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "gw-prom-"));
  const port = await freePort();
  writeFileSync(join(dir, "prometheus.yml"), `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n${extraConfig}\nscrape_configs:\n  - job_name: groundwatch\n    static_configs:\n      - targets: ["${target}"]\n`);
  const child: ChildProcess = spawn("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: "ignore" });
  onTestFinished(async () => {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error("prometheus did not become ready");
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async query(promql: string) {
      const res = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      if (res.status !== "success") throw new Error(`query failed: ${promql}`);
      return res.data.result;
    },
  };
}
