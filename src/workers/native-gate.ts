/**
 * Native calls a thread's teardown must never interrupt. onnxruntime-node runs `session.run` (and
 * loads and releases sessions) asynchronously on its own threads; if the JavaScript thread that owns
 * the session is torn down while such a call is in flight — `worker.terminate()`, or the process
 * exiting — its completion throws a C++ exception nothing catches, and the whole process aborts
 * (SIGABRT). A gate makes teardown safe: every such call goes through the gates of its thread, and a
 * thread is only ever torn down after its gate was closed (no call starts any more) and no call is
 * in flight through it.
 *
 * A gate is two 32-bit cells in shared memory, readable from every thread: [closed, in flight]. The
 * pool that starts a worker gives it a gate of its own plus the gates of the thread starting it, so a
 * call in a nested worker (an inference worker inside a scoring worker) counts in every gate above it.
 */
import { workerData } from "node:worker_threads";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** The shared cells of one gate: [closed (0 or 1), native calls in flight]. */
export type NativeGate = Int32Array;

const CLOSED = 0;
const IN_FLIGHT = 1;

/** What a pool's worker receives as its workerData: its own data, and the gates its native calls go through. */
export interface GatedWorkerData<D = unknown> {
  /** The data the pool was created with. */
  readonly data: D;
  /** This worker's gate and those of every thread above it. */
  readonly gates: readonly NativeGate[];
}

/** A native call was refused: its thread is being taken down (or its pool closed). */
export class NativeGateClosedError extends GroundwatchError {
  override readonly code = "native_gate_closed";
  constructor() {
    super("the worker running this model is shutting down; no new inference starts on it");
    this.name = "NativeGateClosedError";
  }
}

export function createNativeGate(): NativeGate {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** Closes the gate: from now on every native call through it is refused; calls in flight finish. */
export function closeNativeGate(gate: NativeGate): void {
  Atomics.store(gate, CLOSED, 1);
}

export function nativeGateClosed(gate: NativeGate): boolean {
  return Atomics.load(gate, CLOSED) === 1;
}

/** Native calls in flight through the gate, on any thread below it. */
export function nativeCallsInFlight(gate: NativeGate): number {
  return Atomics.load(gate, IN_FLIGHT);
}

function isGate(v: unknown): v is NativeGate {
  return v instanceof Int32Array && v.buffer instanceof SharedArrayBuffer && v.length === 2;
}

/** The gates of this thread: none on the main thread or in a worker no pool started. */
export function threadNativeGates(): readonly NativeGate[] {
  const gates = (workerData as Partial<GatedWorkerData> | null | undefined)?.gates;
  return Array.isArray(gates) ? gates.filter(isGate) : [];
}

/** The data a pool's worker was started with (its workerData without the gates). */
export function workerPayload<D>(): D {
  return (workerData as GatedWorkerData<D>).data;
}

function leave(gates: readonly NativeGate[]): void {
  for (const gate of gates) {
    Atomics.sub(gate, IN_FLIGHT, 1);
    Atomics.notify(gate, IN_FLIGHT);
  }
}

/**
 * Runs a native call through the gates (default: this thread's): counted in flight in each until it
 * settles. Refused with NativeGateClosedError, before it starts, when any of them is closed. The
 * count is raised before the check, so a closer that then reads zero in flight knows none will start.
 */
export async function throughNativeGates<T>(call: () => Promise<T>, gates: readonly NativeGate[] = threadNativeGates()): Promise<T> {
  for (const gate of gates) Atomics.add(gate, IN_FLIGHT, 1);
  if (gates.some(nativeGateClosed)) {
    leave(gates);
    throw new NativeGateClosedError();
  }
  try {
    return await call();
  } finally {
    leave(gates);
  }
}

type WaitAsync = (array: Int32Array, index: number, value: number, timeout?: number) => { async: false; value: string } | { async: true; value: Promise<string> };

/** The steps of waiting for no call in flight: the count seen and the ms left at each, until it is 0 (true) or the time is up (false). */
function* idleSteps(gate: NativeGate, timeoutMs: number, now: () => number): Generator<{ readonly n: number; readonly left: number }, boolean> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const n = nativeCallsInFlight(gate);
    if (n === 0) return true;
    const left = deadline - now();
    if (left <= 0) return false;
    yield { n, left };
  }
}

/**
 * Resolves true once no native call is in flight through the gate (close it first, or more may
 * start), or false when `timeoutMs` passes first. Waits on the shared cell, without polling.
 */
export async function whenNativeIdle(gate: NativeGate, timeoutMs = Infinity, now: () => number = performance.now.bind(performance)): Promise<boolean> {
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  const steps = idleSteps(gate, timeoutMs, now);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    const waited = waitAsync(gate, IN_FLIGHT, step.value.n, Number.isFinite(step.value.left) ? step.value.left : undefined);
    if (waited.async) await waited.value;
  }
}

/**
 * The same, blocking this thread: for a process 'exit' listener, the last moment before Node tears
 * the workers down, when nothing asynchronous can run any more.
 */
export function waitNativeIdleSync(gate: NativeGate, timeoutMs: number, now: () => number = performance.now.bind(performance)): boolean {
  const steps = idleSteps(gate, timeoutMs, now);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    Atomics.wait(gate, IN_FLIGHT, step.value.n, step.value.left);
  }
}
