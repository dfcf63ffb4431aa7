/**
 * The growth helper on a busy machine: while two processes of this test keep the cores busy (one
 * spinning, one taking fresh memory from the kernel, as the helpers' parallel test runs do), linear and
 * n log n work pass, n^1.5 and quadratic work fail, and a comparison whose larger size alone takes
 * fresh memory is refused with the reason.
 */
import { describe, expect, it } from "vitest";
import { LINEAR_GROWTH_BOUND, busyRatio, expectLinear, measureGrowth } from "./growth.ts";
import { spawnGroup } from "./processes.ts";

/** Two processes keeping the cores busy until the test ends: one spinning, one touching fresh pages. */
async function busyMachine(): Promise<void> {
  const spin = spawnGroup(process.execPath, ["-e", 'console.log("busy"); for (;;);']);
  const churn = spawnGroup(process.execPath, ["-e", 'console.log("busy"); for (;;) { const b = new Uint8Array(32 << 20); for (let i = 0; i < b.length; i += 4096) b[i] = 1; }']);
  await Promise.all([spin.waitFor(/busy/), churn.waitFor(/busy/)]);
}

/** Pure computation, no allocation: a sum over `n` numbers, `inner(n)` steps each. */
const steps = (inner: (n: number) => number) => (n: number): number => {
  const m = inner(n);
  let x = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) x = (x + ((i * 31) ^ j)) | 0;
  return x;
};

const words = (n: number): string[] => Array.from({ length: n }, (_, i) => `message ${i}`);

// Work that fails is measured in every round (4), and on a busy machine this process gets a fraction
// of a core: a bound for a hang, not a timing.
describe("growth tests on a busy machine", { timeout: 120_000 }, () => {
  it("pass linear work (a fixed number of steps per item)", async () => {
    await busyMachine();
    expectLinear("8 steps an item", measureGrowth((n) => n, steps(() => 8), { n: 20_000 }));
  });

  it("pass a keyed dedupe (linear)", async () => {
    await busyMachine();
    // Both sets stay under 128 KiB of table (a few thousand entries), so neither takes fresh pages.
    expectLinear("Set dedupe", measureGrowth(words, (list) => new Set(list).size, { n: 250, maxN: 500 }));
  });

  it("pass n log n work (a binary search per item)", async () => {
    await busyMachine();
    expectLinear("log2(n) steps an item", measureGrowth((n) => n, steps((n) => Math.ceil(Math.log2(n))), { n: 20_000 }));
  });

  it("catch n^1.5 work (√n steps per item)", async () => {
    await busyMachine();
    // n^1.5 is ×22.6 against a bound of ×16: the narrowest margin, so the default 7 samples a round.
    // With 3, a CI run whose every small sample was slowed (all vitest workers busy) measured it under
    // the bound; noise there only ever hides growth (it slows the smaller size's samples).
    const growth = measureGrowth((n) => n, steps((n) => Math.ceil(Math.sqrt(n))), { n: 2_000 });
    expect(() => expectLinear("√n steps an item", growth)).toThrow(/√n steps an item: .* linear is ×8/);
  });

  it("catch quadratic work (a linear-scan dedupe)", async () => {
    await busyMachine();
    const growth = measureGrowth(
      words,
      (list) => {
        const out: string[] = [];
        for (const w of list) if (!out.some((x) => x === w)) out.push(w);
        return out.length;
      },
      { n: 250, repeats: 3 },
    );
    expect(() => expectLinear("linear-scan dedupe", growth)).toThrow(/linear-scan dedupe: /);
  });

  it("refuse a comparison whose larger size alone takes fresh memory, saying so", () => {
    // 4,000 numbers (32 KiB) fit pages V8 already has; 32,000 (256 KiB) get pages of their own, fresh
    // from the kernel on every run: cheap to fill, so page faults are much of the larger size's cost.
    const growth = measureGrowth((n) => n, (n) => new Array<number>(n).fill(1).length, { n: 4_000, maxN: 4_000 });
    expect(growth.largeFaults).toBeGreaterThan(2 * growth.smallFaults);
    expect(busyRatio(growth)).toBeGreaterThanOrEqual(LINEAR_GROWTH_BOUND * 8);
    expect(() => expectLinear("an array of n", growth)).toThrow(/an array of n: .* the larger size takes memory fresh from the kernel/);
  });
});
