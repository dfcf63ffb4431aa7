import { rng } from "../core/rng.ts";

/**
 * A set of numbers kept in order (a treap: a binary search tree whose shape a seeded random priority
 * per node keeps balanced, so every operation is O(log n) expected, whatever order the numbers
 * arrive in). For a caller that needs the neighbours of a number among many that come and go, where
 * a sorted array would cost O(n) per insertion or a full sort per look-up.
 */
export interface OrderedNumbers {
  /** Numbers in the set. */
  readonly size: number;
  /** Adds `x` (no effect when present). `x` must not be NaN. */
  add(x: number): void;
  /** Removes `x` (no effect when absent). */
  delete(x: number): void;
  /** The greatest number in the set below `x`, if any. */
  below(x: number): number | undefined;
  /** The least number in the set above `x`, if any. */
  above(x: number): number | undefined;
}

interface TreapNode {
  readonly value: number;
  readonly priority: number;
  left: TreapNode | undefined;
  right: TreapNode | undefined;
}

/** Splits a tree into the nodes below `x` and those at or above it. Depth O(log n) expected. */
function split(t: TreapNode | undefined, x: number): [TreapNode | undefined, TreapNode | undefined] {
  if (!t) return [undefined, undefined];
  if (t.value < x) {
    const [l, r] = split(t.right, x);
    t.right = l;
    return [t, r];
  }
  const [l, r] = split(t.left, x);
  t.left = r;
  return [l, t];
}

/** Joins two trees, every value of `a` below every value of `b`. */
function merge(a: TreapNode | undefined, b: TreapNode | undefined): TreapNode | undefined {
  if (!a) return b;
  if (!b) return a;
  if (a.priority > b.priority) {
    a.right = merge(a.right, b);
    return a;
  }
  b.left = merge(a, b.left);
  return b;
}

/** The tree without the node holding `x` (present): its children joined in its place. */
function remove(t: TreapNode | undefined, x: number): TreapNode | undefined {
  if (!t) return undefined;
  if (x === t.value) return merge(t.left, t.right);
  if (x < t.value) t.left = remove(t.left, x);
  else t.right = remove(t.right, x);
  return t;
}

/** An empty ordered set; `seed` fixes the priorities (the shape, never the answers). */
export function createOrderedNumbers(seed = 0x5eed): OrderedNumbers {
  const random = rng(seed);
  let root: TreapNode | undefined;
  let size = 0;
  const has = (x: number): boolean => {
    let t = root;
    while (t) {
      if (x === t.value) return true;
      t = x < t.value ? t.left : t.right;
    }
    return false;
  };
  return {
    get size() {
      return size;
    },
    add(x) {
      if (Number.isNaN(x)) throw new RangeError("OrderedNumbers: NaN has no order");
      if (has(x)) return;
      const [below, atOrAbove] = split(root, x);
      root = merge(merge(below, { value: x, priority: random(), left: undefined, right: undefined }), atOrAbove);
      size++;
    },
    delete(x) {
      if (!has(x)) return;
      root = remove(root, x);
      size--;
    },
    below(x) {
      let best: number | undefined;
      for (let t = root; t; ) {
        if (t.value < x) {
          best = t.value;
          t = t.right;
        } else t = t.left;
      }
      return best;
    },
    above(x) {
      let best: number | undefined;
      for (let t = root; t; ) {
        if (t.value > x) {
          best = t.value;
          t = t.left;
        } else t = t.right;
      }
      return best;
    },
  };
}
