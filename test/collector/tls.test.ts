/**
 * The collector's own TLS (issue 35, deploy hardening): with collector.tlsCertFile and tlsKeyFile its
 * port serves https, so that the bearer token of ingest and /metrics never crosses the network in
 * clear text; the connection caps and timeouts hold over TLS, a handshake that never completes gives
 * its slot back, a plain-http client is told what is wrong, and a renewed certificate is served
 * without a restart. The probe listener stays plain http.
 */
import { X509Certificate, generateKeyPairSync } from "node:crypto";
import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { connect } from "node:tls";
import type { TLSSocket } from "node:tls";
import { describe, expect, it, onTestFinished } from "vitest";
import { PLAIN_HTTP_ANSWER } from "../../src/collector/connections.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startCollector } from "../../src/collector/server.ts";
import { COLLECTOR_TEST_ENV, startTestCollector } from "../helpers/collector.ts";
import { tempDir } from "../helpers/cli.ts";
import { captureWarnings } from "../helpers/diag.ts";
import { rawConnection } from "../helpers/net.ts";
import { TLS_FIXTURES, copiedCredentials, httpsGet, testCa } from "../helpers/tls.ts";
import { waitUntil } from "../helpers/wait.ts";

const TOKEN = "tls-test-token-0123456789abcdef";
const fingerprintOf = (file: string): string => new X509Certificate(readFileSync(file)).fingerprint256;
const WAIT = { timeout: 15_000, interval: 50 };

/** A collector serving https with the fixtures' server certificate (and a token: what the token is for). */
function startTlsCollector(extra: Parameters<typeof startCollector>[0] = {}): Promise<RunningCollector> {
  return startTestCollector({ tlsCertFile: TLS_FIXTURES.cert, tlsKeyFile: TLS_FIXTURES.key, token: TOKEN, ...extra });
}

/** A TLS connection that completed its handshake (trusting the fixtures' CA), from `localAddress`; destroyed when the test ends. */
async function tlsConnection(url: string, localAddress?: string): Promise<TLSSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ca: testCa(), servername: "localhost", ...(localAddress ? { localAddress } : {}) });
  onTestFinished(() => void socket.destroy());
  await new Promise<void>((resolve, reject) => {
    socket.once("secureConnect", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

/** Replaces a file as the kubelet updates a mounted Secret: written beside it, then renamed over it (never half-written). */
function replaceFile(source: string, target: string): void {
  copyFileSync(source, `${target}.new`);
  renameSync(`${target}.new`, target);
}

describe("collector: https with collector.tlsCertFile and tlsKeyFile", { timeout: 30_000 }, () => {
  it("serves /healthz and, with the token, /metrics over https with the configured certificate", async () => {
    const c = await startTlsCollector();
    expect(c.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await httpsGet(`${c.url}/healthz`);
    expect(health).toMatchObject({ status: 200, fingerprint: fingerprintOf(TLS_FIXTURES.cert) });
    const metrics = await httpsGet(`${c.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain("groundwatch_");
    expect((await httpsGet(`${c.url}/metrics`)).status).toBe(401);
    // The name a client checks is the certificate's: the Kubernetes base verifies "groundwatch".
    expect((await httpsGet(`${c.url}/healthz`, { servername: "groundwatch" })).status).toBe(200);
    // A client that does not trust the CA refuses the connection.
    await expect(httpsGet(`${c.url}/healthz`, { ca: null })).rejects.toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
  });

  it("answers a plain-http request on the TLS port 400, saying to use https, and counts it as plain_http", async () => {
    const c = await startTlsCollector();
    const res = await fetch(`${c.url.replace("https://", "http://")}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe(PLAIN_HTTP_ANSWER);
    expect(c.refusedStats()).toEqual({ "connection plain_http": 1 });
  });

  it("counts a failed handshake as tls_handshake, and a client that hangs up not at all", async () => {
    const c = await startTlsCollector();
    const garbage = rawConnection(c.url, { send: "\x16\x03\x01\x00\x05\x00\x00\x00\x00\x00" });
    await garbage.closed;
    const gone = rawConnection(c.url);
    await gone.connected;
    gone.socket.end();
    await gone.closed;
    await waitUntil("the failed handshake counted", () => c.refusedStats(), (s) => s["connection tls_handshake"] === 1, WAIT);
    expect(await httpsGet(`${c.url}/healthz`)).toMatchObject({ status: 200 });
    expect(c.refusedStats()).toEqual({ "connection tls_handshake": 1 });
  });

  it("cuts off a handshake not done within headersTimeoutMs, however slowly it trickles in, and gives its slot back", async () => {
    // One connection sends nothing; the other announces a 512-byte ClientHello and sends a byte every
    // 50 ms (25 s to finish it): each would hold half the port. Both are cut off at 300 ms and counted.
    const c = await startTlsCollector({ maxConnections: 2, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const silent = rawConnection(c.url);
    const trickling = rawConnection(c.url, { send: "\x16\x03\x01\x02\x00" });
    await Promise.all([silent.connected, trickling.connected]);
    const drip = setInterval(() => trickling.socket.write(Buffer.alloc(1)), 50);
    onTestFinished(() => clearInterval(drip));
    await Promise.all([silent.closed, trickling.closed]);
    clearInterval(drip);
    expect(c.refusedStats()).toEqual({ "connection timeout": 2 });
    expect(await httpsGet(`${c.url}/healthz`)).toMatchObject({ status: 200 });
  });

  it("answers a request too slow over TLS 408 and closes it, as over plain http", async () => {
    const c = await startTlsCollector({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const socket = await tlsConnection(c.url);
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.write("GET /healthz HTTP/1.1\r\nHo");
    await new Promise((resolve) => socket.once("close", resolve));
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(c.refusedStats()).toEqual({ "connection timeout": 1 });
  });

  it("keeps maxConnectionsPerAddress over TLS, counting each refusal once", async () => {
    const c = await startTlsCollector({ maxConnections: 8, maxConnectionsPerAddress: 2 });
    await Promise.all([tlsConnection(c.url, "127.0.0.2"), tlsConnection(c.url, "127.0.0.2")]);
    await expect(tlsConnection(c.url, "127.0.0.2")).rejects.toThrow();
    expect(await httpsGet(`${c.url}/healthz`)).toMatchObject({ status: 200 });
    expect(c.refusedStats()).toEqual({ "connection too_many_per_address": 1 });
  });

  it("closes connections still in their handshake when it stops, without waiting for their deadline", async () => {
    const c = await startTlsCollector({ headersTimeoutMs: 60_000 });
    const held = rawConnection(c.url);
    await held.connected;
    await Promise.all([c.close(60_000), held.closed]);
  });

  it("keeps the probe listener plain http: it carries no token and no content", async () => {
    const c = await startTlsCollector({ healthPort: 0 });
    expect(c.url).toMatch(/^https:/);
    expect(c.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const status = await new Promise<number>((resolve, reject) => get(`${c.healthUrl}/readyz`, { agent: false }, (res) => resolve(res.statusCode ?? 0)).on("error", reject));
    expect(status).toBe(200);
  });
});

describe("collector: a renewed certificate is served without a restart", { timeout: 30_000 }, () => {
  it("serves the new pair once both files hold it, keeping the old one (and saying so once) while they do not match", async () => {
    const warnings = captureWarnings();
    const files = copiedCredentials();
    const c = await startTlsCollector({ tlsCertFile: files.cert, tlsKeyFile: files.key, tlsReloadMs: 50 });
    const served = async (): Promise<string> => (await httpsGet(`${c.url}/healthz`)).fingerprint;
    expect(await served()).toBe(fingerprintOf(TLS_FIXTURES.cert));
    // cert-manager's new certificate, its key not there yet: not served, and said once though checked every 50 ms.
    replaceFile(TLS_FIXTURES.rotatedCert, files.cert);
    const tlsWarnings = (): string[] => warnings.filter((w) => w.includes("TLS certificate"));
    await waitUntil("the mismatched pair refused", tlsWarnings, (w) => w.length === 1, WAIT);
    expect(tlsWarnings()[0]).toContain(`the TLS certificate was not reloaded: invalid tlsKeyFile: "${files.key}" (this key does not belong to the certificate in ${files.cert}`);
    expect(await served()).toBe(fingerprintOf(TLS_FIXTURES.cert));
    replaceFile(TLS_FIXTURES.rotatedKey, files.key);
    await waitUntil("the renewed certificate served", served, (f) => f === fingerprintOf(TLS_FIXTURES.rotatedCert), WAIT);
    expect(c.tls?.current().fingerprint).toBe(fingerprintOf(TLS_FIXTURES.rotatedCert));
    expect(tlsWarnings()).toHaveLength(1);
  });

  it("with tlsReloadMs 0 reads the files again only when asked (serve's SIGHUP)", async () => {
    const files = copiedCredentials();
    const c = await startTlsCollector({ tlsCertFile: files.cert, tlsKeyFile: files.key, tlsReloadMs: 0 });
    expect(c.tls?.check()).toEqual({ status: "unchanged" });
    replaceFile(TLS_FIXTURES.rotatedCert, files.cert);
    replaceFile(TLS_FIXTURES.rotatedKey, files.key);
    expect(c.tls?.check()).toMatchObject({ status: "reloaded", certificate: { fingerprint: fingerprintOf(TLS_FIXTURES.rotatedCert), names: "DNS:groundwatch, DNS:localhost, IP Address:127.0.0.1" } });
    expect((await httpsGet(`${c.url}/healthz`)).fingerprint).toBe(fingerprintOf(TLS_FIXTURES.rotatedCert));
    expect(c.tls?.check()).toEqual({ status: "unchanged" });
  });
});

describe("collector: the TLS options", () => {
  it("reads tlsCertFile and tlsKeyFile from options, env and the config file (relative to its folder), off by default", () => {
    expect(resolveCollectorOptions({ env: {} }).tls).toBeUndefined();
    const dir = tempDir();
    const file = join(dir, "groundwatch.json");
    writeFileSync(file, JSON.stringify({ collector: { tlsCertFile: "tls/tls.crt", tlsKeyFile: "tls/tls.key", tlsReloadMs: 5000 } }));
    expect(resolveCollectorOptions({ env: {}, configFile: file }).tls).toEqual({ certFile: join(dir, "tls/tls.crt"), keyFile: join(dir, "tls/tls.key"), certField: "config file collector.tlsCertFile", keyField: "config file collector.tlsKeyFile", reloadMs: 5000 });
    const env = { GROUNDWATCH_TLS_CERT_FILE: "/etc/tls/tls.crt", GROUNDWATCH_TLS_KEY_FILE: "/etc/tls/tls.key" };
    expect(resolveCollectorOptions({ env, configFile: file }).tls).toMatchObject({ certFile: "/etc/tls/tls.crt", certField: "GROUNDWATCH_TLS_CERT_FILE", keyField: "GROUNDWATCH_TLS_KEY_FILE" });
    expect(resolveCollectorOptions({ env, tlsCertFile: "/a.crt", tlsKeyFile: "/a.key" }).tls).toMatchObject({ certFile: "/a.crt", keyFile: "/a.key", certField: "tlsCertFile", reloadMs: 60_000 });
  });

  it.each([
    [{ tlsCertFile: "/a.crt" }, /^invalid tlsCertFile: "\/a\.crt" \(TLS needs both a certificate and its key: set --tls-key \(GROUNDWATCH_TLS_KEY_FILE, config file collector\.tlsKeyFile\) too, or neither\)$/],
    [{ env: { GROUNDWATCH_TLS_KEY_FILE: "/a.key" } }, /^invalid GROUNDWATCH_TLS_KEY_FILE: "\/a\.key" \(TLS needs both a certificate and its key: set --tls-cert/],
    [{ tlsCertFile: "/a.crt", tlsKeyFile: "/a.key", tlsReloadMs: -1 }, /^invalid tlsReloadMs: -1/],
  ])("refuses %j by name", (options, message) => {
    expect(() => resolveCollectorOptions({ env: {}, ...options })).toThrow(expect.objectContaining({ name: "ConfigError", message: expect.stringMatching(message) }));
  });

  it.each([
    ["a file that is not there", () => ({ tlsCertFile: join(tempDir(), "missing.crt"), tlsKeyFile: TLS_FIXTURES.key }), /^invalid tlsCertFile: ".*missing\.crt" \(cannot be read: ENOENT\)$/],
    ["a certificate that is not PEM", () => ({ tlsCertFile: write("tls.crt", "not a certificate"), tlsKeyFile: TLS_FIXTURES.key }), /^invalid tlsCertFile: ".*tls\.crt" \(expected a PEM certificate/],
    ["a PEM certificate that does not parse", () => ({ tlsCertFile: write("tls.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), tlsKeyFile: TLS_FIXTURES.key }), /^invalid tlsCertFile: ".*tls\.crt" \(not a valid PEM certificate: /],
    ["a certificate as the key", () => ({ tlsCertFile: TLS_FIXTURES.cert, tlsKeyFile: TLS_FIXTURES.cert }), /^invalid tlsKeyFile: ".*server\.crt" \(expected a PEM private key/],
    ["another certificate's key", () => ({ tlsCertFile: TLS_FIXTURES.cert, tlsKeyFile: TLS_FIXTURES.rotatedKey }), /^invalid tlsKeyFile: ".*rotated\.key" \(this key does not belong to the certificate in .*server\.crt/],
    ["an encrypted key", () => ({ tlsCertFile: TLS_FIXTURES.cert, tlsKeyFile: write("tls.key", encryptedKey()) }), /^invalid tlsKeyFile: ".*tls\.key" \(the private key is encrypted, and groundwatch takes no passphrase/],
  ])("refuses to start with %s, naming the field (a ConfigError: serve exits 2)", async (_name, files, message) => {
    await expect(startCollector({ env: COLLECTOR_TEST_ENV, port: 0, ...files(), monitor: { scoring: { backend: "offline" } } })).rejects.toMatchObject({ name: "ConfigError", message: expect.stringMatching(message) });
  });
});

/** A file in a temporary folder with that text; its path. */
function write(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

/** A passphrase-protected PKCS#8 key. */
function encryptedKey(): string {
  return generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding: { type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "secret" }, publicKeyEncoding: { type: "spki", format: "pem" } }).privateKey;
}
