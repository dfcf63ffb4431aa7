/**
 * The collector's connections under clients that never read (issue 35, H1): a connection answered
 * 408 is closed whatever its peer does, so the cap cannot be held by sockets already answered; one
 * address cannot take every connection; an answer the client stopped reading does not hold its
 * connection; and the probes keep answering on a listener of their own while the main port is full.
 */
import { writeFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { addressKey } from "../../src/collector/connections.ts";
import { PROBE_LIMITS } from "../../src/collector/health.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startCollector } from "../../src/collector/server.ts";
import { COLLECTOR_TEST_ENV, startTestCollector } from "../helpers/collector.ts";
import { tempDir } from "../helpers/cli.ts";
import type { RawConnection } from "../helpers/net.ts";
import { rawConnection } from "../helpers/net.ts";
import { waitForCondition, waitUntil } from "../helpers/wait.ts";

/** The repro's request: its headers never end. */
const UNFINISHED = "GET /healthz HTTP/1.1\r\nHo";
const HEALTHZ = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/** `n` connections that send UNFINISHED and never read, each connected. */
async function holdConnections(url: string, n: number, localAddress?: string): Promise<RawConnection[]> {
  const held = Array.from({ length: n }, () => rawConnection(url, { read: false, send: UNFINISHED, ...(localAddress ? { localAddress } : {}) }));
  await Promise.all(held.map((h) => h.connected));
  return held;
}

/** Whether a new connection to `url` is closed without an answer (the server's cap is full). */
async function refusedOutright(url: string, localAddress?: string): Promise<boolean> {
  const conn = rawConnection(url, { send: HEALTHZ, ...(localAddress ? { localAddress } : {}) });
  await conn.closed;
  return conn.answer() === "";
}

/** A GET's status on a new connection (from `localAddress`), or the error's code when the connection is refused or cut (what a probe would see). */
function statusOf(url: string, localAddress?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false, headers: { connection: "close" }, ...(localAddress ? { localAddress } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const refused = (c: RunningCollector, key: string): number => c.refusedStats()[key] ?? 0;
/** Waits in these tests: well within the test's own timeout, so a failure names what was not reached. */
const WAIT = { timeout: 15_000, interval: 50 };

describe("collector: connections that never read", { timeout: 30_000 }, () => {
  it("gives back the slot of every connection answered 408, though its client never reads nor closes", async () => {
    // Before: each 408 was sent with socket.end() and the socket stayed half-open until the client
    // closed it, so 4 such clients held a cap of 4 for ever and /healthz was refused from then on.
    const c = await startTestCollector({ maxConnections: 4, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const held = await holdConnections(c.url, 4);
    await waitUntil("the 4 held connections answered 408", () => refused(c, "connection timeout"), (n) => n === 4, WAIT);
    await waitUntil("/healthz answered on the main port again", () => statusOf(`${c.url}/healthz`), (s) => s === 200, WAIT);
    // The clients still hold their sockets: the server closed them, not the clients.
    expect(held.every((h) => !h.socket.destroyed)).toBe(true);
  });

  it("answers /healthz and /readyz on the probe listener while held connections fill the main port", async () => {
    const c = await startTestCollector({ maxConnections: 4, healthPort: 0 });
    expect(c.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await holdConnections(c.url, 4);
    await waitForCondition("the main port refuses new connections", () => refusedOutright(c.url), WAIT);
    expect(refused(c, "connection too_many_connections")).toBeGreaterThan(0);
    expect(await statusOf(`${c.healthUrl}/healthz`)).toBe(200);
    expect(await statusOf(`${c.healthUrl}/readyz`)).toBe(200);
    // The probe listener answers the probes only.
    expect(await statusOf(`${c.healthUrl}/metrics`)).toBe(404);
  });

  it("keeps the probe listener's own caps (8 connections from one address) and counts its refusals as health_connection", async () => {
    const c = await startTestCollector({ healthPort: 0 });
    const url = c.healthUrl ?? "";
    await holdConnections(url, PROBE_LIMITS.maxConnectionsPerAddress, "127.0.0.2");
    expect(await refusedOutright(url, "127.0.0.2")).toBe(true);
    expect(c.refusedStats()).toEqual({ "health_connection too_many_per_address": 1 });
    // The kubelet's address is another one: it is answered.
    expect(await statusOf(`${url}/healthz`)).toBe(200);
  });

  it("refuses to start when the probe listener's port is taken, saying that it is the probe listener's", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => void busy.close());
    const port = (busy.address() as AddressInfo).port;
    await expect(startCollector({ env: COLLECTOR_TEST_ENV, port: 0, healthPort: port, monitor: { scoring: { backend: "offline" } } })).rejects.toMatchObject({
      name: "ListenError",
      code: "listen",
      systemCode: "EADDRINUSE",
      message: `the probe listener (healthPort): port ${port} on 127.0.0.1 is already in use`,
    });
  });

  it("closes a connection over maxConnectionsPerAddress at once, counts it, and serves other addresses", async () => {
    const c = await startTestCollector({ maxConnections: 8, maxConnectionsPerAddress: 2 });
    const first = await holdConnections(c.url, 2, "127.0.0.2");
    expect(await refusedOutright(c.url, "127.0.0.2")).toBe(true);
    expect(refused(c, "connection too_many_per_address")).toBe(1);
    expect(await statusOf(`${c.url}/healthz`)).toBe(200);
    // A slot given back is that address's again.
    first[0]?.socket.destroy();
    await waitUntil("127.0.0.2 served once one of its connections closed", () => statusOf(`${c.url}/healthz`, "127.0.0.2"), (s) => s === 200, WAIT);
  });

  it("closes a connection whose client stopped reading its answers, after requestTimeoutMs, and counts it", async () => {
    // Pipelined requests whose answers the client never reads: once the socket buffers are full
    // nothing moves. Before: the connection (and with maxConnections 1, the whole port) was held for ever.
    const c = await startTestCollector({ maxConnections: 1, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const request = "GET /runbooks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    const reader = rawConnection(c.url, { read: false, send: request.repeat(1000) });
    await reader.connected;
    await waitUntil("the stalled connection closed and counted", () => refused(c, "connection timeout"), (n) => n === 1, WAIT);
    await waitUntil("/healthz answered again", () => statusOf(`${c.url}/healthz`), (s) => s === 200, WAIT);
  });
});

describe("collector: the connection options", () => {
  it("reads healthPort and maxConnectionsPerAddress from options, env and the config file, with defaults", () => {
    expect(resolveCollectorOptions({ env: {} })).toMatchObject({ healthPort: undefined, maxConnections: 1024, maxConnectionsPerAddress: 256 });
    expect(resolveCollectorOptions({ env: {}, maxConnections: 64 }).maxConnectionsPerAddress).toBe(64);
    expect(resolveCollectorOptions({ env: { GROUNDWATCH_HEALTH_PORT: "4320" } }).healthPort).toBe(4320);
    const file = join(tempDir(), "groundwatch.json");
    writeFileSync(file, JSON.stringify({ collector: { healthPort: 9000, maxConnectionsPerAddress: 16 } }));
    expect(resolveCollectorOptions({ env: {}, configFile: file })).toMatchObject({ healthPort: 9000, maxConnectionsPerAddress: 16 });
    expect(resolveCollectorOptions({ env: { GROUNDWATCH_HEALTH_PORT: "9001" }, configFile: file, healthPort: 9002 }).healthPort).toBe(9002);
  });

  it.each([
    [{ healthPort: 4319 }, /invalid healthPort: 4319 \(expected another port than the collector's own \(4319\)/],
    [{ port: 9000, env: { GROUNDWATCH_HEALTH_PORT: "9000" } }, /invalid GROUNDWATCH_HEALTH_PORT/],
    [{ healthPort: 70_000 }, /invalid healthPort/],
    [{ maxConnectionsPerAddress: 0 }, /invalid maxConnectionsPerAddress/],
    [{ maxConnections: 10, maxConnectionsPerAddress: 11 }, /invalid maxConnectionsPerAddress: 11 \(expected an integer from 1 to 10/],
  ])("refuses %j by name", (options, message) => {
    expect(() => resolveCollectorOptions({ env: {}, ...options })).toThrow(expect.objectContaining({ name: "ConfigError", message: expect.stringMatching(message) }));
  });

  it("counts connections per IPv4 address and per IPv6 /64", () => {
    expect(addressKey("10.1.2.3")).toBe("10.1.2.3");
    expect(addressKey("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(addressKey("2001:db8:1:2::1")).toBe(addressKey("2001:db8:1:2:ffff:ffff:ffff:fffe"));
    expect(addressKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:3::1")).not.toBe(addressKey("2001:db8:1:2::1"));
    expect(addressKey("2001:db8::1:2:3:4")).toBe("2001:db8:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey(undefined)).toBe("unknown");
  });
});
