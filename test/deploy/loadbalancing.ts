import { crc32 } from "node:zlib";

/**
 * How the OpenTelemetry Collector's loadbalancing exporter (contrib, exporter/loadbalancingexporter)
 * picks a backend, ported line for line for the tests: a consistent-hash ring of 36 000 positions, 100
 * per endpoint (crc32 of the endpoint name and the point's index, duplicates dropped, sorted), and
 * for each batch the first ring item at or after crc32(routing key) % 36 000, wrapping around. With
 * `routing_key: traceID` the key is the trace id's 16 bytes: of the first span of each per-trace batch
 * (batchpersignal.SplitTraces), and of the first record of each per-trace log batch (SplitLogs).
 * The resolvers hand the ring their endpoints sorted.
 */
const MAX_POSITIONS = 36_000;
const DEFAULT_WEIGHT = 100;

export interface RingItem {
  readonly pos: number;
  readonly endpoint: string;
}

export function positionsFor(endpoint: string, numPoints: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < numPoints; i++) out.push(crc32(Buffer.concat([Buffer.from(endpoint), Buffer.from([i & 0xff])])) % MAX_POSITIONS);
  return out;
}

export function positionsForEndpoints(endpoints: readonly string[], weight: number): RingItem[] {
  const items: RingItem[] = [];
  const used = new Set<number>();
  for (const endpoint of endpoints) {
    for (const pos of positionsFor(endpoint, weight)) {
      if (used.has(pos)) continue;
      used.add(pos);
      items.push({ pos, endpoint });
    }
  }
  return items.sort((a, b) => a.pos - b.pos);
}

/** The upstream binary search: the closest "next" item at or after `pos`, else the first. */
export function bsearch(pos: number, left: readonly RingItem[], right: readonly RingItem[]): RingItem {
  if (left.at(-1)!.pos === pos) return left.at(-1)!;
  if (right[0]!.pos === pos) return right[0]!;
  if (pos > right.at(-1)!.pos) return left[0]!;
  if (pos > left.at(-1)!.pos) {
    if (right.length === 1) return right[0]!;
    const half = Math.floor(right.length / 2);
    return bsearch(pos, right.slice(0, half), right.slice(half));
  }
  if (left.length === 1) return left[0]!;
  const half = Math.floor(left.length / 2);
  return bsearch(pos, left.slice(0, half), left.slice(half));
}

export class HashRing {
  readonly items: readonly RingItem[];
  constructor(endpoints: readonly string[], weight = DEFAULT_WEIGHT) {
    this.items = positionsForEndpoints(endpoints, weight);
  }

  /** The endpoint for a routing key: a trace id's bytes with routing_key traceID. */
  endpointFor(id: Uint8Array): string {
    const half = Math.floor(this.items.length / 2);
    return bsearch(crc32(id) % MAX_POSITIONS, this.items.slice(0, half), this.items.slice(half)).endpoint;
  }

  /** The endpoint for a trace, by its hex trace id (as OTLP/JSON carries it). */
  endpointForTrace(traceIdHex: string): string {
    return this.endpointFor(Buffer.from(traceIdHex, "hex"));
  }
}
