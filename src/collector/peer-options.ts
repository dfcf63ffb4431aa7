/**
 * The collector's peer settings (CollectorOptions.peers, peersDns, peersServerName, peersCaFile,
 * peerTimeoutMs, peerMaxBytes), resolved option > env > config file > default; each bad value a
 * ConfigError naming its field.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { resolve as resolvePath } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { COLLECTOR_ENV, REVIEW_ENV } from "../config/env.ts";
import { integerIn, parseNonEmpty } from "../config/parse.ts";
import type { FieldReader } from "../config/resolve.ts";
import { fileRelativePath } from "../config/resolve.ts";
import { sanitizeReplica } from "../sdk/review-options.ts";
import { DEFAULT_PEER_MAX_BYTES, DEFAULT_PEER_TIMEOUT_MS, splitHostPort } from "./peers.ts";

/** The peer settings' keys in CollectorOptions (and the config file's collector section). */
export type PeerKey = "peers" | "peersDns" | "peersServerName" | "peersCaFile" | "peerTimeoutMs" | "peerMaxBytes";

/** The largest peerMaxBytes: 1 GiB. */
export const MAX_PEER_MAX_BYTES = 1024 * 1024 * 1024;

/** The peers, resolved: a static list or a Service (never both), how they are reached, and the bounds of one call. */
export interface ResolvedPeerOptions {
  /** Base URLs of the replicas (no trailing slash); empty with a Service. */
  readonly urls: readonly string[];
  /** The headless Service's HOST:PORT; undefined with a static list. */
  readonly dns: string | undefined;
  /** The name a peer's TLS certificate is checked for (https only); undefined: the URL's host. */
  readonly serverName: string | undefined;
  /** The PEM CA certificates a peer's TLS certificate is checked against (read at start); undefined: Node's trust store. */
  readonly ca: Buffer | undefined;
  /** The file `ca` was read from, for the banner. */
  readonly caFile: string | undefined;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** One base URL of the static list, checked: http(s), no credentials, no query; the trailing slash dropped. */
function peerUrl(field: string, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(field, raw, "expected base URLs of the replicas, e.g. http://10.0.0.7:4319,http://10.0.0.8:4319");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new ConfigError(field, raw, "expected http:// or https:// URLs");
  if (u.username || u.password) throw new ConfigError(field, u.host, `credentials in a peer URL are not sent: peers are called with the collector's own token (${COLLECTOR_ENV.token})`);
  if (u.search || u.hash) throw new ConfigError(field, raw, "expected a base URL without a query or fragment");
  return u.href.replace(/\/+$/, "");
}

/** A comma-separated list (a flag, an env variable) or an array (a config file, code) of base URLs. */
function parsePeerUrls(field: string, raw: unknown): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const items = typeof raw === "string" ? raw.split(",") : Array.isArray(raw) && raw.every((x) => typeof x === "string") ? (raw as string[]) : undefined;
  if (items === undefined) throw new ConfigError(field, raw, "expected a list of base URLs (comma-separated in a flag or a variable)");
  const urls = items.map((s) => s.trim()).filter((s) => s !== "");
  return urls.length === 0 ? undefined : [...new Set(urls.map((u) => peerUrl(field, u)))];
}

/**
 * Resolves the peer settings. `tls`: whether the collector serves TLS (a Service's peers are then
 * called over https). Both a list and a Service, or a server name or CA without TLS to use them on,
 * are ConfigErrors.
 */
export function resolvePeerOptions(read: FieldReader<PeerKey>, configFile: string | undefined, tls: boolean): ResolvedPeerOptions {
  const list = read.field("peers", parsePeerUrls);
  const dns = read.field("peersDns", parseNonEmpty);
  if (list.value !== undefined && dns.value !== undefined) throw new ConfigError(dns.field, dns.value, `set either a list of peers (${list.field}) or a Service name, not both`);
  if (dns.value !== undefined && !splitHostPort(dns.value)) throw new ConfigError(dns.field, dns.value, "expected HOST:PORT of a headless Service, e.g. groundwatch-peers.observability.svc.cluster.local:4319");
  const urls = list.value ?? [];
  const https = dns.value !== undefined ? tls : urls.some((u) => u.startsWith("https:"));
  const serverName = read.field("peersServerName", parseNonEmpty);
  if (serverName.value !== undefined && !https) throw new ConfigError(serverName.field, serverName.value, "a TLS server name needs peers called over https (a Service with the collector's own TLS on, or https:// peer URLs)");
  const caPick = read.field("peersCaFile", parseNonEmpty);
  const caFile = fileRelativePath(caPick, configFile);
  let ca: Buffer | undefined;
  if (caFile !== undefined) {
    if (!https) throw new ConfigError(caPick.field, caFile, "a CA file needs peers called over https (a Service with the collector's own TLS on, or https:// peer URLs)");
    try {
      ca = readFileSync(resolvePath(caFile));
    } catch (error) {
      throw new ConfigError(caPick.field, caFile, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    if (!ca.toString("latin1").includes("-----BEGIN CERTIFICATE-----")) throw new ConfigError(caPick.field, caFile, "expected PEM CA certificates (a file with -----BEGIN CERTIFICATE-----)");
  }
  return {
    urls,
    dns: dns.value,
    serverName: serverName.value,
    ca,
    caFile: caFile === undefined ? undefined : resolvePath(caFile),
    timeoutMs: read("peerTimeoutMs", integerIn(1, 600_000), DEFAULT_PEER_TIMEOUT_MS),
    maxBytes: read("peerMaxBytes", integerIn(1024, MAX_PEER_MAX_BYTES), DEFAULT_PEER_MAX_BYTES),
  };
}

/**
 * This replica's name (x-groundwatch-replica, its part of a merged cursor): the review spool's
 * replica when a spool is configured, else GROUNDWATCH_REVIEW_REPLICA, else the spool's default
 * (host name and process id), so that it is one name whatever is on.
 */
export function collectorReplica(spoolReplica: string | undefined, env: NodeJS.ProcessEnv): string {
  return spoolReplica ?? sanitizeReplica(parseNonEmpty(REVIEW_ENV.replica, env[REVIEW_ENV.replica]) ?? `${hostname()}-${process.pid}`);
}
