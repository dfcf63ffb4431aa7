import { UsageError } from "../shared/command.ts";

/** The period a report covers, in Unix seconds from `from` up to `to` (exclusive); always UTC. */
export interface Period {
  readonly from: number;
  readonly to: number;
  /** Set when --from was a date alone: the period starts at 00:00 UTC that day. */
  readonly fromDay?: string;
  /** Set when --to was a date alone: that day is included, so `to` is 00:00 UTC the next day. */
  readonly toDay?: string;
  /** The --since length in seconds, when the period was given that way. */
  readonly since?: number;
  /** Whether `to` is the clock's time because --to was not given. */
  readonly toNow: boolean;
}

/** The flags a period is read from; each as given, or undefined when absent. */
export interface PeriodFlags {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly since?: string | undefined;
}

const DAY = 86_400;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const UNIX = /^\d+(\.\d+)?$/;
const LENGTH = /^(\d+)([mhdw])$/;
const LENGTH_UNITS: Readonly<Record<string, number>> = { m: 60, h: 3600, d: DAY, w: 7 * DAY };

/** Seconds since the epoch of a UTC calendar time, or undefined when a field is out of range (2026-02-30). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number | undefined {
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const d = new Date(ms);
  const same = d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day && d.getUTCHours() === hour && d.getUTCMinutes() === minute && d.getUTCSeconds() === second;
  return same ? ms / 1000 : undefined;
}

/**
 * Reads a --from or --to value: a date alone (UTC; the start of the day for `start`, the end of it —
 * the next midnight — for `end`), an ISO 8601 time (its offset, or UTC without one) or Unix seconds.
 */
export function parseTime(flag: string, value: string, edge: "start" | "end"): { time: number; day?: string } {
  const bad = (why = ""): UsageError => new UsageError(`--${flag} is not a date${why}: ${JSON.stringify(value)} (use 2026-11-30, 2026-11-30T08:00:00Z or Unix seconds)`);
  const v = value.trim();
  const date = DATE_ONLY.exec(v);
  if (date) {
    const start = utc(Number(date[1]), Number(date[2]), Number(date[3]));
    if (start === undefined) throw bad(" (no such day)");
    return { time: edge === "start" ? start : start + DAY, day: v };
  }
  const dt = DATE_TIME.exec(v);
  if (dt) {
    const local = utc(Number(dt[1]), Number(dt[2]), Number(dt[3]), Number(dt[4]), Number(dt[5]), Number(dt[6] ?? 0));
    if (local === undefined) throw bad(" (no such time)");
    const zone = (dt[8] ?? "Z").toUpperCase();
    let offset = 0;
    if (zone !== "Z") {
      const digits = zone.slice(1).replace(":", "");
      const hours = Number(digits.slice(0, 2));
      const minutes = Number(digits.slice(2) || "0");
      if (hours > 23 || minutes > 59 || digits.length === 3) throw bad(" (bad UTC offset)");
      offset = (zone.startsWith("-") ? -1 : 1) * (hours * 3600 + minutes * 60);
    }
    return { time: local + Number(dt[7] ?? 0) - offset };
  }
  if (UNIX.test(v)) {
    // 20261130 would be a time in August 1970: surely a date written without dashes.
    if (/^\d{8}$/.test(v) && utc(Number(v.slice(0, 4)), Number(v.slice(4, 6)), Number(v.slice(6))) !== undefined) throw bad(` (write it as ${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6)}; a number is read as Unix seconds)`);
    return { time: Number(v) };
  }
  throw bad();
}

/** Reads a --since length such as 30d, 12h or 2w, in seconds. */
export function parseLength(flag: string, value: string): number {
  const m = LENGTH.exec(value.trim());
  const n = m ? Number(m[1]) * (LENGTH_UNITS[m[2] ?? ""] ?? 0) : 0;
  if (!(n > 0)) throw new UsageError(`--${flag} must be a length such as 30d, 12h or 2w (m minutes, h hours, d days, w weeks), got ${JSON.stringify(value)}`);
  return n;
}

/**
 * The report period from --from/--to or --since. --to defaults to the clock's time; a date-only
 * --to includes that day. `now` is injected so tests can fix the clock.
 */
export function resolvePeriod(flags: PeriodFlags, now: () => Date = () => new Date()): Period {
  if (flags.since !== undefined && flags.from !== undefined) throw new UsageError("give --from or --since, not both: --since sets the start of the period from its end", true);
  if (flags.since === undefined && flags.from === undefined) throw new UsageError("give the period: --from DATE [--to DATE], or --since 30d", true);
  const end = flags.to !== undefined ? parseTime("to", flags.to, "end") : undefined;
  const to = end?.time ?? Math.floor(now().getTime() / 1000);
  const toDay = end?.day !== undefined ? { toDay: end.day } : {};
  if (flags.since !== undefined) {
    const since = parseLength("since", flags.since);
    return { from: to - since, to, since, toNow: end === undefined, ...toDay };
  }
  const start = parseTime("from", flags.from ?? "", "start");
  if (to <= start.time) throw new UsageError(end ? "--to must be after --from" : "--from must be in the past (--to defaults to now)");
  return { from: start.time, to, toNow: end === undefined, ...toDay, ...(start.day !== undefined ? { fromDay: start.day } : {}) };
}

const DURATION_UNITS: ReadonlyArray<readonly [number, string, string]> = [
  [DAY, "day", "days"],
  [3600, "h", "h"],
  [60, "min", "min"],
  [1, "s", "s"],
];

/** A length of time for people: "5 min", "1 h", "1 day", "91 days", "1 day 12 h" (at most two units). */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  if (rest < 1) return "under 1 s";
  const parts: string[] = [];
  for (const [size, one, many] of DURATION_UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 && parts.length < 2) parts.push(`${n} ${n === 1 ? one : many}`);
    else if (parts.length > 0) break;
  }
  return parts.join(" ");
}

/** A UTC time to the minute (to the second when it has seconds): "2026-11-30 14:05". No zone suffix. */
export function formatTime(t: number): string {
  const iso = new Date(Math.round(t) * 1000).toISOString();
  return Math.round(t) % 60 === 0 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** The period in words for the report header, its exact bounds in UTC and its length. */
export function describePeriod(p: Period): string {
  const exact = `${formatTime(p.from)} to ${formatTime(p.to)} UTC`;
  const length = formatDuration(p.to - p.from);
  const toText = p.toDay !== undefined ? `the end of ${p.toDay}` : p.toNow ? "now" : `${formatTime(p.to)} UTC`;
  if (p.since !== undefined) return p.toNow ? `the last ${length} (${exact})` : `the ${length} up to ${toText} (${exact})`;
  if (p.fromDay !== undefined && p.toDay !== undefined) return `${p.fromDay} to ${p.toDay}, both days included (${exact}, ${length})`;
  if (p.fromDay !== undefined || p.toDay !== undefined || p.toNow) return `${p.fromDay !== undefined ? `the start of ${p.fromDay}` : `${formatTime(p.from)} UTC`} to ${toText} (${exact}, ${length})`;
  return `${exact} (${length})`;
}

/** Chart steps: round lengths, so windows read as "5 min" or "1 day" rather than "12528s". */
export const CHART_STEPS: readonly number[] = [1, 5, 15, 30, 60, 300, 900, 3600, 6 * 3600, DAY];
/** The most points a chart draws (it is 600 px wide); the step is the smallest round one within it. */
export const MAX_CHART_POINTS = 300;
/** The shortest rate window: a few scrapes at the usual 15–60 s interval. */
export const MIN_WINDOW = 300;

/**
 * The step between chart points and the window each point's rate covers, for a period `span` seconds
 * long: 5 min windows up to a day, 15 min up to 3 days, 1 h up to 12 days, 6 h up to 75 days, then 1 day.
 */
export function chartResolution(span: number): { step: number; window: number; label: string } {
  const step = CHART_STEPS.find((s) => span / s <= MAX_CHART_POINTS) ?? DAY;
  const window = Math.max(MIN_WINDOW, step);
  return { step, window, label: `${formatDuration(window)} windows` };
}

/** A duration as PromQL writes it, in the largest whole unit: 300 → "5m", 86400 → "1d". */
export function promDuration(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  for (const [size, unit] of [[DAY, "d"], [3600, "h"], [60, "m"]] as const) if (s % size === 0) return `${s / size}${unit}`;
  return `${s}s`;
}
