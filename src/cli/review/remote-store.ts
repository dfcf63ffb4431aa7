import { COLLECTOR_ENV } from "../../config/env.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import { stripControls } from "../../core/safe-text.ts";
import type { HttpBounds } from "../../net/bounded-fetch.ts";
import { fetchBounded } from "../../net/bounded-fetch.ts";
import { fetchFailure } from "../../net/fetch-error.ts";
import { redactSecrets } from "../../net/redact.ts";
import type { LabelRecord, SpoolRecord } from "../../review/record.ts";
import { isSpoolRecord, parseLabelLine } from "../../review/spool-files.ts";
import type { MissingReplica, ReviewStore } from "../../review/store.ts";

/**
 * A deployment's review spools over the collector's API (`--url`): the answers and labels of every
 * replica that answered, read page by page through the one bounded client, and each label written
 * through the replica that holds its answer (which applies the conflict rule). Replicas that did not
 * answer are kept (`missing`) for the command to name: figures cover the others, never silently.
 * The answers come replica by replica (by replica name), each replica's in its spool's order, as
 * `--dir` of each replica's spool directory in that order would read them.
 */

/** One request: 10 s for the headers and any silence in the body, 60 s in all, at most 64 MiB. */
const REMOTE_BOUNDS: HttpBounds = { headersMs: 10_000, idleMs: 10_000, totalMs: 60_000, maxBytes: 64 * 2 ** 20 };
/** Items asked per page (the collector's cap). */
const PAGE_LIMIT = 1000;
/** The most pages read of one list: a collector whose cursor never ends is cut off. */
const MAX_PAGES = 100_000;

export interface RemoteStoreOptions {
  /** The collector's base URL (any replica of the deployment). */
  readonly url: string;
  /** The collector's bearer token. */
  readonly token?: string | undefined;
  /** The fetch used (tests inject one). */
  readonly fetch?: typeof fetch | undefined;
}


const clean = (v: unknown): string => stripControls(String(v ?? "")).slice(0, 300);

/** A replica that did not answer, as a reply said it. */
/** A `replicas.failed` entry of a merged reply, checked and cleaned; undefined when it is not one. */
export function missingOf(v: unknown): MissingReplica | undefined {
  if (!isPlainObject(v) || typeof v.reason !== "string") return undefined;
  return { reason: clean(v.reason), ...(typeof v.replica === "string" ? { replica: clean(v.replica) } : {}), ...(typeof v.peer === "string" ? { peer: clean(v.peer) } : {}) };
}

/** The collector's review API as a store (see the file's comment). */
export function createRemoteStore(options: RemoteStoreOptions): ReviewStore {
  const base = options.url.replace(/\/+$/, "");
  const headers: Record<string, string> = { accept: "application/json", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };

  /** One request; its status and JSON body, or an Error saying why not (unreachable, a refused token, no review spool, a reply that is not one): the command's failure (exit 1). */
  const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
    let res;
    try {
      res = await fetchBounded(`${base}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } }, { ...REMOTE_BOUNDS, fetch: options.fetch });
    } catch (error) {
      throw new Error(`cannot reach the collector at ${base}: ${redactSecrets(fetchFailure(error), [options.token])}`);
    }
    if (res.status === 401) {
      res.discard();
      throw new Error(`the collector at ${base} refused the token (401): pass --token or set ${COLLECTOR_ENV.token}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(await res.text()) as unknown;
    } catch (error) {
      throw new Error(`the collector at ${base} answered HTTP ${res.status} with a body that is not JSON (${redactSecrets(fetchFailure(error), [options.token])})`);
    }
    if (!isPlainObject(body)) throw new Error(`the collector at ${base} answered HTTP ${res.status} with a reply that is not an object`);
    if (res.status !== 200 && res.status !== 409) throw new Error(`the collector at ${base} answered HTTP ${res.status}: ${clean(body.error)}`);
    return { status: res.status, body };
  };

  /** Every page of a list: its items by the replica holding them, the replicas that did not answer, and the unreadable lines the replicas counted. */
  const readAll = async <T>(key: "records" | "labels", check: (v: unknown) => T | undefined): Promise<{ byReplica: Map<string, T[]>; missing: Map<string, MissingReplica>; unreadable: number; bad: number }> => {
    const byReplica = new Map<string, T[]>();
    const missing = new Map<string, MissingReplica>();
    let unreadable = 0;
    let bad = 0;
    let cursor = "";
    for (let page = 0; page < MAX_PAGES; page++) {
      const { body } = await call(`/v1/review/${key}?limit=${PAGE_LIMIT}${cursor ? `&after=${encodeURIComponent(cursor)}` : ""}`);
      const list = body[key];
      if (!Array.isArray(list) || typeof body.more !== "boolean") throw new Error(`the collector at ${base} answered a ${key} page without its ${key} list`);
      for (const e of list) {
        const item = isPlainObject(e) ? check(e[key === "records" ? "record" : "label"]) : undefined;
        const replica = isPlainObject(e) && typeof e.replica === "string" ? clean(e.replica) : "";
        if (item === undefined) {
          bad++;
          continue;
        }
        const items = byReplica.get(replica) ?? [];
        items.push(item);
        byReplica.set(replica, items);
      }
      // Each page counts the lines it read that were not items: summed, the files'.
      if (Number.isSafeInteger(body.unreadable) && (body.unreadable as number) > 0) unreadable += body.unreadable as number;
      const replicas = isPlainObject(body.replicas) ? body.replicas : {};
      for (const f of Array.isArray(replicas.failed) ? replicas.failed : []) {
        const m = missingOf(f);
        if (m) missing.set(m.replica ?? m.peer ?? m.reason, m);
      }
      // A replica that failed on any page stays named: what it answered on other pages may be short.
      if (!body.more) break;
      if (typeof body.cursor !== "string" || body.cursor === cursor) throw new Error(`the collector at ${base} answered a ${key} page without a new cursor`);
      cursor = body.cursor;
    }
    return { byReplica, missing, unreadable, bad };
  };

  /** Items replica by replica, by replica name. */
  const ordered = <T>(byReplica: Map<string, T[]>): T[] => [...byReplica.keys()].sort().flatMap((r) => byReplica.get(r) ?? []);

  return {
    async load() {
      const records = await readAll<SpoolRecord>("records", (v) => (isSpoolRecord(v) ? v : undefined));
      const labels = await readAll<LabelRecord>("labels", (v) => {
        const line = parseLabelLine(JSON.stringify(v));
        return typeof line === "object" && "label" in line ? line.label : undefined;
      });
      // Each answer once (the first seen), as spool directories merge.
      const seen = new Set<string>();
      const unique = ordered(records.byReplica).filter((r) => {
        if (seen.has(r.id)) return false;
        seen.add(r.id);
        return true;
      });
      const missing = new Map([...records.missing, ...labels.missing]);
      return {
        records: unique,
        labels: ordered(labels.byReplica),
        unreadable: { spoolLines: records.unreadable + records.bad, labelLines: labels.unreadable + labels.bad },
        skippedFiles: [],
        source: { answers: `the collector at ${base} (replicas ${[...records.byReplica.keys()].sort().join(", ") || "none with answers"})`, labels: `the labels files of those replicas (through ${base})` },
        missing: [...missing.values()],
      };
    },
    async write(record, seen) {
      const { status, body } = await call("/v1/review/labels", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ label: record, seen }) });
      if (status === 409) {
        const conflict = (Array.isArray(body.conflict) ? body.conflict : []).flatMap((v: unknown) => {
          const line = parseLabelLine(JSON.stringify(v));
          return typeof line === "object" && "label" in line ? [line.label] : [];
        });
        if (conflict.length === 0) throw new Error(`the collector at ${base} refused the label (409) without saying whose labels it holds`);
        return { conflict };
      }
      if (!isPlainObject(body.written)) throw new Error(`the collector at ${base} did not say it wrote the label`);
      return { written: record, ...(typeof body.replica === "string" ? { replica: clean(body.replica) } : {}) };
    },
  };
}

/** The replicas that did not answer, in words for stderr: "replicas r2 (timeout), 10.0.0.7:4318 (unreachable) did not answer: figures cover the others". */
export function describeMissing(missing: readonly MissingReplica[], consequence = "the figures cover the replicas that answered"): string | undefined {
  if (missing.length === 0) return undefined;
  const names = missing.map((m) => `${m.replica ?? m.peer ?? "a replica"} (${m.reason})`).join(", ");
  return `${missing.length === 1 ? "replica" : "replicas"} ${names} did not answer (all or part of the read): ${consequence}`;
}
