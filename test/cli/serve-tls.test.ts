/**
 * `groundwatch serve --tls-cert --tls-key` (issue 35, deploy hardening): https on its port, said on
 * the listening line and the banner; SIGHUP serves a renewed certificate; a missing or lone file is
 * a configuration error (exit 2). The binary runs from dist/ (built by the global setup).
 */
import { X509Certificate } from "node:crypto";
import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { startupBanner } from "../../src/cli/serve.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { TLS_FIXTURES, copiedCredentials, httpsGet } from "../helpers/tls.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENV = { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_LOG_LEVEL: "" };
const BANNER_END = /\n {2}evaluations {2}.*\n/;
const fingerprintOf = (file: string): string => new X509Certificate(readFileSync(file)).fingerprint256;

function groundwatch(args: readonly string[]): GroupProcess {
  return spawnGroup(process.execPath, ["bin/groundwatch.js", ...args], { cwd: ROOT, env: ENV });
}

describe("groundwatch serve --tls-cert --tls-key", () => {
  it("listens on https, says so on the listening line and the banner, and serves the certificate", { timeout: 30_000 }, async () => {
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--tls-cert", TLS_FIXTURES.cert, "--tls-key", TLS_FIXTURES.key]);
    const url = await listeningUrl(run);
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const out = (await run.waitFor(BANNER_END)).input;
    expect(out).toContain(`groundwatch serve: listening on ${url} (metrics at ${url}/metrics)\n`);
    const certificate = new X509Certificate(readFileSync(TLS_FIXTURES.cert));
    expect(out).toContain(`\n  tls          https: CN=groundwatch server (test only) (DNS:groundwatch, DNS:localhost, IP Address:127.0.0.1), valid until ${new Date(certificate.validTo).toISOString()}; files checked every 60 s and on SIGHUP\n`);
    expect(await httpsGet(`${url}/healthz`)).toMatchObject({ status: 200, fingerprint: certificate.fingerprint256 });
  });

  it("serves a renewed certificate on SIGHUP", { timeout: 30_000 }, async () => {
    const files = copiedCredentials();
    // No periodic check: only the signal reads the files again.
    const config = join(files.dir, "groundwatch.json");
    writeFileSync(config, JSON.stringify({ collector: { tlsReloadMs: 0 } }));
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", "--config", config, "--tls-cert", files.cert, "--tls-key", files.key]);
    const url = await listeningUrl(run);
    expect((await run.waitFor(BANNER_END)).input).toContain("; files read again on SIGHUP only (tlsReloadMs 0)\n");
    for (const [source, target] of [[TLS_FIXTURES.rotatedCert, files.cert], [TLS_FIXTURES.rotatedKey, files.key]] as const) {
      copyFileSync(source, `${target}.new`);
      renameSync(`${target}.new`, target);
    }
    process.kill(run.pid, "SIGHUP");
    await run.waitFor(/groundwatch serve: SIGHUP: serving the new certificate CN=groundwatch rotated \(test only\), valid until \S+\n/);
    expect((await httpsGet(`${url}/healthz`)).fingerprint).toBe(fingerprintOf(TLS_FIXTURES.rotatedCert));
    process.kill(run.pid, "SIGHUP");
    await run.waitFor(/groundwatch serve: SIGHUP: the certificate files have not changed\n/);
  });

  it.each([
    ["a certificate without its key", ["--tls-cert", TLS_FIXTURES.cert], /^groundwatch serve: invalid tlsCertFile: ".*server\.crt" \(TLS needs both a certificate and its key: set --tls-key/m],
    ["a key file that is not there", ["--tls-cert", TLS_FIXTURES.cert, "--tls-key", "/nonexistent/tls.key"], /^groundwatch serve: invalid tlsKeyFile: "\/nonexistent\/tls\.key" \(cannot be read: ENOENT\)$/m],
  ])("refuses %s, exit 2, before listening", { timeout: 30_000 }, async (_name, flags, message) => {
    const run = groundwatch(["serve", "--port", "0", "--backend", "offline", ...flags]);
    expect((await run.exited).code).toBe(2);
    expect(run.output()).toMatch(message);
    expect(run.output()).not.toContain("listening");
  });

  it("--help lists both flags and their variables", async () => {
    const help = (await runCli(["serve", "--help"])).stdout;
    expect(help).toContain("[--tls-cert FILE --tls-key FILE]");
    expect(help).toMatch(/--tls-cert FILE {7}serve https: .*\n.*GROUNDWATCH_TLS_CERT_FILE/);
    expect(help).toMatch(/--tls-key FILE {8}the certificate's PEM private key, unencrypted; env GROUNDWATCH_TLS_KEY_FILE/);
  });

  it("--print-config shows where the certificate and key are read from, resolved against the working directory", async () => {
    const cwd = tempDir();
    const run = await runCli(["serve", "--backend", "offline", "--tls-cert", "tls/tls.crt", "--tls-key", "tls/tls.key", "--print-config"], { cwd });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { collector: { tls: unknown } }).collector.tls).toEqual({ certFile: join(cwd, "tls/tls.crt"), keyFile: join(cwd, "tls/tls.key"), certField: "tlsCertFile", keyField: "tlsKeyFile", reloadMs: 60_000 });
  });
});

describe("groundwatch serve: the banner on TLS", () => {
  const env = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
  const monitor = resolveMonitorOptions({ env, scoring: { backend: "offline" } });
  const certificate = { subject: "CN=groundwatch", names: "DNS:groundwatch", validFrom: new Date("2026-01-01T00:00:00Z"), validTo: new Date("2026-04-01T00:00:00Z"), fingerprint: "AA" };
  const tlsOptions = { tlsCertFile: "/tls/tls.crt", tlsKeyFile: "/tls/tls.key" };

  it("says a token goes in clear text when it binds beyond loopback without TLS", () => {
    const banner = (extra: Parameters<typeof resolveCollectorOptions>[0], withCertificate = false): string =>
      startupBanner({ url: "http://0.0.0.0:4319", collector: resolveCollectorOptions({ env, host: "0.0.0.0", token: "t".repeat(32), ...extra }), monitor, env, logEvaluations: false, ...(withCertificate ? { certificate, now: Date.parse("2026-02-01T00:00:00Z") } : {}) });
    expect(banner({})).toContain("\n  auth         on (bearer token) — sent in clear text over http: serve https (--tls-cert, --tls-key) or put TLS in front of it\n");
    expect(banner({})).toContain("\n  tls          off (plain http; --tls-cert and --tls-key serve https)\n");
    const https = banner(tlsOptions, true);
    expect(https).toContain("\n  auth         on (bearer token)\n");
    expect(https).toContain("\n  tls          https: CN=groundwatch (DNS:groundwatch), valid until 2026-04-01T00:00:00.000Z; files checked every 60 s and on SIGHUP\n");
  });

  it("warns when the certificate is expired or not yet valid: clients refuse it", () => {
    const banner = (now: string): string => startupBanner({ url: "https://127.0.0.1:4319", collector: resolveCollectorOptions({ env, ...tlsOptions }), monitor, env, logEvaluations: false, certificate, now: Date.parse(now) });
    expect(banner("2026-05-01T00:00:00Z")).toContain("valid until 2026-04-01T00:00:00.000Z; files checked every 60 s and on SIGHUP — WARNING: it expired on 2026-04-01T00:00:00.000Z: clients refuse it\n");
    expect(banner("2025-12-01T00:00:00Z")).toContain(" — WARNING: it is not valid before 2026-01-01T00:00:00.000Z: clients refuse it\n");
    expect(banner("2026-02-01T00:00:00Z")).not.toContain("WARNING");
  });
});
