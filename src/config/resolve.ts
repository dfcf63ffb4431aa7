import { dirname, resolve as resolvePath } from "node:path";
import type { Parser } from "./parse.ts";
import { isBlank } from "./parse.ts";

/**
 * Where a configured value came from: a code option (or CLI flag), the environment, the config file,
 * a calibration file (the answer threshold and the relevance thresholds), or nowhere (the default applies).
 * pickSource gives the first four; the monitor adds "calibration".
 */
export type ValueSource = "option" | "env" | "file" | "calibration" | "default";

/** A value picked by precedence, with the field a ConfigError about it names. */
export interface PickedValue {
  /** The option name, the environment variable, or "config file section.key". */
  readonly field: string;
  /** The raw value, not yet parsed; undefined when nothing set it. */
  readonly value: unknown;
  readonly source: Exclude<ValueSource, "calibration">;
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

/** A setting resolved: its parsed value, where it came from, and the field a ConfigError about it names. */
export interface ResolvedField<T> {
  readonly value: T;
  /** "default" when nothing set it, or what set it parsed as unset (a blank string). */
  readonly source: ValueSource;
  readonly field: string;
}

/**
 * The one "pick, parse, default" of groundwatch's settings: pickSource's precedence, `parse` on the
 * value picked (a ConfigError names its field), and `fallback` (source "default") when nothing set it.
 */
export function resolveField<T>(spec: PickSourceOptions & { readonly parse: Parser<T>; readonly fallback: T }): ResolvedField<T>;
export function resolveField<T>(spec: PickSourceOptions & { readonly parse: Parser<T> }): ResolvedField<T | undefined>;
export function resolveField<T>(spec: PickSourceOptions & { readonly parse: Parser<T>; readonly fallback?: T }): ResolvedField<T | undefined> {
  const picked = pickSource(spec);
  const parsed = spec.parse(picked.field, picked.value);
  if (parsed === undefined) return { value: spec.fallback, source: "default", field: spec.key };
  return { value: parsed, source: picked.source, field: picked.field };
}

/** The settings of one section read by resolveField: `read(key, parse, fallback?)`, each source recorded in `sources`. */
export interface FieldReader<K extends string> {
  <T>(key: K, parse: Parser<T>, fallback: T): T;
  <T>(key: K, parse: Parser<T>): T | undefined;
  /** The whole resolution of a key (value, source, field). */
  field<T>(key: K, parse: Parser<T>): ResolvedField<T | undefined>;
  /** The raw value picked, unparsed (for settings parsed with context, like a bearer token's length). */
  picked(key: K): PickedValue;
}

/** Where a section's settings are read from, for fieldReader. */
export interface SectionSources<K extends string> {
  /** The code options (or CLI flags) of the section, by key. */
  readonly options: Readonly<Partial<Record<K, unknown>>>;
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The environment variable of each key that has one. */
  readonly envNames?: Readonly<Partial<Record<K, string>>>;
  /** The config file's section, already loaded. */
  readonly file?: Readonly<Record<string, unknown>> | undefined;
  /** The section's name in the config file, for messages ("scoring", "monitor", "collector", "monitor.review"). */
  readonly section: string;
  /** A prefix of the option names in messages ("review." for `review.dir`); the file key stays the bare key. */
  readonly prefix?: string;
  /** Filled with each key's source as it is read. */
  readonly sources?: Partial<Record<K, ValueSource>>;
}

/** A reader of one section's settings through resolveField, recording where each came from. */
export function fieldReader<K extends string>(from: SectionSources<K>): FieldReader<K> {
  const spec = (key: K): PickSourceOptions => ({ key: `${from.prefix ?? ""}${key}`, option: from.options[key], env: from.env, envName: from.envNames?.[key], file: from.file, section: from.section, fileKey: key });
  const field = <T>(key: K, parse: Parser<T>): ResolvedField<T | undefined> => {
    const resolved = resolveField({ ...spec(key), parse });
    if (from.sources) from.sources[key] = resolved.source;
    return resolved;
  };
  const read = <T>(key: K, parse: Parser<T>, fallback?: T): T | undefined => field(key, parse).value ?? fallback;
  return Object.assign(read as FieldReader<K>, { field, picked: (key: K) => pickSource(spec(key)) });
}

/**
 * A path as its source means it: a path in the config file is the file's own, relative to the
 * file's folder wherever the process runs; any other (option, flag, environment) is as given.
 */
export function fileRelativePath<P extends { readonly value: string | undefined; readonly source: ValueSource }>(picked: P, configFile: string | undefined): string | undefined {
  if (picked.value === undefined) return undefined;
  return picked.source === "file" && configFile !== undefined ? resolvePath(dirname(configFile), picked.value) : picked.value;
}

/** How each source of a setting is named, for describeSource. */
export interface SourceNames {
  /** The flag or code option ("--threshold"). */
  readonly option: string;
  /** Its environment variable, if it has one. */
  readonly envName?: string | undefined;
  /** Its key in the config file ("scoring.threshold"). */
  readonly fileKey: string;
  /** What the default is ("backend default"). Default "default". */
  readonly default?: string;
}

/** Where a setting came from, in words: the one wording of ValueSource (serve's banner, --print-config). */
export function describeSource(source: ValueSource, names: SourceNames): string {
  switch (source) {
    case "option":
      return names.option;
    case "env":
      return names.envName ?? "environment";
    case "file":
      return `config file ${names.fileKey}`;
    case "calibration":
      return "calibration";
    case "default":
      return names.default ?? "default";
  }
}
