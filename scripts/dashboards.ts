/**
 * Grafana dashboards as code (@grafana/grafana-foundation-sdk). `npm run build:dashboards`
 * rewrites dashboards/*.json; test/dashboards checks the committed JSON is not stale and
 * that every panel query returns data from a real Prometheus.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DashboardBuilder, RowBuilder } from "@grafana/grafana-foundation-sdk/dashboard";
import { DataqueryBuilder, PromQueryFormat } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as StatPanel } from "@grafana/grafana-foundation-sdk/stat";
import { PanelBuilder as TablePanel } from "@grafana/grafana-foundation-sdk/table";
import { causePanels, causeTrendPanels, flaggedLinks, linkVariables } from "./dashboard-cause.ts";
import { DS, R, q, ratio, ts, variables } from "./dashboard-kit.ts";

export { ratio } from "./dashboard-kit.ts";
export { CONTEXT_RELEVANCE_DROP, LINK_VARIABLES } from "./dashboard-cause.ts";

/** The hallucination-rate threshold the alerts page on (alerts/rules.yml uses the same value). */
export const HALLUCINATION_THRESHOLD = 0.1;

/**
 * The resampler success share GroundwatchResampleFailing tickets below (alerts/rules.yml uses the
 * same value): calls that returned the answers asked for, over ok, error, timeout and short calls
 * (`budget` was never called, `shutdown` was aborted by our own drain).
 */
export const RESAMPLE_SUCCESS_THRESHOLD = 0.8;

/**
 * The invalid-citation share GroundwatchInvalidCitationsHigh tickets above (alerts/rules.yml uses the
 * same value): citations naming a document that was not retrieved, over all citations found.
 */
export const INVALID_CITATION_THRESHOLD = 0.05;

/**
 * The guard bypass share GroundwatchGuardBypassHigh tickets above (alerts/rules.yml uses the same
 * value): Monitor.guard() decisions that made no check (bypass, any reason), over all decisions.
 */
export const GUARD_BYPASS_THRESHOLD = 0.05;

/** Days of Prometheus retention the trends dashboard needs: its longest window (90 days). */
export const TRENDS_RETENTION_DAYS = 90;

/** The operational dashboard: rates, verdicts, accounting, failures, latency, drift, entropy, backend. */
export function overviewDashboard(): object {
  let y = 0;
  let rowId = 100;
  const row = (title: string): RowBuilder => new RowBuilder(title).id(rowId++).gridPos({ x: 0, y: y++, w: 24, h: 1 });
  let d = linkVariables(variables(new DashboardBuilder("groundwatch — groundedness overview").uid("groundwatch-overview").tags(["groundwatch", "rag"]).refresh("30s").time({ from: "now-6h", to: "now" }).timezone("browser")));
  d = d.withRow(row("Groundedness"));
  d = d.withPanel(
    ts({ id: 1, x: 0, y, w: 12, h: 8 }, "Hallucination rate by route", "percentunit", [q(ratio(`sum by (groundwatch_route) (rate(groundwatch_evaluations_total{groundwatch_verdict="ungrounded", ${R}}[$__rate_interval]))`, `sum by (groundwatch_route) (rate(groundwatch_evaluations_total{groundwatch_verdict=~"grounded|ungrounded", ${R}}[$__rate_interval]))`), "{{groundwatch_route}}")], {
      min: 0,
      max: 1,
      threshold: HALLUCINATION_THRESHOLD,
      description: `Ungrounded share of scorable answers. The red line is the paging threshold (${HALLUCINATION_THRESHOLD}); the alerts also need enough scored answers in their windows (30 an hour by default), so a spike on a handful of answers here does not page. No data (a gap) means nothing was scored, not 0%. Click a route for its flagged answers and their traces.`,
    }).dataLinks(flaggedLinks()),
  );
  d = d.withPanel(
    ts({ id: 2, x: 12, y, w: 12, h: 8 }, "Mean groundedness by route", "none", [q(`sum by (groundwatch_route) (rate(groundwatch_groundedness_score_sum{${R}}[$__rate_interval])) / (sum by (groundwatch_route) (rate(groundwatch_groundedness_score_count{${R}}[$__rate_interval])) > 0)`, "{{groundwatch_route}}")], {
      min: 0,
      max: 1,
      decimals: 2,
      description: "Mean groundedness score of scored answers: a score from 0 (unsupported) to 1 (fully supported), not a percentage. No data (a gap) means nothing was scored.",
    }),
  );
  y += 8;
  d = d.withPanel(ts({ id: 3, x: 0, y, w: 12, h: 8 }, "Claims by verdict", "short", [q(`sum by (groundwatch_claim_verdict) (rate(groundwatch_claims_total{${R}}[$__rate_interval]))`, "{{groundwatch_claim_verdict}}")]));
  d = d.withPanel(
    ts({ id: 4, x: 12, y, w: 12, h: 8 }, "Observations: seen, sampled, scored, dropped", "short", [
      q(`sum(rate(groundwatch_observations_seen_total{${R}}[$__rate_interval])) or vector(0)`, "seen", "A"),
      q(`sum(rate(groundwatch_observations_sampled_total{${R}}[$__rate_interval])) or vector(0)`, "sampled", "B"),
      q(`sum(rate(groundwatch_observations_scored_total{${R}}[$__rate_interval])) or vector(0)`, "scored", "C"),
      q(`sum by (groundwatch_reason) (rate(groundwatch_observations_dropped_total{${R}}[$__rate_interval])) or vector(0)`, "dropped {{groundwatch_reason}}", "D"),
    ]),
  );
  y += 8;
  d = d.withRow(row("Cause and relevance"));
  for (const panel of causePanels(y, HALLUCINATION_THRESHOLD)) d = d.withPanel(panel);
  y += 24;
  d = d.withRow(row("Citations"));
  const cited = (status: string): string => `sum by (groundwatch_route) (rate(groundwatch_citations_total{groundwatch_citation_status="${status}", ${R}}[$__rate_interval]))`;
  const allCited = `sum by (groundwatch_route) (rate(groundwatch_citations_total{${R}}[$__rate_interval]))`;
  d = d.withPanel(
    ts({ id: 22, x: 0, y, w: 12, h: 8 }, "Invalid and misattributed citations by route", "percentunit", [q(ratio(cited("not_retrieved"), allCited), "invalid {{groundwatch_route}}", "A"), q(ratio(cited("misattributed"), allCited), "misattributed {{groundwatch_route}}", "B")], {
      min: 0,
      max: 1,
      threshold: INVALID_CITATION_THRESHOLD,
      description: `Share of the citation markers in scored answers ([1], (source: name)) that name a document that was not retrieved (invalid: an invented source, found without any model call), and that cite a document not supporting their claim while another retrieved document does (misattributed). The red line is GroundwatchInvalidCitationsHigh's threshold (${INVALID_CITATION_THRESHOLD * 100}% invalid over 5 minutes and the hour, on at least 30 citations in the hour by default). No data (a gap) means no answer cited anything, not 0%.`,
    }),
  );
  d = d.withPanel(
    ts({ id: 23, x: 12, y, w: 12, h: 8 }, "Citations by status", "short", [q(`sum by (groundwatch_citation_status) (rate(groundwatch_citations_total{${R}}[$__rate_interval])) or vector(0)`, "{{groundwatch_citation_status}}")], {
      min: 0,
      description: "Citation markers per second by status: supported (by the document cited), misattributed (another retrieved document supports the claim), unsupported, contradicted, not_retrieved (names a document that was not retrieved), unchecked (its claim was not checked: over a limit, or the answer was unscorable).",
    }),
  );
  y += 8;
  d = d.withRow(row("Reliability"));
  d = d.withPanel(ts({ id: 5, x: 0, y, w: 8, h: 8 }, "Scorer failures", "short", [q(`sum by (groundwatch_reason) (rate(groundwatch_observations_failed_total{${R}}[$__rate_interval])) or vector(0)`, "{{groundwatch_reason}}")]));
  d = d.withPanel(
    ts({ id: 6, x: 8, y, w: 8, h: 8 }, "Evaluation latency", "s", [
      q(`histogram_quantile(0.5, sum by (le) (rate(groundwatch_evaluation_duration_bucket{${R}}[$__rate_interval])))`, "p50", "A"),
      q(`histogram_quantile(0.99, sum by (le) (rate(groundwatch_evaluation_duration_bucket{${R}}[$__rate_interval])))`, "p99", "B"),
    ]),
  );
  d = d.withPanel(ts({ id: 7, x: 16, y, w: 8, h: 8 }, "Queue depth", "short", [q("sum(groundwatch_queue_depth)", "queued")]));
  y += 8;
  d = d.withPanel(
    ts({ id: 14, x: 0, y, w: 12, h: 8 }, "Scoring workers: alive and replaced", "short", [q("sum(groundwatch_workers_alive)", "alive", "A"), q("sum by (groundwatch_reason) (increase(groundwatch_workers_restarts_total[$__rate_interval])) or vector(0)", "replaced: {{groundwatch_reason}}", "B")], {
      min: 0,
      description: "Workers able to score (0 means /readyz is 503 and observations wait or drop), and workers replaced: crashed (exited or crashed mid-job) or timeout (a job ran over timeoutMs and its worker was terminated).",
    }),
  );
  d = d.withPanel(
    ts({ id: 15, x: 12, y, w: 12, h: 8 }, "Observations cut short by size limits", "short", [q(`sum by (groundwatch_limit) (rate(groundwatch_observations_limited_total{${R}}[$__rate_interval])) or vector(0)`, "{{groundwatch_limit}}")], {
      min: 0,
      description: "Scored observations a size limit cut short (answer_chars, context_chars, documents, token_chars, claims, samples, entailment_calls): their score covers only part of the input.",
    }),
  );
  y += 8;
  d = d.withRow(row("Drift and uncertainty"));
  d = d.withPanel(
    ts({ id: 8, x: 0, y, w: 8, h: 8 }, "Drift: KS statistic and p-value", "short", [q(`max by (groundwatch_route) (groundwatch_drift_ks_statistic{${R}})`, "KS {{groundwatch_route}}", "A"), q(`min by (groundwatch_route) (groundwatch_drift_p_value{${R}})`, "p {{groundwatch_route}}", "B")], {
      min: 0,
      threshold: 0.01,
      description: "Recent scores against the reference distribution, per route. The drift alert fires when p < 0.01 for 15 minutes.",
    }),
  );
  d = d.withPanel(
    ts({ id: 9, x: 8, y, w: 8, h: 8 }, "Semantic entropy (normalised)", "percentunit", [
      q(`histogram_quantile(0.5, sum by (le) (rate(groundwatch_entropy_bucket{${R}}[$__rate_interval])))`, "p50", "A"),
      q(`histogram_quantile(0.9, sum by (le) (rate(groundwatch_entropy_bucket{${R}}[$__rate_interval])))`, "p90", "B"),
    ], { min: 0, max: 1 }),
  );
  d = d.withPanel(
    ts({ id: 10, x: 16, y, w: 8, h: 8 }, "Degenerate resample sets", "percentunit", [
      q(`(sum(rate(groundwatch_entropy_degenerate_total{${R}}[$__rate_interval])) or vector(0)) / ((sum(rate(groundwatch_entropy_degenerate_total{${R}}[$__rate_interval])) or vector(0)) + (sum(rate(groundwatch_entropy_count{${R}}[$__rate_interval])) or vector(0)) > 0)`, "share unreliable"),
    ], { min: 0, max: 1, description: "Share of resample sets whose entropy could not be measured (identical samples: temperature 0, a cache or a fixed seed). No data means no resample sets were scored." }),
  );
  y += 8;
  d = d.withPanel(
    new TablePanel()
      .id(11)
      .title("Backend and tier in use")
      .datasource(DS)
      .gridPos({ x: 0, y, w: 24, h: 6 })
      .withTarget(new DataqueryBuilder().refId("A").expr(`sum by (groundwatch_backend_name, groundwatch_backend_tier) (increase(groundwatch_evaluations_total{${R}}[$__range]))`).format(PromQueryFormat.Table).instant()),
  );
  y += 6;
  d = d.withRow(row("Live semantic entropy (resampling)"));
  // Resampler calls judged: ok and the failures. Not `budget` (over maxCallsPerMinute: never called)
  // nor `shutdown` (aborted by our own drain): neither is the resampler failing.
  const made = (by: string): string => `sum by (${by}) (rate(groundwatch_resample_calls_total{groundwatch_resample_outcome=~"ok|error|too_large|timeout|short", ${R}}[$__rate_interval]))`;
  d = d.withPanel(
    ts({ id: 16, x: 0, y, w: 8, h: 8 }, "Resampler calls by outcome", "short", [q(`sum by (groundwatch_resample_outcome) (rate(groundwatch_resample_calls_total{${R}}[$__rate_interval]))`, "{{groundwatch_resample_outcome}}")], {
      min: 0,
      description:
        "Resampler calls per second by outcome: ok; error (the sampler threw or its endpoint failed); timeout (over resample.timeoutMs); short (fewer answers than n came back); budget (over resample.maxCallsPerMinute: not called, the answer was scored without entropy); shutdown (aborted while groundwatch shut down). No data means resampling is off (no resample option) or nothing was resampled in the range.",
    }),
  );
  d = d.withPanel(
    ts({ id: 17, x: 8, y, w: 8, h: 8 }, "Resampler success rate by route", "percentunit", [q(ratio(`sum by (groundwatch_route) (rate(groundwatch_resample_calls_total{groundwatch_resample_outcome="ok", ${R}}[$__rate_interval]))`, made("groundwatch_route")), "{{groundwatch_route}}")], {
      min: 0,
      max: 1,
      threshold: RESAMPLE_SUCCESS_THRESHOLD,
      lowIsBad: true,
      description: `Share of the resampler calls that returned all the answers asked for: ok over ok, error, timeout and short. Calls skipped by the budget (maxCallsPerMinute) or aborted by a shutdown are not the resampler failing and count for neither side. The line is GroundwatchResampleFailing's threshold (${RESAMPLE_SUCCESS_THRESHOLD * 100}% over 30 minutes, on at least 20 calls by default). No data (a gap) means no call was made, not 0%.`,
    }),
  );
  d = d.withPanel(
    ts({ id: 18, x: 16, y, w: 8, h: 8 }, "Resampler tokens per minute, by kind", "short", [q(`sum by (groundwatch_token_kind) (rate(groundwatch_resample_tokens_total{${R}}[$__rate_interval])) * 60`, "{{groundwatch_token_kind}}")], {
      min: 0,
      description: "Tokens the resampler reported using (usage in the sampler's result), per minute: prompt and completion. Multiply by your model's prices for the cost of live semantic entropy. No data when resampling is off, or when the sampler does not report usage.",
    }),
  );
  y += 8;
  d = d.withPanel(
    ts({ id: 19, x: 0, y, w: 8, h: 8 }, "Resampler latency", "s", [
      q(`histogram_quantile(0.5, sum by (le) (rate(groundwatch_resample_duration_bucket{${R}}[$__rate_interval])))`, "p50", "A"),
      q(`histogram_quantile(0.99, sum by (le) (rate(groundwatch_resample_duration_bucket{${R}}[$__rate_interval])))`, "p99", "B"),
    ], {
      min: 0,
      description: "Time of one resampler call (all n answers), off the request path. A p99 near resample.timeoutMs means calls are being cut off (outcome timeout); a quantile in the histogram's top bucket reads as that bucket's upper bound. No data when resampling is off.",
    }),
  );
  d = d.withPanel(
    ts({ id: 20, x: 8, y, w: 8, h: 8 }, "Semantic entropy by route", "percentunit", [
      q(`histogram_quantile(0.5, sum by (groundwatch_route, le) (rate(groundwatch_entropy_bucket{${R}}[$__rate_interval])))`, "p50 {{groundwatch_route}}", "A"),
      q(`histogram_quantile(0.9, sum by (groundwatch_route, le) (rate(groundwatch_entropy_bucket{${R}}[$__rate_interval])))`, "p90 {{groundwatch_route}}", "B"),
    ], {
      min: 0,
      max: 1,
      description: "Normalised semantic entropy (0: every resample means the same; 1: every one means something different) of reliable measurements, per route: from live resampling and from samples sent with observations. High entropy on a route: the model answers its questions inconsistently, a sign of confabulation even where the context is sound.",
    }),
  );
  d = d.withPanel(
    ts({ id: 21, x: 16, y, w: 8, h: 8 }, "Unstable-claim share by route", "percentunit", [q(ratio(`sum by (groundwatch_route) (rate(groundwatch_claims_unstable_total{${R}}[$__rate_interval]))`, `sum by (groundwatch_route) (rate(groundwatch_claims_resampled_total{${R}}[$__rate_interval]))`), "{{groundwatch_route}}")], {
      min: 0,
      max: 1,
      description: "Share of the claims checked against resamples (from live resampling, or samples sent with observations) that few of them support (below unstableShare): the model would not say them again. Degenerate resample sets (identical samples) are not counted. 0 when claims were checked and none was unstable; no data (a gap) when no claim was checked.",
    }),
  );
  y += 8;
  d = d.withRow(row("Collector ingest"));
  d = d.withPanel(
    ts({ id: 12, x: 0, y, w: 12, h: 8 }, "Traces not scored, by reason", "short", [q(`sum by (groundwatch_reason) (rate(groundwatch_collector_incomplete_total{${R}}[$__rate_interval])) or vector(0)`, "{{groundwatch_reason}}")], {
      description: "Traces the collector received but could not score: no_documents (no retrieved context found; see the README's instrumentation table, or turn on collector.promptContext when the documents are in the prompt), no_answer (an answer never arrived: for OTel GenAI services see \"Log records received, by convention\"), buffer_full, duplicate and late events. See the runbook.",
    }),
  );
  d = d.withPanel(
    ts({ id: 13, x: 12, y, w: 12, h: 8 }, "Scored interactions by convention", "short", [q(`sum by (groundwatch_convention) (rate(groundwatch_collector_interactions_total{${R}}[$__rate_interval])) or vector(0)`, "{{groundwatch_convention}}")], {
      description: "Which instrumentation convention each scored interaction was read from (OpenInference, OTel GenAI, OpenLLMetry, attribute mapping, prompt context).",
    }),
  );
  y += 8;
  d = d.withPanel(
    ts(
      { id: 24, x: 0, y, w: 12, h: 8 },
      "Trace buffer fill",
      "percentunit",
      [
        q(`max(groundwatch_collector_buffer_traces / groundwatch_collector_buffer_max_traces)`, "traces"),
        q(`max(groundwatch_collector_buffer_bytes / groundwatch_collector_buffer_max_bytes)`, "bytes", "B"),
      ],
      {
        min: 0,
        max: 1,
        description: "How full the collector's trace buffer is, in traces (of collector.maxTraces) and in bytes (of collector.maxBufferBytes), on the fullest replica. Stale partial traces are evicted when it is full (counted buffer_full under \"Traces not scored\"); /readyz answers 503 while it stays above 90% for twice traceTimeoutMs.",
      },
    ),
  );
  d = d.withPanel(
    ts({ id: 25, x: 12, y, w: 12, h: 8 }, "Requests refused, by reason", "reqps", [q(`sum by (groundwatch_reason) (rate(groundwatch_collector_refused_total[$__rate_interval])) or vector(0)`, "{{groundwatch_reason}}")], {
      description: "Ingest requests the collector answered with an error, by reason: queue_full and buffer_full (429: senders retry; alert GroundwatchCollectorRefusingIngest), too_large (413), unsupported_media_type, bad_request, unauthorized, misdirected (a Host other than loopback on a loopback bind without a token), too_many_connections, timeout.",
    }),
  );
  y += 8;
  d = d.withPanel(
    ts({ id: 33, x: 0, y, w: 12, h: 8 }, "Log records received, by convention", "short", [q("sum by (groundwatch_convention) (rate(groundwatch_collector_log_records_total[$__rate_interval])) or vector(0)", "{{groundwatch_convention}}")], {
      min: 0,
      description:
        "Log records per second the collector took in on /v1/logs (all routes: a log record names none), by what it read them as: genai (OTel GenAI message and choice events: the prompts and answers of GenAI-instrumented services), mapping (collector.attributeMapping keys), other. genai at 0 while traces are counted no_answer: the GenAI content events never arrive (logs not exported to /v1/logs, or an instrumentation created before the SDK started logging nowhere); see the runbook's no_answer.",
    }),
  );
  y += 8;
  d = d.withRow(row("Review of the monitor"));
  const labelled = (kind: string, agreement?: string): string => `sum(groundwatch_review_labels{groundwatch_review_kind="${kind}"${agreement ? `, groundwatch_review_agreement="${agreement}"` : ""}})`;
  d = d.withPanel(
    ts({ id: 30, x: 0, y, w: 12, h: 8 }, "Review agreement", "percentunit", [q(ratio(labelled("flagged", "agree"), labelled("flagged")), "precision of the flags", "A"), q(ratio(labelled("grounded_sample", "disagree"), labelled("grounded_sample")), "miss rate of grounded samples", "B")], {
      min: 0,
      max: 1,
      description:
        "From the answers people reviewed (groundwatch review; the collector's labels file, groundwatch_review_labels): precision of the flags = flagged answers the reviewers call not grounded, of the flagged answers reviewed; miss rate = sampled grounded answers the reviewers call not grounded, of those reviewed. All labels so far, not a window: groundwatch evidence --review-dir gives them for a period, with intervals and the estimated recall. No data means nothing of that kind was reviewed.",
    }),
  );
  d = d.withPanel(
    ts(
      { id: 31, x: 12, y, w: 12, h: 8 },
      "Review spool: answers written and skipped",
      "short",
      [q("sum by (groundwatch_review_kind) (rate(groundwatch_review_spooled_total[$__rate_interval]))", "written: {{groundwatch_review_kind}}", "A"), q("sum by (groundwatch_reason) (rate(groundwatch_review_skipped_total[$__rate_interval]))", "skipped: {{groundwatch_reason}}", "B")],
      {
        min: 0,
        description:
          "Answers a second the review spool kept for people to review (every flagged answer, a sample of grounded ones), and those it could not keep, by reason: bytes (the spool is at its byte cap review.maxBytes: alert GroundwatchReviewSpoolFull), too_large, io_error, redact_error. No data means review is off (serve --review-dir).",
      },
    ),
  );
  y += 8;
  d = d.withRow(row("Guard"));
  const guard = (filter: string): string => `rate(groundwatch_guard_decisions_total{${filter}${R}}[$__rate_interval])`;
  d = d.withPanel(
    ts({ id: 34, x: 0, y, w: 12, h: 8 }, "Guard decisions by type", "short", [q(`sum by (groundwatch_guard_decision) (${guard("")})`, "{{groundwatch_guard_decision}}")], {
      min: 0,
      description:
        "Monitor.guard() decisions a second (groundwatch_guard_decisions), by decision: pass (grounded, sent unchanged), block (ungrounded, the replacement sent), correct (ungrounded, its unsupported claims removed or marked), bypass (no check made: see the bypass panel). No data means no guard check was made.",
    }),
  );
  d = d.withPanel(
    ts(
      { id: 35, x: 12, y, w: 12, h: 8 },
      "Guard bypass rate by reason",
      "percentunit",
      [
        q(`sum by (groundwatch_reason) (${guard('groundwatch_guard_decision="bypass", ')}) / on() group_left() (sum(${guard("")}) > 0)`, "{{groundwatch_reason}}", "A"),
        q(ratio(`sum(${guard('groundwatch_guard_decision="bypass", ')})`, `sum(${guard("")})`), "all bypasses", "B"),
      ],
      {
        min: 0,
        max: 1,
        threshold: GUARD_BYPASS_THRESHOLD,
        description: `Share of the guard decisions that were bypasses, no check made, by reason (budget_exceeded, scorer_unavailable, scorer_error, over_limits, unscorable, invalid_input, closed, internal_error, saturated, source_error, cancelled), and all reasons together. Failing closed a bypass sends the replacement; with onFail pass the answer goes out unchecked. The red line is the share GroundwatchGuardBypassHigh tickets above per route (${GUARD_BYPASS_THRESHOLD}, on at least 20 decisions in 10 minutes). No data means no guard check was made.`,
      },
    ),
  );
  return d.build();
}

/** The trends dashboard for risk owners and supervisors: 30- and 90-day rates, alert history, volumes. */
export function trendsDashboard(): object {
  let d = variables(
    new DashboardBuilder("groundwatch — groundedness trends")
      .uid("groundwatch-trends")
      .description(`30- and 90-day groundedness trends, alert history and volumes. Needs Prometheus to keep at least ${TRENDS_RETENTION_DAYS} days (--storage.tsdb.retention.time; the docker-compose stack keeps 100d, Prometheus's default is 15d): with less, the 90-day window silently covers only what is kept.`)
      .tags(["groundwatch", "rag", "evidence"])
      .refresh("1h")
      .time({ from: "now-90d", to: "now" })
      .timezone("browser"),
  );
  const rate = (window: string): string =>
    ratio(`sum by (groundwatch_route) (increase(groundwatch_evaluations_total{groundwatch_verdict="ungrounded", ${R}}[${window}]))`, `sum by (groundwatch_route) (increase(groundwatch_evaluations_total{groundwatch_verdict=~"grounded|ungrounded", ${R}}[${window}]))`);
  const windowNote = (days: number): string =>
    `Ungrounded share of the answers scored over the ${days} days before each point; no data where nothing was scored. Needs ${days}+ days of Prometheus retention (the stack keeps 100d).`;
  d = d.withPanel(ts({ id: 1, x: 0, y: 0, w: 12, h: 9 }, "Hallucination rate, 30-day window", "percentunit", [q(rate("30d"), "{{groundwatch_route}}")], { min: 0, max: 1, threshold: HALLUCINATION_THRESHOLD, description: windowNote(30) }));
  d = d.withPanel(ts({ id: 2, x: 12, y: 0, w: 12, h: 9 }, "Hallucination rate, 90-day window", "percentunit", [q(rate("90d"), "{{groundwatch_route}}")], { min: 0, max: 1, threshold: HALLUCINATION_THRESHOLD, description: windowNote(90) }));
  d = d.withPanel(
    ts({ id: 3, x: 0, y: 9, w: 12, h: 8 }, "Alert firings", "short", [q('sum by (alertname) (ALERTS{alertstate="firing", alertname=~"Groundwatch.*"}) or vector(0)', "{{alertname}}")], {
      description: "Groundwatch alerts in the firing state over the period.",
    }),
  );
  d = d.withPanel(
    ts({ id: 4, x: 12, y: 9, w: 12, h: 8 }, "Answers scored per day", "short", [q(`sum by (groundwatch_route) (increase(groundwatch_observations_scored_total{${R}}[1d]))`, "{{groundwatch_route}}")]),
  );
  d = d.withPanel(
    new StatPanel()
      .id(5)
      .title("Share of traffic sampled (period)")
      .datasource(DS)
      .gridPos({ x: 0, y: 17, w: 12, h: 6 })
      .unit("percentunit")
      .description("Sampled observations over those seen in the period; no data when nothing was seen.")
      .withTarget(new DataqueryBuilder().refId("A").expr(ratio(`sum(increase(groundwatch_observations_sampled_total{${R}}[$__range]))`, `sum(increase(groundwatch_observations_seen_total{${R}}[$__range]))`)).instant()),
  );
  d = d.withPanel(
    new StatPanel()
      .id(6)
      .title("Answers scored (period)")
      .datasource(DS)
      .gridPos({ x: 12, y: 17, w: 12, h: 6 })
      .unit("short")
      .withTarget(new DataqueryBuilder().refId("A").expr(`sum(increase(groundwatch_observations_scored_total{${R}}[$__range]))`).instant()),
  );
  for (const panel of causeTrendPanels(23, HALLUCINATION_THRESHOLD)) d = d.withPanel(panel);
  return d.build();
}

export function dashboardFiles(): Record<string, string> {
  return {
    "overview.json": `${JSON.stringify(overviewDashboard(), null, 2)}\n`,
    "trends.json": `${JSON.stringify(trendsDashboard(), null, 2)}\n`,
  };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const dir = join(import.meta.dirname, "..", "dashboards");
  for (const [name, text] of Object.entries(dashboardFiles())) writeFileSync(join(dir, name), text);
  console.log(`wrote ${Object.keys(dashboardFiles()).join(", ")} to ${dir}`);
}
