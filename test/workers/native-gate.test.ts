import { describe, expect, it } from "vitest";
import { NativeGateClosedError, closeNativeGate, createNativeGate, nativeCallsInFlight, threadNativeGates, throughNativeGates, waitNativeIdleSync, whenNativeIdle } from "../../src/workers/native-gate.ts";

/** A call that stays in flight until `finish` is called. */
function heldCall(): { promise: Promise<string>; finish: () => void } {
  let finish = (): void => undefined;
  const promise = new Promise<string>((resolve) => (finish = () => resolve("done")));
  return { promise, finish };
}

describe("native gate", () => {
  it("counts a call in flight in every gate it goes through until it settles", async () => {
    const outer = createNativeGate();
    const inner = createNativeGate();
    const held = heldCall();
    const running = throughNativeGates(() => held.promise, [outer, inner]);
    expect([nativeCallsInFlight(outer), nativeCallsInFlight(inner)]).toEqual([1, 1]);
    held.finish();
    await expect(running).resolves.toBe("done");
    expect([nativeCallsInFlight(outer), nativeCallsInFlight(inner)]).toEqual([0, 0]);
  });

  it("counts a call that fails out again", async () => {
    const gate = createNativeGate();
    await expect(throughNativeGates(() => Promise.reject(new Error("inference failed")), [gate])).rejects.toThrow("inference failed");
    expect(nativeCallsInFlight(gate)).toBe(0);
  });

  it("refuses a call once any of its gates is closed, without starting it", async () => {
    const outer = createNativeGate();
    const inner = createNativeGate();
    closeNativeGate(outer);
    let started = false;
    const refused = throughNativeGates(
      () => {
        started = true;
        return Promise.resolve(1);
      },
      [outer, inner],
    );
    await expect(refused).rejects.toBeInstanceOf(NativeGateClosedError);
    expect(started).toBe(false);
    expect([nativeCallsInFlight(outer), nativeCallsInFlight(inner)]).toEqual([0, 0]);
  });

  it("lets a call in flight finish after its gate closes, and says when none is left", async () => {
    const gate = createNativeGate();
    const held = heldCall();
    const running = throughNativeGates(() => held.promise, [gate]);
    closeNativeGate(gate);
    let idle = false;
    const waiting = whenNativeIdle(gate).then((v) => (idle = v));
    await Promise.resolve();
    expect(idle).toBe(false);
    held.finish();
    await running;
    await waiting;
    expect(idle).toBe(true);
  });

  it("gives up waiting for a call that does not finish within the bound", async () => {
    const gate = createNativeGate();
    const held = heldCall();
    const running = throughNativeGates(() => held.promise, [gate]);
    await expect(whenNativeIdle(gate, 20)).resolves.toBe(false);
    expect(waitNativeIdleSync(gate, 20)).toBe(false);
    held.finish();
    await running;
    expect(waitNativeIdleSync(gate, 20)).toBe(true);
  });

  it("has no gates on a thread no pool started", () => {
    expect(threadNativeGates()).toEqual([]);
  });
});
