export { createMonitor } from "./monitor.ts";
export type { Monitor, MonitorHealth, MonitorStats, ObserveInput, ObserveOptions } from "./types.ts";
export { resolveMonitorOptions } from "./options.ts";
export type { CompletedEvaluation, DriftReferenceStatus, MonitorOptions, ResampleOptions, ResampleRequest, ResampleResult, ResolvedMonitorOptions, ThresholdSource } from "./options.ts";
export type { ResampleOutcome } from "./resample.ts";
export { createSampler, traceFraction } from "./sampling.ts";
export type { Sampler, SamplingRules } from "./sampling.ts";
export { groundwatchMiddleware, observeRequest, routeTemplate } from "./express.ts";
export type { GroundwatchRequest, RequestLike, RequestObserver } from "./express.ts";
