import { loadConfig } from "../config/file.ts";
import type { MonitorOptions, ResolvedMonitorOptions } from "../sdk/options.ts";
import { resolveMonitorOptions } from "../sdk/options.ts";
import type { CollectorOptions, ResolvedCollectorOptions } from "./options.ts";
import { resolveCollectorOptions } from "./options.ts";
import { collectorResampleOptions } from "./resampler.ts";

/** What startCollector takes: the collector's options and its monitor's (given in code, or serve's flags). */
export type CollectorSetupOptions = CollectorOptions & { readonly monitor?: MonitorOptions };

/**
 * The collector's configuration and its monitor's, resolved once from one reading of the config file
 * (and of the calibration it names). `serve` reports this value (banner, --print-config) and hands it
 * to startCollector, which runs it: what is printed is what runs.
 */
export interface ResolvedCollectorSetup {
  readonly collector: ResolvedCollectorOptions;
  readonly monitor: ResolvedMonitorOptions;
  /** The monitor's options as resolved (the collector's config file and resampler, then the code's): what monitor.reload() resolves again. */
  readonly monitorOptions: MonitorOptions;
}

/** Resolves the collector's and its monitor's options (option > env > file > default), reading the config file once. */
export function resolveCollectorSetup(options: CollectorSetupOptions = {}): ResolvedCollectorSetup {
  const env = options.env ?? process.env;
  const loaded = loadConfig(options.configFile, env);
  const collector = resolveCollectorOptions(options, loaded);
  const monitorOptions: MonitorOptions = {
    env,
    ...(collector.configFile ? { configFile: collector.configFile } : {}),
    // Live semantic entropy through the configured resampler; a `resample` given in code outranks it.
    ...(collector.resample ? { resample: collectorResampleOptions(collector.resample) } : {}),
    ...options.monitor,
  };
  const monitor = resolveMonitorOptions(monitorOptions, loaded);
  return { collector, monitor, monitorOptions };
}
