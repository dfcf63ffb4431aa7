import type { BatchQueue, QueuedEntry, TakenBatch } from "./batch-queue.ts";
import { createBatchQueue } from "./batch-queue.ts";

/** What the ranked queue reads of an entry: its rank too. */
export interface RankedEntry extends QueuedEntry {
  /** Lower ranks are served first (a scoring worker ranks an observation's pairs by when it started it); Infinity: unranked. */
  readonly rank: number;
}

/**
 * The dynamic batcher's queue with ranks (CallOptions.rank): a batch is led by the pairs of the lowest
 * rank queued — its oldest and those nearest it in length, from that rank alone — identical pairs of
 * other ranks ride along, and room left is filled as without ranks (the oldest queued of any rank and
 * those nearest it in length). So an observation a worker started earlier fills whole batches until it
 * is done, instead of sharing every batch with the observations started after it; small observations
 * still share batches. With one rank (or none) it chooses exactly as batch-queue.ts. A batch of b
 * entries costs O(b · log n) plus the ranks queued, which are at most the observations in flight.
 */
export function createRankedQueue<E extends RankedEntry>(): BatchQueue<E> {
  /** Every queued entry: what fills a batch's room, and the oldest for the wait bound. */
  const all = createBatchQueue<E>();
  /** The same entries by rank. */
  const lanes = new Map<number, BatchQueue<E>>();

  const laneOf = (entry: E): BatchQueue<E> | undefined => lanes.get(entry.rank);
  const headLane = (): BatchQueue<E> | undefined => {
    let head: { rank: number; lane: BatchQueue<E> } | undefined;
    for (const [rank, lane] of lanes) {
      if (lane.size === 0) lanes.delete(rank);
      else if (!head || rank < head.rank) head = { rank, lane };
    }
    return head?.lane;
  };

  return {
    get size() {
      return all.size;
    },
    push(entry) {
      let lane = laneOf(entry);
      if (!lane) lanes.set(entry.rank, (lane = createBatchQueue<E>()));
      lane.push(entry);
      all.push(entry);
    },
    oldest() {
      return all.oldest();
    },
    take(maxBatch): TakenBatch<E> {
      const lane = headLane();
      if (!lane) return { entries: [], slotOf: [], distinct: 0 };
      const led = lane.take(maxBatch);
      all.withdraw(led.entries);
      const entries = [...led.entries];
      const slotOf = [...led.slotOf];
      let distinct = led.distinct;
      // Identical pairs of other ranks run once with the lead's.
      const slotOfKey = new Map<string, number>();
      led.entries.forEach((e, k) => {
        if (e.key !== undefined) slotOfKey.set(e.key, led.slotOf[k] as number);
      });
      for (const [key, slot] of slotOfKey) {
        for (const e of all.takeKey(key)) {
          laneOf(e)?.withdraw([e]);
          entries.push(e);
          slotOf.push(slot);
        }
      }
      if (distinct < maxBatch && all.size > 0) {
        const fill = all.take(maxBatch - distinct);
        fill.entries.forEach((e, k) => {
          laneOf(e)?.withdraw([e]);
          entries.push(e);
          slotOf.push((fill.slotOf[k] as number) + distinct);
        });
        distinct += fill.distinct;
      }
      return { entries, slotOf, distinct };
    },
    takeKey(key) {
      const taken = all.takeKey(key);
      for (const e of taken) laneOf(e)?.withdraw([e]);
      return taken;
    },
    withdraw(entries) {
      const list = [...entries];
      all.withdraw(list);
      for (const e of list) laneOf(e)?.withdraw([e]);
    },
    clear() {
      lanes.clear();
      return all.clear();
    },
  };
}
