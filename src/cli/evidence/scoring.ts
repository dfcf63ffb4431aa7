import type { Calibration } from "../../config/calibration-file.ts";
import type { BackendIdentity } from "../../core/calibration.ts";
import { calibrationCaveats } from "../../core/calibration.ts";
import { METRICS } from "../../telemetry/semconv.ts";
import { escapeHtml } from "../shared/escape.ts";

/** One instant-vector row of a Prometheus answer. */
export interface PromRow {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

/** What the collector (or SDK) said it scored with, from groundwatch_scoring_info in the period. */
export interface ScoringInUse {
  readonly backend: BackendIdentity;
  /** The threshold label as exported, and as a number (NaN when the label is not a number). */
  readonly threshold: string;
  readonly calibrationId: string;
}

/** The Prometheus names evidence reads: the info series, its labels, and the drift refusals. */
const INFO = METRICS.scoringInfo.prometheus;
const LABELS = ["groundwatch_backend_name", "groundwatch_backend_tier", "groundwatch_backend_model", "groundwatch_threshold", "groundwatch_calibration_id"] as const;

/** The query for every scoring identity exported in the `range` before the report's end. */
export function scoringInfoQuery(range: string): string {
  return `max by (${LABELS.join(", ")}) (max_over_time(${INFO}[${range}]))`;
}

/** The query for the reasons the calibration's drift reference was refused in the period. */
export function driftRefusedQuery(range: string): string {
  return `max by (groundwatch_reason) (max_over_time(${METRICS.driftReferenceRefused.prometheus}[${range}]))`;
}

/** The scoring identities in a scoringInfoQuery answer (rows without a threshold label are not one). */
export function scoringInUse(rows: readonly PromRow[]): ScoringInUse[] {
  return rows
    .filter((r) => typeof r.metric.groundwatch_threshold === "string" && r.metric.groundwatch_threshold !== "")
    .map((r) => ({
      backend: { name: r.metric.groundwatch_backend_name ?? "", version: r.metric.groundwatch_backend_model || undefined, tier: r.metric.groundwatch_backend_tier || undefined },
      threshold: r.metric.groundwatch_threshold ?? "",
      calibrationId: r.metric.groundwatch_calibration_id ?? "none",
    }));
}

/** Whether a calibration file is the one a scoring identity used: same id and same threshold. */
function sameAs(cal: Calibration, used: ScoringInUse): { id: boolean; threshold: boolean } {
  return { id: used.calibrationId === cal.id, threshold: Math.abs(Number(used.threshold) - cal.threshold) < 1e-9 };
}

const describe = (u: ScoringInUse): string => `threshold ${u.threshold}, backend ${u.backend.name}${u.backend.version ? `/${u.backend.version}` : ""}${u.backend.tier ? ` (${u.backend.tier})` : ""}, calibration ${u.calibrationId === "none" ? "none" : `id ${u.calibrationId}`}`;

/** Why the collector refused a calibration's drift reference, by groundwatch_reason. */
const DRIFT_REFUSALS: Readonly<Record<string, string>> = {
  bundled_examples: "the calibration was fitted on groundwatch's bundled examples",
  other_backend: "the calibration was fitted with another backend or model than the one scoring",
  too_few_scores: "the calibration has too few reference scores, on every route or on some",
  selected_by_label: "the calibration's set was a review export of disagreements only, chosen by label",
  mixed_set: "the calibration's set mixed answers from production review with another labelled set",
  no_sample_rate: "the calibration's review rows do not carry the rates they were sampled at",
};

/**
 * The notices at the top of the evidence report about how the period was scored: the threshold
 * the collector used (from Prometheus), a calibration file that is not the one it used, a
 * calibration fitted on groundwatch's examples or with another backend, a drift reference the
 * collector refused, and a triage-tier backend for all or part of the period. HTML, escaped.
 */
export function scoringNotices(s: { readonly used: readonly ScoringInUse[]; readonly calibration: Calibration | undefined; readonly driftRefused: readonly string[]; readonly backends: readonly PromRow[] }): string {
  const alarms: string[] = [];
  const notes: string[] = [];
  const { used, calibration: cal } = s;
  if (used.length === 0) notes.push(`Prometheus holds no ${INFO} series for this period (nothing was scored, or the collector predates it): the threshold the collector used cannot be read, nor checked against a calibration file.`);
  else if (used.length === 1 && used[0]) notes.push(`The collector scored this period with ${escapeHtml(describe(used[0]))}.`);
  else notes.push(`The collector's scoring changed during this period; it scored with: ${used.map((u) => escapeHtml(describe(u))).join("; ")}.`);
  if (cal && used.length > 0) {
    const matches = used.map((u) => sameAs(cal, u));
    if (!matches.some((m) => m.id && m.threshold)) {
      const which = matches.some((m) => m.id) ? "the collector used this calibration with another threshold (set explicitly)" : "the collector did not use this calibration file";
      alarms.push(`The calibration file passed to this report (${escapeHtml(cal.path)}, id ${escapeHtml(cal.id)}, threshold ${cal.threshold}) is not what the collector scored with: ${which}. Its AUROC and verdict below do not describe the figures in this report.`);
    }
  }
  if (cal) {
    const scoring = used.length === 1 ? used[0]?.backend : undefined;
    // An older file without a fingerprint is said, not alarmed: nothing shows it is wrong.
    for (const c of calibrationCaveats(cal, scoring)) (c.kind === "fingerprint_unknown" ? notes : alarms).push(`Calibration ${escapeHtml(cal.id)}: ${escapeHtml(c.message)}.`);
  }
  for (const reason of s.driftRefused) {
    if (reason === "no_route_reference") {
      alarms.push(escapeHtml("Drift: the calibration's per-route reference does not name some of the routes scored in this period; drift alerts compare those routes with their own first window of scores."));
      continue;
    }
    const why = DRIFT_REFUSALS[reason] ?? reason;
    alarms.push(escapeHtml(`Drift: the collector refused the calibration's reference scores (${why}); drift alerts compare ${reason === "too_few_scores" ? "each such route" : "each route"} with its own first window of scores instead.`));
  }
  const answers = (rows: readonly PromRow[]): number => rows.reduce((n, r) => n + (Number(r.value[1]) || 0), 0);
  const triage = s.backends.filter((b) => b.metric.groundwatch_backend_tier === "triage");
  if (triage.length > 0 && triage.length === s.backends.length) alarms.push("All of this period was scored by the triage backend: every figure in this report is indicative, not decision-grade.");
  else if (triage.length > 0) alarms.push(`Part of this period (${Math.round(answers(triage))} of ${Math.round(answers(s.backends))} answers) was scored by a triage-tier backend: those figures are indicative, not decision-grade.`);
  const alarmHtml = alarms.length ? `<div class="alarm" role="alert"><p class="alarm-title">Read this first: how this period was scored</p>${alarms.map((a) => `<p>${a}</p>`).join("")}</div>` : "";
  return `${alarmHtml}<div class="scoring">${notes.map((n) => `<p>${n}</p>`).join("")}</div>\n`;
}
