import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BackendIdentity, CalibrationProvenance, CalibrationVerdict, DatasetFingerprint, ProductionProvenance } from "../core/calibration.ts";
import { CALIBRATION_VERDICTS, calibrationVerdict } from "../core/calibration.ts";
import type { Blocked, ClassOutcome, FitRow } from "../core/calibration-fit.ts";
import { BLOCKED_REASONS } from "../core/calibration-fit.ts";
import type { CalibrationDriftReference } from "./drift-reference-file.ts";
import { readDriftReference } from "./drift-reference-file.ts";
import { ConfigError } from "./errors.ts";
import type { ResolvedScoreOptions } from "./score-options.ts";
import { stripBom } from "./text-file.ts";
import { asPlainObject } from "../core/plain-object.ts";
import type { TriageThresholds } from "../core/result.ts";

/** groundwatch's own example files (the package's examples/ folder). */
export const BUNDLED_EXAMPLES_DIR: string = fileURLToPath(new URL("../../examples/", import.meta.url));

/** Hex sha256 of some bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The sha256 of every labelled-data file groundwatch ships (examples/*.jsonl and examples/eval/*), read now. */
export function bundledExampleHashes(dir: string = BUNDLED_EXAMPLES_DIR): ReadonlySet<string> {
  const hashes = new Set<string>();
  for (const sub of ["", "eval"]) {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub));
    } catch {
      continue; // not shipped in this installation
    }
    for (const name of names.filter((n) => /\.(jsonl|json)$/i.test(n))) {
      try {
        hashes.add(sha256Hex(readFileSync(join(dir, sub, name))));
      } catch {
        // unreadable: not one to compare with
      }
    }
  }
  return hashes;
}

/** calibration.json as the SDK, serve, doctor and evidence read it: every field checked, since the file is the user's. */
export interface Calibration extends CalibrationProvenance {
  readonly threshold: number;
  /** The pooled drift reference (a plain labelled set); empty for a set from production review, whose reference is `driftReference`. */
  readonly referenceScores: readonly number[];
  /**
   * A set from production review's drift reference: weighted scores per route, or why its rows
   * cannot stand for live traffic. Undefined for a plain set (and files written before): `referenceScores` then.
   */
  readonly driftReference: CalibrationDriftReference | undefined;
  readonly backend: BackendIdentity | undefined;
  readonly createdAt: string | undefined;
  readonly criterion: string | undefined;
  /**
   * What the labelled set established: from the AUROC interval when the file has one (the
   * interval is the evidence), else the recorded verdict; undefined when it has neither.
   */
  readonly verdict: CalibrationVerdict | undefined;
  readonly auroc: { readonly value: number; readonly low: number; readonly high: number } | undefined;
  /** Rows the AUROC and threshold were fitted on. */
  readonly rows: number | undefined;
  /** calibrate's estimate of the extra labelled rows that would settle a weak verdict; null when no realistic set would. */
  readonly labelsToSettle: number | null | undefined;
  /** Rows the backend could not score, and how many of them were left out of the fit. */
  readonly unscorable: { readonly rows: number; readonly excluded: number | undefined } | undefined;
  /**
   * The relevance thresholds calibrate fitted on the set (each only when it could be fitted):
   * they apply where the user set none, before the backend's recommended ones.
   */
  readonly relevanceThresholds: { readonly context?: number; readonly answer?: number } | undefined;
  /**
   * The cascade's thresholds calibrate fitted on the set ("cascade"): they apply where the user set
   * none (withCalibratedCascade); undefined for a file without them.
   */
  readonly cascadeThresholds: TriageThresholds | undefined;
  /**
   * The span threshold calibrate recorded ("spans"): `alone` (backend spans) 1 − `threshold`,
   * `refine` fitted on the answer labels; `threshold` null when it could not be fitted. Undefined for
   * a file without a span detector.
   */
  readonly spanThreshold: { readonly mode: "alone" | "refine"; readonly threshold: number | null } | undefined;
  /** The rates the file claims for its threshold (tpr, fpr, precision), and their counts when recorded; undefined when it records none. */
  readonly claimed: ClaimedRates | undefined;
  /** Every row the threshold was fitted on, as calibrate scored it; undefined for a file written before calibrate recorded them. */
  readonly fittedRows: readonly FittedRowRecord[] | undefined;
  /** What the threshold did to each class of the set beside the threshold in force when it was fitted; undefined when not recorded. */
  readonly comparison: { readonly inForce: { readonly threshold: number; readonly source: string }; readonly classes: readonly ClassOutcome[] } | undefined;
}

/** The rates calibration.json claims for its threshold. */
export interface ClaimedRates {
  readonly tpr: number;
  readonly fpr: number;
  readonly precision: number | undefined;
  readonly counts: { readonly groundedPassed: number; readonly groundedFlagged: number; readonly ungroundedPassed: number; readonly ungroundedFlagged: number } | undefined;
}

/** One fitted row in calibration.json's "fittedRows". */
export interface FittedRowRecord extends FitRow {
  readonly id: string | number;
  readonly cause?: string | undefined;
}

/**
 * Scoring values with a calibration's relevance thresholds applied where none was set explicitly
 * (option, environment or config file: the resolved value is then defined): explicit > calibration
 * > the backend's recommended ones (applied by the scorer for what is still undefined).
 */
export function withCalibratedRelevance(values: ResolvedScoreOptions, calibration: Pick<Calibration, "relevanceThresholds"> | undefined): ResolvedScoreOptions {
  const fitted = calibration?.relevanceThresholds;
  if (!fitted) return values;
  return { ...values, contextRelevanceThreshold: values.contextRelevanceThreshold ?? fitted.context, answerRelevanceThreshold: values.answerRelevanceThreshold ?? fitted.answer };
}

/**
 * Scoring values with a calibration's cascade thresholds applied where none was set explicitly
 * (option, environment or config file): explicit > calibration > DEFAULT_CASCADE_THRESHOLDS.
 */
export function withCalibratedCascade(values: ResolvedScoreOptions, calibration: Pick<Calibration, "cascadeThresholds"> | undefined): ResolvedScoreOptions {
  const fitted = calibration?.cascadeThresholds;
  if (!fitted) return values;
  return { ...values, cascadeSupportAbove: values.cascadeSupportAbove ?? fitted.supportAbove, cascadeUnsupportBelow: values.cascadeUnsupportBelow ?? fitted.unsupportBelow };
}

/**
 * Scoring values with a calibration's refine-mode span threshold applied where none was set
 * explicitly and a span detector refines a claim backend: explicit > calibration > the detector's
 * fitted one. Alone (backend spans) the span threshold is 1 − the answer threshold, which the
 * calibration's threshold already sets.
 */
export function withCalibratedSpans(values: ResolvedScoreOptions, calibration: Pick<Calibration, "spanThreshold"> | undefined): ResolvedScoreOptions {
  const fitted = calibration?.spanThreshold;
  if (!fitted || fitted.mode !== "refine" || fitted.threshold === null || values.spanModel === undefined || values.backend === "spans") return values;
  return { ...values, spanThreshold: values.spanThreshold ?? fitted.threshold };
}

/** Scoring values with everything a calibration sets where nothing explicit does: its relevance, cascade and span thresholds. */
export function withCalibratedThresholds(values: ResolvedScoreOptions, calibration: Pick<Calibration, "relevanceThresholds" | "cascadeThresholds"> & Partial<Pick<Calibration, "spanThreshold">> | undefined): ResolvedScoreOptions {
  return withCalibratedSpans(withCalibratedCascade(withCalibratedRelevance(values, calibration), calibration), calibration?.spanThreshold ? { spanThreshold: calibration.spanThreshold } : undefined);
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** calibration.json's "relevance": each fitted threshold (a number from 0 to 1; null when it was not fitted); anything else is a ConfigError. */
function relevanceOf(v: unknown, field: string, path: string): Calibration["relevanceThresholds"] {
  if (v === undefined) return undefined;
  const r = asPlainObject(v);
  if (!r) throw new ConfigError(field, path, '"relevance" is not a JSON object');
  const thresholds: { context?: number; answer?: number } = {};
  for (const key of ["context", "answer"] as const) {
    const entry = r[key];
    if (entry === undefined) continue;
    const t = asPlainObject(entry)?.threshold;
    if (t === null) continue;
    if (!finite(t) || t < 0 || t > 1) throw new ConfigError(field, path, `"relevance.${key}.threshold" is not a number from 0 to 1 (or null)`);
    thresholds[key] = t;
  }
  return thresholds.context === undefined && thresholds.answer === undefined ? undefined : thresholds;
}

/** calibration.json's "cascade": supportAbove above unsupportBelow, both from 0 to 1; anything else is a ConfigError. */
function cascadeOf(v: unknown, field: string, path: string): TriageThresholds | undefined {
  if (v === undefined) return undefined;
  const c = asPlainObject(v);
  if (!c) throw new ConfigError(field, path, '"cascade" is not a JSON object');
  const { supportAbove, unsupportBelow } = c;
  if (!finite(supportAbove) || supportAbove < 0 || supportAbove > 1) throw new ConfigError(field, path, '"cascade.supportAbove" is not a number from 0 to 1');
  if (!finite(unsupportBelow) || unsupportBelow < 0 || unsupportBelow > 1) throw new ConfigError(field, path, '"cascade.unsupportBelow" is not a number from 0 to 1');
  if (!(supportAbove > unsupportBelow)) throw new ConfigError(field, path, '"cascade.supportAbove" is not above "cascade.unsupportBelow"');
  return { supportAbove, unsupportBelow };
}

/** calibration.json's "spans": a mode and a threshold from 0 to 1 (null: not fitted); anything else is a ConfigError. */
function spansOf(v: unknown, field: string, path: string): Calibration["spanThreshold"] {
  if (v === undefined) return undefined;
  const c = asPlainObject(v);
  if (!c) throw new ConfigError(field, path, '"spans" is not a JSON object');
  if (c.mode !== "alone" && c.mode !== "refine") throw new ConfigError(field, path, '"spans.mode" is not "alone" or "refine"');
  if (c.threshold !== null && (!finite(c.threshold) || c.threshold < 0 || c.threshold > 1)) throw new ConfigError(field, path, '"spans.threshold" is not a number from 0 to 1 or null');
  return { mode: c.mode, threshold: c.threshold };
}

/** The dataset fingerprint recorded in the file, or undefined when it has none; a hash of a bundled example counts as bundled whatever the file says. */
function fingerprintOf(d: Record<string, unknown> | undefined, bundled: () => ReadonlySet<string>): DatasetFingerprint | undefined {
  const sha256 = text(d?.sha256);
  if (!d || !sha256 || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  const production = productionOf(asPlainObject(d.production));
  return { path: text(d.path) ?? "(path not recorded)", rows: finite(d.rows) ? d.rows : undefined, sha256, bundled: d.bundled === true || bundled().has(sha256), ...(production ? { production } : {}) };
}

/** The dataset's "production" (labels from production review), or undefined when absent or not well formed. */
function productionOf(p: Record<string, unknown> | undefined): ProductionProvenance | undefined {
  if (!p || !finite(p.rows) || !finite(p.reviewers)) return undefined;
  const from = text(p.from);
  const to = text(p.to);
  return from !== undefined && to !== undefined ? { rows: p.rows, reviewers: p.reviewers, from, to } : undefined;
}

/** How readCalibrationFile reads a file. */
export interface ReadCalibrationOptions {
  /** The sha256 of groundwatch's bundled example files (default: bundledExampleHashes, read on first need). */
  readonly bundled?: () => ReadonlySet<string>;
  /**
   * Refuse a file without its "referenceScores" array (default true: the SDK and serve use them as
   * the drift reference). A caller that needs only the threshold (`groundwatch eval`) sets false,
   * and reads a file without them as having none.
   */
  readonly requireReferenceScores?: boolean;
}

/**
 * Reads calibration.json (from `groundwatch calibrate`; a leading byte order mark is allowed); a
 * file that cannot be read, is not JSON, or lacks a threshold from 0 to 1 or (unless the caller does
 * not need them) its reference scores is a ConfigError naming `field` and the path (never the file's
 * content). Files written before calibrate recorded a dataset fingerprint still load, with `dataset` undefined.
 */
export function readCalibrationFile(path: string, field = "calibrationFile", options: ReadCalibrationOptions = {}): Calibration {
  const bundled = options.bundled ?? bundledExampleHashes;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new ConfigError(field, path, `cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(stripBom(bytes.toString("utf8")));
  } catch {
    throw new ConfigError(field, path, "not valid JSON");
  }
  const c = asPlainObject(raw);
  if (!c) throw new ConfigError(field, path, "not a JSON object");
  if (!finite(c.threshold) || c.threshold < 0 || c.threshold > 1) throw new ConfigError(field, path, 'no "threshold" from 0 to 1');
  const optionalScores = options.requireReferenceScores === false && c.referenceScores === undefined;
  if (!optionalScores && (!Array.isArray(c.referenceScores) || !c.referenceScores.every((x) => finite(x)))) throw new ConfigError(field, path, 'no "referenceScores" array of numbers');
  if (c.verdict !== undefined && !(CALIBRATION_VERDICTS as readonly unknown[]).includes(c.verdict)) throw new ConfigError(field, path, `"verdict" is not one of ${CALIBRATION_VERDICTS.join(", ")}`);
  const a = asPlainObject(c.auroc);
  const auroc = a && finite(a.value) && finite(a.low) && finite(a.high) ? { value: a.value, low: a.low, high: a.high } : undefined;
  const d = asPlainObject(c.dataset);
  const b = asPlainObject(c.backend);
  const e = asPlainObject(c.excluded);
  const excluded = e && finite(e.unscorable) ? e.unscorable : undefined;
  return {
    path,
    id: sha256Hex(bytes).slice(0, 12),
    threshold: c.threshold,
    referenceScores: optionalScores ? [] : (c.referenceScores as number[]),
    driftReference: readDriftReference(c.driftReference, field, path),
    backend: b && typeof b.name === "string" ? { name: b.name, version: text(b.version), tier: text(b.tier) } : undefined,
    createdAt: text(c.createdAt),
    criterion: text(c.criterion),
    verdict: auroc ? calibrationVerdict(auroc) : (c.verdict as CalibrationVerdict | undefined),
    auroc,
    rows: d && finite(d.rows) ? d.rows : undefined,
    labelsToSettle: finite(c.labelsToSettle) ? c.labelsToSettle : c.labelsToSettle === null ? null : undefined,
    unscorable: d && finite(d.unscorable) ? { rows: d.unscorable, excluded } : excluded !== undefined ? { rows: excluded, excluded } : undefined,
    dataset: fingerprintOf(d, bundled),
    relevanceThresholds: relevanceOf(c.relevance, field, path),
    cascadeThresholds: cascadeOf(c.cascade, field, path),
    spanThreshold: spansOf(c.spans, field, path),
    claimed: claimedOf(c),
    fittedRows: fittedRowsOf(c.fittedRows, field, path),
    comparison: comparisonOf(asPlainObject(c.comparison)),
  };
}

/** The rates the file claims, when it records a TPR and an FPR. */
function claimedOf(c: Record<string, unknown>): ClaimedRates | undefined {
  if (!finite(c.tpr) || !finite(c.fpr)) return undefined;
  const k = asPlainObject(c.counts);
  const keys = ["groundedPassed", "groundedFlagged", "ungroundedPassed", "ungroundedFlagged"] as const;
  const counts = k && keys.every((key) => finite(k[key])) ? { groundedPassed: k.groundedPassed as number, groundedFlagged: k.groundedFlagged as number, ungroundedPassed: k.ungroundedPassed as number, ungroundedFlagged: k.ungroundedFlagged as number } : undefined;
  return { tpr: c.tpr, fpr: c.fpr, precision: finite(c.precision) ? c.precision : undefined, counts };
}

/** "fittedRows": each {id, label 0|1, score, blocked?, cause?}; anything else is a ConfigError naming the row's field. */
function fittedRowsOf(v: unknown, field: string, path: string): readonly FittedRowRecord[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new ConfigError(field, path, '"fittedRows" is not an array');
  return v.map((item: unknown, i): FittedRowRecord => {
    const r = asPlainObject(item);
    const bad = (what: string): ConfigError => new ConfigError(field, path, `"fittedRows[${i}]${what}`);
    if (!r) throw bad('" is not a JSON object');
    if (typeof r.id !== "string" && typeof r.id !== "number") throw bad('.id" is not a string or a number');
    if (r.label !== 0 && r.label !== 1) throw bad('.label" is not 0 or 1');
    if (!finite(r.score) || r.score < 0 || r.score > 1) throw bad('.score" is not a number from 0 to 1');
    if (r.blocked !== undefined && !(BLOCKED_REASONS as readonly unknown[]).includes(r.blocked)) throw bad(`.blocked" is not one of ${BLOCKED_REASONS.join(", ")}`);
    if (r.cause !== undefined && typeof r.cause !== "string") throw bad('.cause" is not a string');
    return { id: r.id, label: r.label, score: r.score, ...(r.blocked !== undefined ? { blocked: r.blocked as Blocked } : {}), ...(typeof r.cause === "string" ? { cause: r.cause } : {}) };
  });
}

/** "comparison", when well formed (it is shown, never computed with). */
function comparisonOf(c: Record<string, unknown> | undefined): Calibration["comparison"] {
  const inForce = asPlainObject(c?.inForce);
  if (!c || !inForce || !finite(inForce.threshold) || !Array.isArray(c.classes)) return undefined;
  const classes: ClassOutcome[] = [];
  for (const item of c.classes as unknown[]) {
    const k = asPlainObject(item);
    const right = asPlainObject(k?.right);
    if (!k || !right || typeof k.name !== "string" || (k.label !== 0 && k.label !== 1) || !finite(k.rows) || !finite(right.inForce) || !finite(right.proposed)) return undefined;
    classes.push({ name: k.name, label: k.label, rows: k.rows, right: { inForce: right.inForce, proposed: right.proposed } });
  }
  return { inForce: { threshold: inForce.threshold, source: text(inForce.source) ?? "not recorded" }, classes };
}
