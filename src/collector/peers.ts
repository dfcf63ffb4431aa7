/**
 * The collector's peers: the other replicas of one deployment, asked for their own part of a merged
 * answer (GET /v1/flagged, the review API), or sent a review label for the answer one holds (`post`). Peers come from a static list of base URLs or from a headless Service's
 * DNS name, resolved to every address at each call. Every call goes through the one bounded HTTP
 * client (net/bounded-fetch.ts): bounded in time (peerTimeoutMs, the whole call) and in size
 * (peerMaxBytes, the read stops at the cap), sent with the collector's own bearer token and the
 * header `x-groundwatch-peer: 1`, which a replica answers from its own data only (never fanned out
 * again). A reply is validated (JSON, then the caller's `parse`) before it is merged. A replica
 * recognises itself (its own address, or its own name in a reply's `x-groundwatch-replica`) and
 * leaves itself out. Each call's outcome is counted (groundwatch.peer.requests).
 */
import { lookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import type { HttpClient } from "../net/bounded-fetch.ts";
import { HeadersTimeoutError, TotalTimeoutError, createHttpClient } from "../net/bounded-fetch.ts";
import { BodyIdleTimeoutError, BodyTooLargeError } from "../net/read-capped.ts";
import { settleWithin } from "../workers/settle-within.ts";
import { peerTransport } from "./peer-transport.ts";
import type { PeerFailureReason, PeerOutcome } from "../telemetry/semconv.ts";

export type { PeerFailureReason, PeerOutcome } from "../telemetry/semconv.ts";
export { PEER_FAILURE_REASONS, PEER_OUTCOMES } from "../telemetry/semconv.ts";

/** The header naming the replica that answered (on every reply of the collector's own API). */
export const REPLICA_HEADER = "x-groundwatch-replica";
/** The header of a peer call: a request carrying it is answered from the local replica only. */
export const PEER_HEADER = "x-groundwatch-peer";

/** peerTimeoutMs when not set: 2 s. */
export const DEFAULT_PEER_TIMEOUT_MS = 2000;
/** peerMaxBytes when not set: 8 MiB. */
export const DEFAULT_PEER_MAX_BYTES = 8 * 1024 * 1024;

/** Where the peers are and how they are called, resolved (collector options peers, peersDns, …). */
export interface PeersOptions {
  /** Base URLs of the replicas (this one may be among them: it is recognised and skipped). */
  readonly urls?: readonly string[] | undefined;
  /** A headless Service's `HOST:PORT`, resolved to every A/AAAA record at each call. */
  readonly dns?: string | undefined;
  /** The scheme of a DNS peer's URL: https when the collector serves TLS. Default http. */
  readonly scheme?: "http" | "https" | undefined;
  /** This replica's name (its `x-groundwatch-replica`). */
  readonly replica: string;
  /** The collector's own bearer token, sent to peers (all replicas share it). */
  readonly token?: string | undefined;
  /** The whole call to one peer, headers and body, ms. Default DEFAULT_PEER_TIMEOUT_MS. */
  readonly timeoutMs?: number | undefined;
  /** The most bytes read of one peer's reply. Default DEFAULT_PEER_MAX_BYTES. */
  readonly maxBytes?: number | undefined;
  /** PEM CA certificates an https peer is checked against. Default: Node's trust store. */
  readonly ca?: Buffer | undefined;
  /** The name an https peer's certificate is checked for. Default: the URL's host. */
  readonly serverName?: string | undefined;
}

/** What the peers work with; each absent field has a working default (injected in tests). */
export interface PeersDeps {
  /** The bounded HTTP client (default: createHttpClient without retries, the deadline being the retry, over peerTransport when a CA or server name is set). */
  readonly client?: HttpClient | undefined;
  /** Every address of a host name (default: dns.lookup with all: true). */
  readonly resolve?: ((host: string) => Promise<readonly string[]>) | undefined;
  /** This replica's own addresses as `host:port` (an entry of the list or the Service that is one of them is skipped). Default: none known. */
  readonly selfAddresses?: (() => readonly string[]) | undefined;
  /** Told of each peer call's outcome (and of each replica left out as self). */
  readonly count?: ((outcome: PeerOutcome) => void) | undefined;
}

/** A peer that did not answer usably: its URL, its replica name when its reply said it, and why. */
export interface PeerFailure {
  readonly peer: string;
  readonly replica?: string;
  readonly reason: PeerFailureReason;
}

/** One peer's answer: its replica name, the parsed value, and the base URL it was asked at (for `ask`). */
export interface PeerAnswer<T> {
  readonly replica: string;
  readonly value: T;
  readonly peer: string;
}

/** What the peers answered: this replica's name, every peer's value by replica, and who failed. */
export interface FanOutResult<T> {
  readonly local: string;
  readonly answered: Array<PeerAnswer<T>>;
  readonly failed: PeerFailure[];
}

export interface Peers {
  /** Whether any peer is configured (a static list or a Service). */
  readonly configured: boolean;
  /** This replica's name. */
  readonly replica: string;
  /**
   * GETs `path?query` of every peer in parallel, each bounded; a reply is JSON read under the byte
   * cap, then passed to `parse` (which throws on a malformed one: bad_reply). Never rejects.
   */
  fanOut<T>(path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<FanOutResult<T>>;
  /** GETs `path?query` of one peer (a `peer` of an earlier answer), bounded, validated and counted as fanOut's calls are. Never rejects. */
  ask<T>(peer: string, path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<PeerAnswer<T> | PeerFailure>;
  /**
   * POSTs `body` (as JSON) to `path` of one peer (a `peer` of an earlier answer, never an address a
   * reply named), bounded, authenticated and counted as fanOut's calls are. A reply of any status
   * but 401/403 is read under the cap and passed with its status to `parse`, which throws on one it
   * does not take (bad_reply). Never rejects.
   */
  post<T>(peer: string, path: string, body: unknown, parse: (body: unknown, status: number) => T): Promise<PeerAnswer<T> | PeerFailure>;
}

/** How one peer is called: GET (a reply taken only when 2xx), or POST of a JSON body (any reply status passed on to parse). */
type CallInit = { readonly method: "GET" } | { readonly method: "POST"; readonly body: string };

/** The `host:port` of a URL, as addresses are compared (lower case, IPv6 without brackets). */
function addressOf(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.replace(/^\[|\]$/g, "").toLowerCase()}:${port}`;
}

/** A `HOST:PORT` (IPv6 in brackets) split; undefined when it is not one. */
export function splitHostPort(text: string): { readonly host: string; readonly port: number } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s/]+)):(\d{1,5})$/.exec(text);
  const port = Number(m?.[3]);
  const host = m?.[1] ?? m?.[2];
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

/** The base URL of an address (IPv6 in brackets). */
const baseOf = (scheme: string, host: string, port: number): string => `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;

/** Every local interface address with `port`, as `host:port`: a replica's own addresses. */
export function localAddresses(port: number): string[] {
  const out = [`localhost:${port}`];
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.push(`${a.address.toLowerCase()}:${port}`);
  return out;
}

/** Why a call failed, as counted. */
function reasonOf(error: unknown): PeerFailureReason {
  if (error instanceof BodyTooLargeError) return "too_large";
  if (error instanceof HeadersTimeoutError || error instanceof TotalTimeoutError || error instanceof BodyIdleTimeoutError) return "timeout";
  return "unreachable";
}

/** A replica name as a header may carry it: [A-Za-z0-9_.-]{1,64}, else none. */
const replicaOf = (header: string | null): string | undefined => (header !== null && /^[A-Za-z0-9_.-]{1,64}$/.test(header) ? header : undefined);

/** The peers of this replica (see the file's comment). */
export function createPeers(options: PeersOptions, deps: PeersDeps = {}): Peers {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PEER_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_PEER_MAX_BYTES;
  const tls = options.ca !== undefined || options.serverName !== undefined ? { fetch: peerTransport({ ca: options.ca, serverName: options.serverName }) } : {};
  const client = deps.client ?? createHttpClient({ ...tls, retry: { attempts: 1 } });
  const resolve = deps.resolve ?? (async (host: string) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address));
  const count = deps.count ?? (() => undefined);
  const selfAddresses = deps.selfAddresses ?? (() => []);
  const urls = (options.urls ?? []).map((u) => u.replace(/\/+$/, ""));
  const dns = options.dns === undefined ? undefined : splitHostPort(options.dns);
  if (options.dns !== undefined && dns === undefined) throw new TypeError(`peersDns: expected HOST:PORT, got ${options.dns}`);
  const scheme = options.scheme ?? "http";
  const headers: Record<string, string> = { accept: "application/json", [PEER_HEADER]: "1", ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}) };

  /** The peers' base URLs now: the list, or the Service's addresses; a DNS failure is one failure. */
  const targets = async (): Promise<{ bases: string[]; failed: PeerFailure[] }> => {
    const bases = [...urls];
    const failed: PeerFailure[] = [];
    if (dns) {
      try {
        // The lookup is bounded too (getaddrinfo can wait on an unanswering DNS server for long).
        let found: readonly string[] = [];
        await settleWithin(
          resolve(dns.host).then((a) => (found = a)),
          timeoutMs,
        );
        const addresses = [...new Set(found)];
        if (addresses.length === 0) throw new Error("no address (or no answer in time)");
        for (const a of addresses) bases.push(baseOf(scheme, a, dns.port));
      } catch {
        count("dns");
        failed.push({ peer: `${dns.host}:${dns.port}`, reason: "dns" });
      }
    }
    const self = new Set(selfAddresses().map((a) => a.toLowerCase()));
    const kept = [...new Set(bases)].filter((b) => {
      const isSelf = self.has(addressOf(new URL(b)));
      if (isSelf) count("self");
      return !isSelf;
    });
    return { bases: kept, failed };
  };

  const callOne = async <T>(base: string, path: string, query: URLSearchParams, parse: (body: unknown, status: number) => T, init: CallInit = { method: "GET" }): Promise<PeerAnswer<T> | "self" | PeerFailure> => {
    const qs = query.toString();
    const url = `${base}${path}${qs ? `?${qs}` : ""}`;
    let replica: string | undefined;
    const failure = (reason: PeerFailureReason): PeerFailure => ({ peer: base, ...(replica !== undefined ? { replica } : {}), reason });
    try {
      const sent: RequestInit = init.method === "GET" ? { method: "GET", headers } : { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: init.body };
      const res = await client.request(url, sent, undefined, { headersMs: timeoutMs, idleMs: timeoutMs, totalMs: timeoutMs, maxBytes });
      replica = replicaOf(res.headers.get(REPLICA_HEADER));
      const taken = init.method === "POST" || res.ok;
      if (replica === options.replica || res.status === 401 || res.status === 403 || !taken || replica === undefined) {
        res.discard();
        if (replica === options.replica) return "self";
        return failure(res.status === 401 || res.status === 403 ? "unauthorized" : "bad_reply");
      }
      const text = await res.text({ maxBytes });
      let value: T;
      try {
        value = parse(JSON.parse(text) as unknown, res.status);
      } catch {
        return failure("bad_reply");
      }
      return { replica, value, peer: base };
    } catch (error) {
      return failure(reasonOf(error));
    }
  };

  /** One peer's call, counted: its own address answering as itself cannot happen for a peer that answered as another replica before; if it does, it is no answer. */
  const single = async <T>(peer: string, call: Promise<PeerAnswer<T> | "self" | PeerFailure>): Promise<PeerAnswer<T> | PeerFailure> => {
    const r = await call;
    const out: PeerAnswer<T> | PeerFailure = r === "self" ? { peer, replica: options.replica, reason: "bad_reply" } : r;
    count("reason" in out ? out.reason : "ok");
    return out;
  };

  return {
    configured: urls.length > 0 || dns !== undefined,
    replica: options.replica,
    async fanOut<T>(path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<FanOutResult<T>> {
      const { bases, failed } = await targets();
      const results = await Promise.all(bases.map((b) => callOne(b, path, query, parse)));
      const answered: Array<PeerAnswer<T>> = [];
      const seen = new Set<string>([options.replica]);
      for (const r of results) {
        if (r === "self") {
          count("self");
        } else if ("reason" in r) {
          count(r.reason);
          failed.push(r);
        } else if (seen.has(r.replica)) {
          // Two addresses of one replica (a list naming it twice): its answer is merged once.
          count("duplicate");
        } else {
          seen.add(r.replica);
          count("ok");
          answered.push(r);
        }
      }
      return { local: options.replica, answered, failed };
    },
    ask<T>(peer: string, path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<PeerAnswer<T> | PeerFailure> {
      return single(peer, callOne(peer, path, query, parse));
    },
    post<T>(peer: string, path: string, body: unknown, parse: (body: unknown, status: number) => T): Promise<PeerAnswer<T> | PeerFailure> {
      return single(peer, callOne(peer, path, new URLSearchParams(), parse, { method: "POST", body: JSON.stringify(body) }));
    },
  };
}
