import { describe, expect, it } from "vitest";
import { createJobRanks } from "../../src/sdk/job-rank.ts";
import { createRankedQueue } from "../../src/workers/ranked-queue.ts";

interface E {
  readonly name: string;
  readonly length: number;
  readonly key: string | undefined;
  readonly rank: number;
}

describe("a scoring worker's job ranks", () => {
  it("ranks observations by start, and every guard check below them, the oldest check first", () => {
    const ranks = createJobRanks();
    const observations = [ranks.next(false), ranks.next(false)];
    const checks = [ranks.next(true), ranks.next(true)];
    const later = ranks.next(false);
    expect(observations).toEqual([0, 1]);
    expect(later).toBe(2);
    expect(checks[0]).toBeLessThan(checks[1] as number);
    expect(checks[1]).toBeLessThan(0);
  });

  it("lets a guard check's pairs lead the batcher's next batch though observations' pairs were queued first", () => {
    const ranks = createJobRanks();
    const queue = createRankedQueue<E>();
    const observation = ranks.next(false);
    for (let i = 0; i < 4; i++) queue.push({ name: `observation-${i}`, length: 10, key: undefined, rank: observation });
    const check = ranks.next(true);
    queue.push({ name: "check-0", length: 10, key: undefined, rank: check });
    queue.push({ name: "check-1", length: 10, key: undefined, rank: check });
    expect(queue.take(2).entries.map((e) => e.name)).toEqual(["check-0", "check-1"]);
  });
});
