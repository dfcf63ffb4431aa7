import { describe, expect, it } from "vitest";
import type { TraceEntry } from "../../src/collector/trace-buffer.ts";
import { TraceBuffer } from "../../src/collector/trace-buffer.ts";

/** The buffer's invariants: totalBytes is the sum over held traces, waitingBytes the sum over waiting ones. */
function expectInvariants(buffer: TraceBuffer): void {
  const held = [...buffer.allTraces()].map(([, e]) => e);
  expect(buffer.totalBytes).toBe(held.reduce((n, e) => n + e.bytes, 0));
  expect(buffer.waitingBytes).toBe(held.filter((e) => e.waiting).reduce((n, e) => n + e.bytes, 0));
  expect(buffer.waiting).toBe(held.filter((e) => e.waiting).length);
  expect(buffer.size).toBe(held.length);
  expect([...buffer.openTraces()].every(([, e]) => !e.waiting)).toBe(true);
}

describe("TraceBuffer", () => {
  it("keeps totalBytes and waitingBytes the sums of what its traces hold, through adds, waits and removals", () => {
    const buffer = new TraceBuffer(10);
    const a = buffer.openTrace("a", 0);
    const b = buffer.openTrace("b", 1);
    buffer.addBytes(a, 100);
    buffer.addBytes(b, 40);
    expectInvariants(buffer);
    expect(buffer.totalBytes).toBe(140);
    buffer.markWaiting("a", a);
    buffer.markWaiting("a", a);
    expectInvariants(buffer);
    expect(buffer.waitingBytes).toBe(100);
    // Text added to a waiting trace counts as waiting; text let go leaves both counts.
    buffer.addBytes(a, 5);
    buffer.addBytes(b, -40);
    expectInvariants(buffer);
    expect([buffer.totalBytes, buffer.waitingBytes]).toEqual([105, 105]);
    buffer.remove("a", a, "/r");
    expectInvariants(buffer);
    expect([buffer.totalBytes, buffer.waitingBytes, buffer.size]).toEqual([0, 0, 1]);
  });

  it("lets the oldest open trace go first, and the oldest waiting one only when no trace is open", () => {
    const buffer = new TraceBuffer(10);
    const entries: Record<string, TraceEntry> = {};
    for (const id of ["a", "b", "c"]) entries[id] = buffer.openTrace(id, 0);
    buffer.markWaiting("a", entries.a as TraceEntry);
    expect(buffer.oldest()?.[0]).toBe("b");
    buffer.markWaiting("b", entries.b as TraceEntry);
    buffer.markWaiting("c", entries.c as TraceEntry);
    expect(buffer.oldest()?.[0]).toBe("a");
    expect([...buffer.waitingTraces()]).toEqual(["a", "b", "c"]);
  });

  it("remembers the routes of the traces it let go, the newest settledMemory of them", () => {
    const buffer = new TraceBuffer(2);
    for (const id of ["a", "b", "c"]) buffer.remove(id, buffer.openTrace(id, 0), `/${id}`);
    expect(buffer.isSettled("a")).toBe(false);
    expect(buffer.settledRoute("b")).toBe("/b");
    expect(buffer.settledRoute("c")).toBe("/c");
    expect(buffer.held("c")).toBeUndefined();
    expectInvariants(buffer);
  });

  it("removes a trace once: a second removal changes nothing", () => {
    const buffer = new TraceBuffer(10);
    const a = buffer.openTrace("a", 0);
    buffer.addBytes(a, 10);
    buffer.openTrace("b", 0);
    buffer.remove("a", a, "/r");
    buffer.remove("a", a, "/other");
    expect(buffer.totalBytes).toBe(0);
    expect(buffer.settledRoute("a")).toBe("/r");
    expectInvariants(buffer);
  });
});
