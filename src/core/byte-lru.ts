/** A map bounded by the estimated bytes of its entries: least recently used out first. */
export interface ByteLru<V> {
  /** The value, marked as just used; undefined when absent. */
  get(key: string): V | undefined;
  has(key: string): boolean;
  /** Keeps the value unless its bytes alone exceed the bound; evicts the oldest until it fits. */
  set(key: string, value: V, bytes: number): void;
  /** Drops every entry. */
  clear(): void;
}

export function createByteLru<V>(maxBytes: number): ByteLru<V> {
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;
  return {
    get(key: string): V | undefined {
      const hit = entries.get(key);
      if (!hit) return undefined;
      entries.delete(key);
      entries.set(key, hit);
      return hit.value;
    },
    has(key: string): boolean {
      return entries.has(key);
    },
    set(key: string, value: V, bytes: number): void {
      if (bytes > maxBytes) return;
      const old = entries.get(key);
      if (old) {
        entries.delete(key);
        total -= old.bytes;
      }
      entries.set(key, { value, bytes });
      total += bytes;
      for (const [k, entry] of entries) {
        if (total <= maxBytes) break;
        entries.delete(k);
        total -= entry.bytes;
      }
    },
    clear(): void {
      entries.clear();
      total = 0;
    },
  };
}
