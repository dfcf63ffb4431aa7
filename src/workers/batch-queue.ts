import type { OrderedNumbers } from "./ordered-numbers.ts";
import { createOrderedNumbers } from "./ordered-numbers.ts";

/**
 * The dynamic batcher's queue (batcher.ts), indexed so that choosing a batch costs what the
 * batch holds, not what is queued: entries in arrival order (the oldest), in buckets by length kept
 * in an ordered set of lengths (the nearest lengths to the oldest's, outward), and identical entries
 * (one key) as one group that is taken whole. A batch of b entries from a queue of n costs
 * O(b · log n); withdrawn entries are skipped once, where they are met. Sorting the whole queue at
 * every batch made draining n entries quadratic (redteam-4 L7).
 */

/** What the queue reads of an entry. */
export interface QueuedEntry {
  /** The length proxy batches gather by (non-finite reads as 0). */
  readonly length: number;
  /** Entries with one key are one item, run once (undefined: never merged). */
  readonly key: string | undefined;
}

/** One batch: the entries taken, and for each the slot of its distinct item (0 … distinct − 1, nearest to the oldest first). */
export interface TakenBatch<E> {
  readonly entries: E[];
  readonly slotOf: number[];
  /** Distinct items (slots) in the batch. */
  readonly distinct: number;
}

export interface BatchQueue<E extends QueuedEntry> {
  /** Entries queued (not taken, not withdrawn), identical ones each counted. */
  readonly size: number;
  /** Queues an entry (each entry object once). */
  push(entry: E): void;
  /** The entry queued longest, if any. */
  oldest(): E | undefined;
  /**
   * Takes a batch: the oldest entry and the queued entries nearest to it in length (equally near:
   * the older first; identical entries are as old as the first of them queued), up to `maxBatch`
   * distinct items; every queued entry with the key of one taken rides along.
   */
  take(maxBatch: number): TakenBatch<E>;
  /** Takes every queued entry with `key` (identical to one taken elsewhere: they ride along with it). */
  takeKey(key: string): E[];
  /** Withdraws those of `entries` still queued (taken ones are left alone). */
  withdraw(entries: Iterable<E>): void;
  /** Takes every queued entry, oldest first, and leaves the queue empty. */
  clear(): E[];
}

interface Group<E> {
  readonly key: string | undefined;
  /** Order of creation: equally near groups go oldest first. */
  readonly seq: number;
  readonly nodes: Array<QueueNode<E>>;
  /** Nodes still queued. */
  live: number;
}

interface QueueNode<E> {
  readonly entry: E;
  readonly group: Group<E>;
  queued: boolean;
}

/** Groups of one length, in creation order; the taken and withdrawn ones are before `head`. */
interface Bucket<E> {
  groups: Array<Group<E>>;
  head: number;
}

/** A FIFO read from `head`, compacted when more than half of it is behind. */
function compact<X>(items: X[], head: number): { items: X[]; head: number } {
  return head > 64 && head * 2 > items.length ? { items: items.slice(head), head: 0 } : { items, head };
}

const lengthOf = (e: QueuedEntry): number => (Number.isFinite(e.length) ? e.length : 0);

/** An empty batch queue. */
export function createBatchQueue<E extends QueuedEntry>(): BatchQueue<E> {
  let arrival: Array<QueueNode<E>> = [];
  let arrivalHead = 0;
  const nodes = new Map<E, QueueNode<E>>();
  const buckets = new Map<number, Bucket<E>>();
  let lengths: OrderedNumbers = createOrderedNumbers();
  const groupOfKey = new Map<string, Group<E>>();
  let size = 0;
  let seq = 0;

  const oldestNode = (): QueueNode<E> | undefined => {
    while (arrivalHead < arrival.length && !arrival[arrivalHead]?.queued) arrivalHead++;
    ({ items: arrival, head: arrivalHead } = compact(arrival, arrivalHead));
    return arrival[arrivalHead];
  };
  const unqueue = (node: QueueNode<E>): void => {
    node.queued = false;
    node.group.live--;
    nodes.delete(node.entry);
    size--;
  };
  /** The first group of a bucket with an entry queued, dropping the spent ones before it (and the bucket, when none is left). */
  const front = (length: number): Group<E> | undefined => {
    const bucket = buckets.get(length);
    if (!bucket) return undefined;
    while (bucket.head < bucket.groups.length && (bucket.groups[bucket.head]?.live ?? 0) === 0) bucket.head++;
    ({ items: bucket.groups, head: bucket.head } = compact(bucket.groups, bucket.head));
    const group = bucket.groups[bucket.head];
    if (!group) {
      buckets.delete(length);
      lengths.delete(length);
    }
    return group;
  };

  return {
    get size() {
      return size;
    },
    push(entry) {
      if (nodes.has(entry)) return;
      const length = lengthOf(entry);
      let group = entry.key === undefined ? undefined : groupOfKey.get(entry.key);
      if (!group || group.live === 0) {
        group = { key: entry.key, seq: seq++, nodes: [], live: 0 };
        if (entry.key !== undefined) groupOfKey.set(entry.key, group);
        let bucket = buckets.get(length);
        if (!bucket) {
          buckets.set(length, (bucket = { groups: [], head: 0 }));
          lengths.add(length);
        }
        bucket.groups.push(group);
      }
      const node: QueueNode<E> = { entry, group, queued: true };
      group.nodes.push(node);
      group.live++;
      nodes.set(entry, node);
      arrival.push(node);
      size++;
    },
    oldest() {
      return oldestNode()?.entry;
    },
    take(maxBatch) {
      const entries: E[] = [];
      const slotOf: number[] = [];
      let distinct = 0;
      const takeGroup = (group: Group<E>): void => {
        if (group.live === 0) return;
        const slot = distinct++;
        for (const node of group.nodes) {
          if (!node.queued) continue;
          unqueue(node);
          entries.push(node.entry);
          slotOf.push(slot);
        }
        if (group.key !== undefined && groupOfKey.get(group.key) === group) groupOfKey.delete(group.key);
      };
      const first = oldestNode();
      if (!first) return { entries, slotOf, distinct };
      const at = lengthOf(first.entry);
      // The oldest leads (it is never starved), then its own length, then outward.
      takeGroup(first.group);
      let g: Group<E> | undefined;
      while (distinct < maxBatch && (g = front(at))) takeGroup(g);
      let lo = lengths.below(at);
      let hi = lengths.above(at);
      while (distinct < maxBatch && (lo !== undefined || hi !== undefined)) {
        const dLo = lo === undefined ? Infinity : at - lo;
        const dHi = hi === undefined ? Infinity : hi - at;
        const gLo = dLo <= dHi && lo !== undefined ? front(lo) : undefined;
        const gHi = dHi <= dLo && hi !== undefined ? front(hi) : undefined;
        // A spent bucket is gone from the set: look past it.
        if (dLo <= dHi && lo !== undefined && !gLo) lo = lengths.below(lo);
        if (dHi <= dLo && hi !== undefined && !gHi) hi = lengths.above(hi);
        if (!gLo && !gHi) continue;
        takeGroup(gLo && (!gHi || gLo.seq < gHi.seq) ? gLo : (gHi as Group<E>));
      }
      return { entries, slotOf, distinct };
    },
    takeKey(key) {
      const group = groupOfKey.get(key);
      const out: E[] = [];
      if (!group) return out;
      for (const node of group.nodes) {
        if (!node.queued) continue;
        unqueue(node);
        out.push(node.entry);
      }
      groupOfKey.delete(key);
      return out;
    },
    withdraw(entries) {
      for (const entry of entries) {
        const node = nodes.get(entry);
        if (node?.queued) unqueue(node);
      }
    },
    clear() {
      const out: E[] = [];
      for (let i = arrivalHead; i < arrival.length; i++) {
        const node = arrival[i];
        if (node?.queued) out.push(node.entry);
      }
      arrival = [];
      arrivalHead = 0;
      nodes.clear();
      buckets.clear();
      groupOfKey.clear();
      lengths = createOrderedNumbers();
      size = 0;
      return out;
    },
  };
}
