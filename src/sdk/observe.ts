/**
 * What `Monitor.observe()` does with one call from the host: read the route, tally it, decide
 * whether it is sampled, copy what the host passed (inside the guard, once), and queue it. Every
 * call is accounted for — not sampled, failed (with its reason), dropped (with its reason) or
 * queued — and nothing throws into the host, whatever it passed.
 */
import { context as otelContext, diag, trace } from "@opentelemetry/api";
import type { ProviderBinding } from "../telemetry/providers.ts";
import { copyInput, readRouting } from "./input.ts";
import type { RouteTallies } from "./route-tally.ts";
import type { Sampler } from "./sampling.ts";
import type { Scheduler } from "./scheduler.ts";
import type { ObserveInput, ObserveOptions } from "./types.ts";

/**
 * observe() re-resolves the global MeterProvider on every this-many calls (and on the first);
 * recording an evaluation, a drop or a failure re-resolves it every time. A late check loses
 * nothing: what observe() feeds are cumulative tallies read by observable counters.
 */
const METER_CHECK_EVERY = 16;

/** The monitor-wide counts observe() adds to (read by `Monitor.stats()`). */
export interface ObserveCounts {
  seen: number;
  notSampled: number;
  sampled: number;
}

export interface ObserveDeps {
  readonly providers: Pick<ProviderBinding, "check" | "instruments">;
  readonly tallies: RouteTallies;
  readonly counts: ObserveCounts;
  /** The sampler in force (reload() replaces it). */
  readonly sampler: () => Sampler;
  /** False once shutdown has begun: observations are then dropped as "shutdown". */
  readonly accepting: () => boolean;
  readonly scheduler: Pick<Scheduler, "enqueue" | "pump">;
  /** Counts an observation that failed, with its reason. */
  readonly fail: (route: string, reason: string) => void;
  /** Counts an observation dropped, with its reason. */
  readonly drop: (route: string, reason: string) => void;
}

/** The observe() of a monitor over its parts. */
export function createObserve(deps: ObserveDeps): (input: ObserveInput | Omit<ObserveInput, "route">, observeOptions?: ObserveOptions) => void {
  const { providers, tallies, counts, scheduler, fail, drop } = deps;
  const routeLabels = tallies.labels;
  /** observe() calls since the last check of the global MeterProvider. */
  let sinceMeterCheck = METER_CHECK_EVERY;
  return (input, observeOptions) => {
    // Where this observation stands, so an unexpected error still leaves it accounted for.
    let stage: "none" | "seen" | "sampled" | "settled" = "none";
    let route = "unknown";
    let tally = { seen: 0, notSampled: 0, sampled: 0 };
    try {
      if (++sinceMeterCheck >= METER_CHECK_EVERY) {
        sinceMeterCheck = 0;
        providers.instruments();
      }
      providers.check();
      // The route and the override first: the rest is read only for an observation that is sampled.
      const routing = readRouting(input, observeOptions);
      route = routeLabels.label(routing.route);
      tally = tallies.tallyFor(route);
      counts.seen++;
      tally.seen++;
      stage = "seen";
      if (!routing.ok) {
        // Not sampled by the usual decision: input that cannot be read is always counted as failed.
        counts.sampled++;
        tally.sampled++;
        stage = "settled";
        fail(route, "invalid_input");
        diag.warn(`groundwatch: observe() on route ${route} got an invalid "${routing.field}": ${routing.why}`);
        return;
      }
      const active = observeOptions?.parent ?? otelContext.active();
      const spanContext = trace.getSpanContext(active);
      // Sampling rules match the route itself: one past the label cap keeps its own rate.
      const decision = routing.sample === "always" ? true : routing.sample === "never" ? false : deps.sampler().decide(routeLabels.clean(routing.route), spanContext?.traceId);
      if (!decision) {
        counts.notSampled++;
        tally.notSampled++;
        stage = "settled";
        return;
      }
      counts.sampled++;
      tally.sampled++;
      stage = "sampled";
      // Everything else of the host's is read here, once, inside the guard, and copied.
      const copied = copyInput(input as object, routing);
      if (!copied.ok) {
        stage = "settled";
        fail(route, "invalid_input");
        diag.warn(`groundwatch: observe() on route ${route} got an invalid "${copied.field}": ${copied.why}`);
        return;
      }
      if (!deps.accepting()) {
        stage = "settled";
        return drop(route, "shutdown");
      }
      const refused = scheduler.enqueue({ route, observation: copied.observation, parent: active, parentSpan: spanContext, attributes: copied.attributes, bytes: copied.bytes });
      stage = "settled";
      if (refused) return drop(route, refused);
      scheduler.pump();
    } catch (error) {
      // observe() must never throw into the host, and nothing goes unaccounted.
      if (stage === "seen") {
        counts.sampled++;
        tally.sampled++;
      }
      if (stage === "seen" || stage === "sampled") fail(route, "internal_error");
      diag.error(`groundwatch: observe() failed: ${(error as Error).message}`);
    }
  };
}
