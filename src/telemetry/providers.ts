import type { Counter, Meter, MeterProvider, Tracer, TracerProvider } from "@opentelemetry/api";
import { ProxyTracerProvider, createNoopMeter, diag, metrics, trace } from "@opentelemetry/api";
import type { Logger, LoggerProvider } from "@opentelemetry/api-logs";
import { createNoopLogger, logs } from "@opentelemetry/api-logs";
import type { Instruments, ObservableSources } from "./instruments.ts";
import { counterOf, createInstruments, observeSources } from "./instruments.ts";
import { EVENT_GEN_AI_EVALUATION_RESULT, METRICS, SPAN_EVALUATE } from "./semconv.ts";

const PACKAGE = "groundwatch";

/**
 * groundwatch.review.files_skipped as the monitor records it on `provider`: the same registration
 * on the monitor's meter, so what a collector's labels gauge passes over adds to the series the
 * monitor's spool writer adds to (one metric family on /metrics, not one per meter).
 */
export function reviewFilesSkippedCounter(provider: MeterProvider): Counter {
  return counterOf(provider.getMeter(PACKAGE), METRICS.reviewFilesSkipped);
}

/**
 * `resolve()` gives the provider to use now, `bind` what the monitor takes from it (a tracer,
 * a logger). The returned function re-binds only when the provider is another object: a
 * reference comparison, so it is cheap enough for every call.
 */
function boundTo<P, T>(resolve: () => P, bind: (provider: P) => T): () => T {
  let provider = resolve();
  let bound = bind(provider);
  return () => {
    const current = resolve();
    if (current !== provider) {
      provider = current; // a provider that fails is not retried on every call
      try {
        bound = bind(current);
      } catch (error) {
        diag.error(`groundwatch: could not use the registered OpenTelemetry provider: ${(error as Error).message}`);
      }
    }
    return bound;
  };
}

/**
 * Whether the tracer provider is the API's no-op one. `trace.getTracerProvider()` is a
 * ProxyTracerProvider; without a registered SDK its delegate is the API's internal no-op
 * provider, the same object any fresh ProxyTracerProvider falls back to. Nothing is started
 * on it, so the check creates no span.
 */
function isNoopTracerProvider(provider: TracerProvider): boolean {
  const delegate = (provider as { getDelegate?: () => TracerProvider }).getDelegate?.() ?? provider;
  return delegate === new ProxyTracerProvider().getDelegate() || delegate.constructor.name === "NoopTracerProvider";
}

/**
 * Whether the logger provider is the Logs API's no-op one. Without a registered SDK,
 * `logs.getLoggerProvider()` is a proxy whose delegate is the no-op provider, which hands out
 * NoopLogger instances.
 */
function isNoopLoggerProvider(provider: LoggerProvider): boolean {
  const delegate = (provider as { _getDelegate?: () => LoggerProvider })._getDelegate?.() ?? provider;
  const logger = delegate.getLogger(PACKAGE);
  return logger instanceof createNoopLogger().constructor || logger.constructor.name === "NoopLogger";
}

/**
 * Whether `meter` is the API's no-op meter (what `metrics.getMeterProvider()` hands out
 * while no MeterProvider is registered). The class-name test covers a second copy of
 * @opentelemetry/api, whose no-op meter is another instance.
 */
function isNoopMeter(meter: Meter): boolean {
  return meter === createNoopMeter() || meter.constructor.name === "NoopMeter";
}

const START_SDK = "Start the OpenTelemetry SDK (e.g. NodeSDK) before the first request, or pass";

/** The providers a monitor was given; each one absent is the global one, re-resolved on use. */
export interface ProviderBindingOptions {
  /** Used as it is when given; otherwise `trace.getTracerProvider()`. */
  readonly tracerProvider?: TracerProvider | undefined;
  /** Used as it is when given; otherwise `metrics.getMeterProvider()`, followed when it is replaced. */
  readonly meterProvider?: MeterProvider | undefined;
  /** Used as it is when given; otherwise `logs.getLoggerProvider()`. */
  readonly loggerProvider?: LoggerProvider | undefined;
  /** What the observable instruments read at each collection (moved along with the instruments). */
  readonly sources: ObservableSources;
}

/** The tracer, logger and instruments a monitor records with, bound to the providers in use now. */
export interface ProviderBinding {
  /** The tracer of the provider in use now. */
  tracer(): Tracer;
  /** The logger of the provider in use now. */
  logger(): Logger;
  /** The instruments, created again (and the observable callbacks moved) when the global MeterProvider is another object. */
  instruments(): Instruments;
  /** Warns once, on the first call, about each signal that goes nowhere because no provider is registered. */
  check(): void;
}

/**
 * Binds a monitor to its OpenTelemetry providers. Providers the host passes are used as they
 * are. The global ones are re-resolved on use: a host often creates the monitor at module load
 * and starts its OpenTelemetry SDK later. Tracers and loggers from the API's proxies delegate
 * once a provider is registered; the re-resolution also follows a provider that replaces the
 * proxy (after trace.disable() or logs.disable()). Metrics have no proxy: see instruments().
 */
export function createProviderBinding(options: ProviderBindingOptions): ProviderBinding {
  const { tracerProvider: tracerProviderOption, meterProvider: meterProviderOption, loggerProvider: loggerProviderOption, sources } = options;
  const tracer = boundTo(() => tracerProviderOption ?? trace.getTracerProvider(), (p) => p.getTracer(PACKAGE));
  const logger = boundTo(() => loggerProviderOption ?? logs.getLoggerProvider(), (p) => p.getLogger(PACKAGE));

  // The instruments live on one meter. Without a meterProvider option it is the global
  // provider's, and the API returns its no-op provider until the host registers one (there is
  // no proxy for metrics), so the monitor checks the global provider as it goes and, when it is
  // another object, creates the instruments again on the new meter and moves the observable
  // callbacks there (the old ones are removed, so nothing is reported twice).
  let meterProvider: MeterProvider = meterProviderOption ?? metrics.getMeterProvider();
  let meter = meterProvider.getMeter(PACKAGE);
  let instruments: Instruments = createInstruments(meter);
  let unobserve = observeSources(instruments, sources);
  const bindMeter = (): void => {
    if (meterProviderOption) return;
    const current = metrics.getMeterProvider();
    if (current === meterProvider) return;
    try {
      const nextMeter = current.getMeter(PACKAGE);
      const next = createInstruments(nextMeter);
      const nextUnobserve = observeSources(next, sources);
      unobserve();
      meterProvider = current;
      meter = nextMeter;
      instruments = next;
      unobserve = nextUnobserve;
    } catch (error) {
      meterProvider = current; // not retried on every call; the previous instruments stay in use
      diag.error(`groundwatch: could not create metrics on the registered MeterProvider: ${(error as Error).message}`);
    }
  };

  /** Said once, at the first observe(): which signals go nowhere because no provider is registered. */
  let providersChecked = false;
  const warnUnexported = (): void => {
    providersChecked = true;
    try {
      if (!tracerProviderOption && isNoopTracerProvider(trace.getTracerProvider())) {
        diag.warn(`groundwatch: no OpenTelemetry TracerProvider is registered: groundwatch evaluation spans (${SPAN_EVALUATE}) will not be exported. ${START_SDK} tracerProvider to createMonitor.`);
      }
      if (!meterProviderOption && isNoopMeter(meter)) {
        diag.warn(`groundwatch: no OpenTelemetry MeterProvider is registered: groundwatch metrics (${METRICS.score.name}, ${METRICS.evaluations.name}, groundwatch.observations.* …) will not be exported. ${START_SDK} meterProvider to createMonitor.`);
      }
      if (!loggerProviderOption && isNoopLoggerProvider(logs.getLoggerProvider())) {
        diag.warn(`groundwatch: no OpenTelemetry LoggerProvider is registered: groundwatch evaluation events (${EVENT_GEN_AI_EVALUATION_RESULT}) will not be exported. ${START_SDK} loggerProvider to createMonitor.`);
      }
    } catch (error) {
      diag.debug(`groundwatch: could not check the OpenTelemetry providers: ${(error as Error).message}`);
    }
  };

  return {
    tracer,
    logger,
    instruments(): Instruments {
      bindMeter();
      return instruments;
    },
    check(): void {
      if (!providersChecked) warnUnexported();
    },
  };
}
