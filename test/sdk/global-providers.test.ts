import type { DiagLogger } from "@opentelemetry/api";
import { DiagLogLevel, diag, metrics, trace } from "@opentelemetry/api";
import { logs } from "@opentelemetry/api-logs";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { testOtel } from "../helpers/otel.ts";

const GOOD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 30 days of delivery." };
const BAD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 90 days of delivery." };
const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const ROUTE = "/api/returns";
/** More observe() calls than the monitor lets pass between two checks of the global MeterProvider. */
const MANY = 40;

class ManualReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

type Points = Map<string, Array<{ attributes: Record<string, unknown>; value: unknown }>>;

async function collect(reader: MetricReader): Promise<Points> {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  const out: Points = new Map();
  for (const sm of resourceMetrics.scopeMetrics) {
    for (const metric of sm.metrics) out.set(metric.descriptor.name, metric.dataPoints.map((p) => ({ attributes: p.attributes as Record<string, unknown>, value: p.value })));
  }
  return out;
}

/** Providers registered as the OpenTelemetry globals, the way a host's SDK start does it. */
function registerGlobals(): { spans: InMemorySpanExporter; events: InMemoryLogRecordExporter; metrics: () => Promise<Points>; shutdown: () => Promise<void> } {
  const spans = new InMemorySpanExporter();
  const events = new InMemoryLogRecordExporter();
  const reader = new ManualReader();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: events })] });
  expect(trace.setGlobalTracerProvider(tracerProvider)).toBe(true);
  expect(metrics.setGlobalMeterProvider(meterProvider)).toBe(true);
  logs.setGlobalLoggerProvider(loggerProvider);
  return {
    spans,
    events,
    metrics: () => collect(reader),
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
}

/**
 * Everything a test set up, undone in order when it ends: the monitor first (it drains into
 * the providers), then the providers, then the globals.
 */
function cleanup(): { monitors: Monitor[]; shutdowns: Array<() => Promise<void>> } {
  const state = { monitors: [] as Monitor[], shutdowns: [] as Array<() => Promise<void>> };
  onTestFinished(async () => {
    await Promise.all(state.monitors.map((m) => m.shutdown(1000)));
    await Promise.all(state.shutdowns.map((s) => s()));
    metrics.disable();
    trace.disable();
    logs.disable();
    diag.disable();
  });
  return state;
}

function monitorOf(state: { monitors: Monitor[] }, extra: MonitorOptions = {}): Monitor {
  const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, sampling: { default: 0 }, ...extra });
  state.monitors.push(monitor);
  return monitor;
}

/** Warnings that reach the diag logger. */
function captureWarnings(): string[] {
  const warnings: string[] = [];
  const ignore = (): void => undefined;
  const logger: DiagLogger = { error: ignore, warn: (message) => warnings.push(message), info: ignore, debug: ignore, verbose: ignore };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  return warnings;
}

const unexported = (warnings: readonly string[]): string[] => warnings.filter((w) => w.startsWith("groundwatch: no OpenTelemetry"));

function sum(points: Points, name: string): number {
  return (points.get(name) ?? []).reduce((n, p) => n + (p.value as number), 0);
}

describe("a monitor created before the host registers its OpenTelemetry SDK", () => {
  it("exports metrics, spans and events to providers registered after createMonitor, counting observations from before and after", async () => {
    const state = cleanup();
    const monitor = monitorOf(state);
    // Before the SDK starts: the API hands out its no-op meter provider.
    monitor.observe({ route: ROUTE, ...GOOD, sample: "always" });
    monitor.observe({ route: ROUTE, ...GOOD, sample: "never" });
    const otel = registerGlobals();
    state.shutdowns.push(otel.shutdown);
    monitor.observe({ route: ROUTE, ...BAD, sample: "always" });
    monitor.observe({ route: ROUTE, ...GOOD, sample: "never" });
    await monitor.flush();
    expect(monitor.stats()).toMatchObject({ seen: 4, sampled: 2, notSampled: 2, scored: 2 });

    const points = await otel.metrics();
    expect(points.get(METRICS.seen.name)).toEqual([{ attributes: { "groundwatch.route": ROUTE }, value: 4 }]);
    expect(sum(points, METRICS.sampled.name)).toBe(2);
    expect(sum(points, METRICS.notSampled.name)).toBe(2);
    expect(sum(points, METRICS.scored.name)).toBe(2);
    expect(sum(points, METRICS.evaluations.name)).toBe(2);
    expect(points.get(METRICS.evaluations.name)?.filter((p) => Number(p.value) > 0).map((p) => p.attributes["groundwatch.verdict"]).sort()).toEqual(["grounded", "ungrounded"]);
    const scoreCount = (points.get(METRICS.score.name) ?? []).reduce((n, p) => n + (p.value as { count: number }).count, 0);
    expect(scoreCount).toBe(2);
    expect(points.get(METRICS.queueDepth.name)?.[0]?.value).toBe(0);

    // The tracer and logger the monitor took before registration delegate to the SDK's.
    expect(otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate")).toHaveLength(2);
    expect(otel.events.getFinishedLogRecords().filter((l) => l.eventName === "gen_ai.evaluation.result")).toHaveLength(2);
  });

  it("counts observations that are never sampled once the host registers a MeterProvider", async () => {
    const state = cleanup();
    const monitor = monitorOf(state);
    for (let i = 0; i < 3; i++) monitor.observe({ route: ROUTE, ...GOOD });
    const otel = registerGlobals();
    state.shutdowns.push(otel.shutdown);
    for (let i = 0; i < MANY; i++) monitor.observe({ route: ROUTE, ...GOOD });

    const points = await otel.metrics();
    expect(points.get(METRICS.seen.name)).toEqual([{ attributes: { "groundwatch.route": ROUTE }, value: 3 + MANY }]);
    expect(sum(points, METRICS.notSampled.name)).toBe(3 + MANY);
    expect(points.has(METRICS.sampled.name)).toBe(false);
  });

  it("moves to a MeterProvider that replaces the registered one, without reporting twice", async () => {
    const state = cleanup();
    const monitor = monitorOf(state);
    const first = registerGlobals();
    state.shutdowns.push(first.shutdown);
    monitor.observe({ route: ROUTE, ...GOOD, sample: "always" });
    await monitor.flush();
    expect(sum(await first.metrics(), METRICS.evaluations.name)).toBe(1);

    metrics.disable();
    trace.disable();
    logs.disable();
    const second = registerGlobals();
    state.shutdowns.push(second.shutdown);
    monitor.observe({ route: ROUTE, ...BAD, sample: "always" });
    await monitor.flush();

    const now = await second.metrics();
    expect(sum(now, METRICS.seen.name)).toBe(2);
    expect(sum(now, METRICS.evaluations.name)).toBe(1);
    expect(second.spans.getFinishedSpans()).toHaveLength(1);
    expect(second.events.getFinishedLogRecords()).toHaveLength(1);
    // The first provider's observable counters stopped at what they last read (the SDK keeps
    // reporting a cumulative series' last value): they no longer follow the monitor's tallies.
    const old = await first.metrics();
    expect(sum(old, METRICS.seen.name)).toBe(1);
    expect(sum(old, METRICS.evaluations.name)).toBe(1);
  });

  it("relies on the API's tracer proxy: a tracer taken before trace.setGlobalTracerProvider records spans afterwards", () => {
    const state = cleanup();
    const early = trace.getTracerProvider().getTracer("early");
    const otel = registerGlobals();
    state.shutdowns.push(otel.shutdown);
    early.startSpan("late-span").end();
    expect(otel.spans.getFinishedSpans().map((s) => s.name)).toEqual(["late-span"]);
  });
});

describe("warnings about signals that will not be exported", () => {
  it("warns once per missing provider at the first observe(), naming what will not be exported", async () => {
    const warnings = captureWarnings();
    const state = cleanup();
    const monitor = monitorOf(state);
    expect(unexported(warnings)).toEqual([]);
    for (let i = 0; i < 5; i++) monitor.observe({ route: ROUTE, ...GOOD });
    const said = unexported(warnings);
    expect(said).toHaveLength(3);
    expect(said.filter((w) => /TracerProvider.*groundwatch\.evaluate.*will not be exported/.test(w))).toHaveLength(1);
    expect(said.filter((w) => /MeterProvider.*groundwatch metrics \(groundwatch\..*will not be exported.*pass meterProvider to createMonitor/.test(w))).toHaveLength(1);
    expect(said.filter((w) => /LoggerProvider.*gen_ai\.evaluation\.result.*will not be exported/.test(w))).toHaveLength(1);

    // Registered later, the providers simply start working, with no further warning.
    const otel = registerGlobals();
    state.shutdowns.push(otel.shutdown);
    for (let i = 0; i < MANY; i++) monitor.observe({ route: ROUTE, ...GOOD });
    monitor.observe({ route: ROUTE, ...GOOD, sample: "always" });
    await monitor.flush();
    expect(unexported(warnings)).toHaveLength(3);
    expect(sum(await otel.metrics(), METRICS.seen.name)).toBe(6 + MANY);
  });

  it("says nothing when the providers are registered before the first observe(), even after createMonitor", () => {
    const warnings = captureWarnings();
    const state = cleanup();
    const before = monitorOf(state);
    const otel = registerGlobals();
    state.shutdowns.push(otel.shutdown);
    const after = monitorOf(state);
    for (let i = 0; i < 5; i++) {
      before.observe({ route: ROUTE, ...GOOD });
      after.observe({ route: ROUTE, ...GOOD });
    }
    expect(unexported(warnings)).toEqual([]);
  });

  it("says nothing about providers passed to createMonitor", () => {
    const warnings = captureWarnings();
    const state = cleanup();
    const own = testOtel();
    const monitor = monitorOf(state, { tracerProvider: own.tracerProvider, meterProvider: own.meterProvider, loggerProvider: own.loggerProvider });
    for (let i = 0; i < 5; i++) monitor.observe({ route: ROUTE, ...GOOD });
    expect(unexported(warnings)).toEqual([]);
  });
});

describe("an explicit meterProvider", () => {
  it("is used and never re-bound to the global MeterProvider", async () => {
    const warnings = captureWarnings();
    const state = cleanup();
    const own = testOtel();
    const monitor = monitorOf(state, { meterProvider: own.meterProvider });
    monitor.observe({ route: ROUTE, ...GOOD, sample: "always" });
    const global = registerGlobals();
    state.shutdowns.push(global.shutdown);
    for (let i = 0; i < MANY; i++) monitor.observe({ route: ROUTE, ...GOOD });
    monitor.observe({ route: ROUTE, ...BAD, sample: "always" });
    await monitor.flush();

    const mine = await own.metrics();
    expect(sum(mine, METRICS.seen.name)).toBe(2 + MANY);
    expect(sum(mine, METRICS.evaluations.name)).toBe(2);
    const theirs = await global.metrics();
    expect([...theirs.keys()].filter((name) => name.startsWith("groundwatch."))).toEqual([]);
    // Spans and events had no provider of their own, so they went to the global ones.
    expect(global.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate")).toHaveLength(2);
    // No warning about metrics: their provider was passed in. The tracer and logger had none at the first observe().
    expect(unexported(warnings).map((w) => /(\w+Provider)/.exec(w)?.[1])).toEqual(["TracerProvider", "LoggerProvider"]);
  });
});
