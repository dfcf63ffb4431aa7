/**
 * The cause and relevance panels (issue 27): the hallucination rate split by `groundwatch_cause`,
 * context and answer relevance by route, claims not supported by cause, and the data links from a
 * route to the answers behind it — the collector's recent flagged answers (GET /v1/flagged) and the
 * Jaeger search for its flagged evaluation spans.
 */
import type { DashboardBuilder } from "@grafana/grafana-foundation-sdk/dashboard";
import { DashboardLinkBuilder, TextBoxVariableBuilder } from "@grafana/grafana-foundation-sdk/dashboard";
import { StackingConfigBuilder, StackingMode } from "@grafana/grafana-foundation-sdk/common";
import type { PanelBuilder as TimeseriesPanel } from "@grafana/grafana-foundation-sdk/timeseries";
import { R, q, ratio, ts } from "./dashboard-kit.ts";

/**
 * How far the 1-hour mean context relevance must fall below its 7-day average for
 * GroundwatchContextRelevanceDrop to ticket (alerts/rules.yml uses the same value).
 */
export const CONTEXT_RELEVANCE_DROP = 0.15;

/**
 * The overview's link variables and their defaults: `groundwatch serve` and Jaeger where the
 * docker-compose stack publishes them, and the service name of `groundwatch serve`'s own spans
 * (the alerts' external labels groundwatch_collector_base, groundwatch_jaeger_base and
 * groundwatch_trace_service have the same defaults).
 */
export const LINK_VARIABLES = [
  { name: "collector", label: "Collector URL", value: "http://127.0.0.1:4319", description: "Where responders reach groundwatch serve: the base of the flagged-answers links (/v1/flagged, behind its token)." },
  { name: "jaeger", label: "Jaeger URL", value: "http://127.0.0.1:16686", description: "The Jaeger UI the trace-search links open." },
  { name: "trace_service", label: "Trace service", value: "groundwatch-collector", description: "The service whose groundwatch.evaluate spans Jaeger searches: groundwatch-collector for groundwatch serve, your application's service when the SDK scores in-process." },
] as const;

/** Adds the link variables (after the data source and route) to a dashboard. */
export function linkVariables(d: DashboardBuilder): DashboardBuilder {
  for (const v of LINK_VARIABLES) d = d.withVariable(new TextBoxVariableBuilder(v.name).label(v.label).description(v.description).defaultValue(v.value).current({ text: v.value, value: v.value }));
  return d;
}

/** A series' route label, percent-encoded, in a data link. */
const ROUTE = "${__field.labels.groundwatch_route:percentencode}";

/**
 * The link to the collector's recent flagged answers on the series' route, and with `cause` (a
 * value, or the series' own cause label) if given.
 */
export function flaggedLink(cause?: "series" | "retrieval"): DashboardLinkBuilder {
  const [param, shown] = cause === "series" ? ["${__field.labels.groundwatch_cause:percentencode}", "${__field.labels.groundwatch_cause}"] : [cause, cause];
  const url = `\${collector}/v1/flagged?route=${ROUTE}${param ? `&cause=${param}` : ""}`;
  return new DashboardLinkBuilder(shown ? `Flagged answers with cause ${shown} (/v1/flagged, needs the collector's token)` : "Flagged answers (/v1/flagged, needs the collector's token)").url(url).targetBlank(true);
}

/**
 * The link to the Jaeger search for the series' route's evaluation spans with `tags` (besides
 * groundwatch.route), over the dashboard's time range. Jaeger takes the tags as a JSON object: the
 * route goes in percent-encoded, not JSON-escaped, so a route with a double quote finds nothing.
 */
export function tracesLink(title: string, tags: Record<string, string>): DashboardLinkBuilder {
  const marker = "ROUTE_PLACEHOLDER";
  const [before, after] = JSON.stringify({ "groundwatch.route": marker, ...tags }).split(marker);
  const url = `\${jaeger}/search?service=\${trace_service:percentencode}&lookback=custom&start=\${__from}000&end=\${__to}000&limit=20&tags=${encodeURIComponent(before ?? "")}${ROUTE}${encodeURIComponent(after ?? "")}`;
  return new DashboardLinkBuilder(title).url(url).targetBlank(true);
}

/** The links from a route's hallucination rate: its flagged answers and their traces. */
export function flaggedLinks(): DashboardLinkBuilder[] {
  return [flaggedLink(), tracesLink("Flagged evaluations in Jaeger", { "groundwatch.verdict": "ungrounded" })];
}

const ungrounded = (by: string, range = "$__rate_interval", fn = "rate"): string => `sum by (${by}) (${fn}(groundwatch_evaluations_total{groundwatch_verdict="ungrounded", ${R}}[${range}]))`;
const scored = (by: string, range = "$__rate_interval", fn = "rate"): string => `sum by (${by}) (${fn}(groundwatch_evaluations_total{groundwatch_verdict=~"grounded|ungrounded", ${R}}[${range}]))`;
/** A series without a cause label (scored by a groundwatch older than causes) is shown as "not recorded". */
const namedCause = (expr: string): string => `label_replace(${expr}, "groundwatch_cause", "not recorded", "groundwatch_cause", "")`;

const CAUSES_NOTE =
  "retrieval (no retrieved document addresses the failing claims: look at the index and the retriever), generation (a document addresses them but does not support them, or contradicts them: look at the model and the prompt), citation (the cited source was not retrieved, or another document supports the claim), mixed (claims with different causes), unknown (relevance could not be measured); \"not recorded\": scored by a groundwatch older than causes.";

/** Stacks a panel's series, except the dashed `all causes` total drawn over them. */
function stackedWithTotal(panel: TimeseriesPanel): TimeseriesPanel {
  return panel
    .stacking(new StackingConfigBuilder().mode(StackingMode.Normal).group("A"))
    .fillOpacity(40)
    .overrideByName("all causes", [
      { id: "custom.stacking", value: { mode: "none", group: "A" } },
      { id: "custom.fillOpacity", value: 0 },
      { id: "custom.lineStyle", value: { fill: "dash", dash: [10, 10] } },
    ]);
}

/**
 * The overview's "Cause and relevance" row, its top at `y` (24 high), panel ids 26–29 and 32: the
 * by-cause panel repeated per route across the full width (two a row), three under it, and the
 * unknown causes by reason under those.
 */
export function causePanels(y: number, hallucinationThreshold: number): TimeseriesPanel[] {
  const byCause = stackedWithTotal(
    ts(
      { id: 26, x: 0, y, w: 12, h: 8 },
      "Hallucination rate by cause: $route",
      "percentunit",
      [q(`${namedCause(ungrounded("groundwatch_route, groundwatch_cause"))} / on (groundwatch_route) group_left () (${scored("groundwatch_route")} > 0)`, "{{groundwatch_cause}}", "A"), q(ratio(ungrounded("groundwatch_route"), scored("groundwatch_route")), "all causes", "B")],
      {
        min: 0,
        max: 1,
        threshold: hallucinationThreshold,
        description: `The route's hallucination rate (dashed: ungrounded share of scored answers) stacked by the cause of each ungrounded answer: ${CAUSES_NOTE} The red line is the paging threshold (${hallucinationThreshold}); the page names the largest cause. One panel per route selected. No data means nothing was scored; the dashed line alone at 0, nothing was ungrounded. Links: the route's flagged answers (with the cause clicked) and their traces.`,
      },
    ),
  )
    .repeat("route")
    .repeatDirection("h")
    .maxPerRow(2)
    .dataLinks([flaggedLink("series"), tracesLink("Flagged evaluations in Jaeger", { "groundwatch.verdict": "ungrounded" })]);
  const contextRelevance = ts(
    { id: 27, x: 0, y: y + 8, w: 8, h: 8 },
    "Context relevance by route",
    "none",
    [
      q(`sum by (groundwatch_route) (rate(groundwatch_context_relevance_sum{${R}}[$__rate_interval])) / (sum by (groundwatch_route) (rate(groundwatch_context_relevance_count{${R}}[$__rate_interval])) > 0)`, "mean {{groundwatch_route}}", "A"),
      q(`histogram_quantile(0.1, sum by (groundwatch_route, le) (rate(groundwatch_context_relevance_bucket{${R}}[$__rate_interval])))`, "p10 {{groundwatch_route}}", "B"),
    ],
    {
      min: 0,
      max: 1,
      decimals: 2,
      description: `How well the retrieved documents address the question, for each scored answer the best document's relevance, from 0 (off-topic) to 1 (on point); against the claims when the observation has no question. Mean, and p10 (a tenth of the answers had less). A score on the backend's own scale, not a percentage and not groundedness: compare a route with itself over time. GroundwatchContextRelevanceDrop tickets when the 1-hour mean falls ${CONTEXT_RELEVANCE_DROP} below its 7-day average (a stale or broken index). No data means no relevance was measured. Links: the route's answers flagged with cause retrieval, and their traces.`,
    },
  ).dataLinks([flaggedLink("retrieval"), tracesLink("Evaluations with cause retrieval in Jaeger", { "groundwatch.cause": "retrieval" })]);
  const answerRelevance = ts(
    { id: 28, x: 8, y: y + 8, w: 8, h: 8 },
    "Answer relevance by route",
    "none",
    [q(`sum by (groundwatch_route) (rate(groundwatch_answer_relevance_sum{${R}}[$__rate_interval])) / (sum by (groundwatch_route) (rate(groundwatch_answer_relevance_count{${R}}[$__rate_interval])) > 0)`, "{{groundwatch_route}}")],
    {
      min: 0,
      max: 1,
      decimals: 2,
      description:
        "Whether the answers address the question, mean per route, from 0 (off-topic) to 1; only answers to observations with a question, and an on-topic refusal counts as relevant (1). Not part of the groundedness verdict: a grounded answer that does not answer the question shows here, not in the hallucination rate. No data means no answer with a question was scored.",
    },
  );
  const claims = stackedWithTotal(
    ts(
      { id: 29, x: 16, y: y + 8, w: 8, h: 8 },
      "Claims not supported, by cause",
      "short",
      [
        q(namedCause(`sum by (groundwatch_cause) (rate(groundwatch_claims_total{groundwatch_claim_verdict!="supported", ${R}}[$__rate_interval]))`), "{{groundwatch_cause}}", "A"),
        q(`sum(rate(groundwatch_claims_total{groundwatch_claim_verdict!="supported", ${R}}[$__rate_interval]))`, "all causes", "B"),
      ],
      {
        min: 0,
        description: `Claims per second that scored answers made and their documents did not support (unsupported, contradicted, misattributed), stacked by each claim's own cause: ${CAUSES_NOTE} Where answers are "mixed", this says which cause dominates claim by claim.`,
      },
    ),
  );
  const unknown = ts(
    { id: 32, x: 0, y: y + 16, w: 12, h: 8 },
    "Ungrounded answers of unknown cause, by reason",
    "short",
    [q(`sum by (groundwatch_reason) (rate(groundwatch_cause_unknown_total{${R}}[$__rate_interval])) or vector(0)`, "{{groundwatch_reason}}")],
    {
      min: 0,
      description:
        "Ungrounded answers per second whose cause is unknown, by why: weak_failure (every failing claim scored less than a quarter of the threshold below it: near misses, too close to name retrieval or generation; when they dominate, review a sample and calibrate the threshold), borderline_relevance (the documents' relevance lay within 0.05 of the context relevance threshold), relevance_unmeasured (no relevance scorer, it failed, or the claims were past the relevance pair budget). They are still ungrounded; see the runbook's \"Cause: unknown\".",
    },
  );
  return [byCause, contextRelevance, answerRelevance, claims, unknown];
}

/** The trends dashboard's 30-day cause split (the routes selected, together) and context relevance, at `y` (8 high), ids 7–8. */
export function causeTrendPanels(y: number, hallucinationThreshold: number): TimeseriesPanel[] {
  const window = "30d";
  const byCause = stackedWithTotal(
    ts(
      { id: 7, x: 0, y, w: 12, h: 8 },
      "Hallucination rate by cause, 30-day window",
      "percentunit",
      [
        q(`${namedCause(ungrounded("groundwatch_cause", window, "increase"))} / on () group_left () (sum(increase(groundwatch_evaluations_total{groundwatch_verdict=~"grounded|ungrounded", ${R}}[${window}])) > 0)`, "{{groundwatch_cause}}", "A"),
        q(ratio(`sum(increase(groundwatch_evaluations_total{groundwatch_verdict="ungrounded", ${R}}[${window}]))`, `sum(increase(groundwatch_evaluations_total{groundwatch_verdict=~"grounded|ungrounded", ${R}}[${window}]))`), "all causes", "B"),
      ],
      {
        min: 0,
        max: 1,
        threshold: hallucinationThreshold,
        description: `Ungrounded share of the answers scored on the routes selected (together) over the 30 days before each point (dashed), stacked by cause: ${CAUSES_NOTE} No data where nothing was scored. Needs 30+ days of Prometheus retention.`,
      },
    ),
  );
  const relevance = ts(
    { id: 8, x: 12, y, w: 12, h: 8 },
    "Context relevance, 30-day mean by route",
    "none",
    [q(`sum by (groundwatch_route) (increase(groundwatch_context_relevance_sum{${R}}[${window}])) / (sum by (groundwatch_route) (increase(groundwatch_context_relevance_count{${R}}[${window}])) > 0)`, "{{groundwatch_route}}")],
    {
      min: 0,
      max: 1,
      decimals: 2,
      description: "Mean context relevance (the best retrieved document's relevance to the question, 0 to 1, on the backend's own scale) of the answers scored over the 30 days before each point. A slow decline: the index falling behind the questions. No data where no relevance was measured.",
    },
  );
  return [byCause, relevance];
}
