import { isBlank } from "./parse.ts";

/** Where a configured value came from: a code option (or CLI flag), the environment, the config file, or nowhere (the default applies). */
export type ValueSource = "option" | "env" | "file" | "default";

/** A value picked by precedence, with the field a ConfigError about it names. */
export interface PickedValue {
  /** The option name, the environment variable, or "config file section.key". */
  readonly field: string;
  /** The raw value, not yet parsed; undefined when nothing set it. */
  readonly value: unknown;
  readonly source: ValueSource;
}

/** One setting to pick: its code option, its environment variable and its config-file key. */
export interface PickSourceOptions {
  /** The option's name (what a ConfigError names when the option or the default is in force). */
  readonly key: string;
  /** The code option (or CLI flag) value; undefined when not given. */
  readonly option: unknown;
  /** The environment to read. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The environment variable of this setting, if it has one. */
  readonly envName?: string | undefined;
  /** The config file's section for this setting (already loaded). */
  readonly file?: Readonly<Record<string, unknown>> | undefined;
  /** The section's name in the config file ("scoring", "monitor", "collector", "sampling"), for messages. */
  readonly section: string;
  /** The key in the section, when it differs from `key`. */
  readonly fileKey?: string;
}

/**
 * The one precedence of groundwatch's settings: code option > environment variable > config file >
 * default. An environment variable that is empty or blank counts as unset.
 */
export function pickSource(spec: PickSourceOptions): PickedValue {
  if (spec.option !== undefined) return { field: spec.key, value: spec.option, source: "option" };
  const fromEnv = spec.envName !== undefined ? spec.env?.[spec.envName] : undefined;
  if (spec.envName !== undefined && !isBlank(fromEnv)) return { field: spec.envName, value: fromEnv, source: "env" };
  const fileKey = spec.fileKey ?? spec.key;
  const fromFile = spec.file?.[fileKey];
  if (fromFile !== undefined) return { field: `config file ${spec.section}.${fileKey}`, value: fromFile, source: "file" };
  return { field: spec.key, value: undefined, source: "default" };
}
