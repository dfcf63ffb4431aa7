import { describe, expect, it } from "vitest";
import { createByteLru } from "../../src/core/byte-lru.ts";

describe("createByteLru: a map bounded by the bytes of its entries", () => {
  it("keeps entries while their bytes fit the bound", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 40);
    lru.set("b", "B", 60);
    expect([lru.get("a"), lru.get("b")]).toEqual(["A", "B"]);
  });

  it("evicts the least recently set entries first until a new one fits", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 40);
    lru.set("b", "B", 40);
    lru.set("c", "C", 40);
    expect([lru.has("a"), lru.has("b"), lru.has("c")]).toEqual([false, true, true]);
  });

  it("counts a get as a use: the entry read last is evicted last", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 40);
    lru.set("b", "B", 40);
    expect(lru.get("a")).toBe("A");
    lru.set("c", "C", 40);
    expect([lru.has("a"), lru.has("b"), lru.has("c")]).toEqual([true, false, true]);
  });

  it("does not count has as a use", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 40);
    lru.set("b", "B", 40);
    expect(lru.has("a")).toBe(true);
    lru.set("c", "C", 40);
    expect(lru.has("a")).toBe(false);
  });

  it("replaces an entry set again under its key, counting only its new bytes", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 60);
    lru.set("a", "A2", 30);
    lru.set("b", "B", 70);
    expect([lru.get("a"), lru.get("b")]).toEqual(["A2", "B"]);
  });

  it("keeps no entry larger than the bound, and evicts nothing for it", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 50);
    lru.set("huge", "H", 101);
    expect(lru.has("huge")).toBe(false);
    expect(lru.get("a")).toBe("A");
  });

  it("keeps an entry of exactly the bound, alone", () => {
    const lru = createByteLru<string>(100);
    lru.set("a", "A", 10);
    lru.set("full", "F", 100);
    expect([lru.has("a"), lru.get("full")]).toEqual([false, "F"]);
  });

  it("stays within its bound through many sets: what is left fits", () => {
    const lru = createByteLru<number>(1000);
    for (let i = 0; i < 10_000; i++) lru.set(`k${i}`, i, (i % 97) + 1);
    let bytes = 0;
    for (let i = 0; i < 10_000; i++) if (lru.has(`k${i}`)) bytes += (i % 97) + 1;
    expect(bytes).toBeLessThanOrEqual(1000);
    expect(lru.get("k9999")).toBe(9999);
  });

  it("returns undefined for a key never set", () => {
    expect(createByteLru<string>(10).get("missing")).toBeUndefined();
  });
});
