import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startCollector } from "../../src/collector/server.ts";
import { GUARD_PANELS, RESAMPLER_PANELS, REVIEW_PANELS, panelQueries } from "../helpers/dashboards.ts";
import { prometheusAvailable, startPrometheus } from "../helpers/prometheus.ts";
import { waitForValue } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOC = "Warranty: electronics come with a one-year limited warranty covering manufacturing defects. Accidental damage is not covered.";
const GOOD = "Electronics come with a one-year limited warranty covering manufacturing defects.";
const BAD = "The warranty covers alien abductions and lasts for ninety-nine years on Mars.";

const RUNBOOK_BASE = "https://runbooks.test/groundwatch";
/** Ratio panels: no data, not 0%, on a route where nothing was scored. */
const RATIO_PANELS = [
  "Hallucination rate by route",
  "Mean groundedness by route",
  "Hallucination rate by cause: $route",
  "Context relevance by route",
  "Answer relevance by route",
  "Invalid and misattributed citations by route",
  "Degenerate resample sets",
  "Unstable-claim share by route",
  "Hallucination rate, 30-day window",
  "Hallucination rate, 90-day window",
  "Hallucination rate by cause, 30-day window",
  "Context relevance, 30-day mean by route",
];

/** The shipped rules, with the page alert's `for` and the rule intervals shortened so a test can watch it fire. */
function testRules(): string {
  const dir = mkdtempSync(join(tmpdir(), "gw-rules-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const rules = readFileSync(join(ROOT, "alerts", "rules.yml"), "utf8").replaceAll("interval: 30s", "interval: 1s").replace("for: 2m", "for: 3s");
  const path = join(dir, "rules.yml");
  writeFileSync(path, rules);
  return path;
}

/** An answer citing its source: the document ([1]) when it is grounded, one that was not retrieved ([2]) when not; the verdict is the same either way. */
const cite = (answer: string): string => `${answer} ${answer === GOOD ? "[1]" : "[2]"}`;

async function send(c: RunningCollector, answers: string[], route: string): Promise<void> {
  // Every third answer cites a source, so the citation panels have data.
  const rows = answers.map((answer, i) => ({ route, context: [DOC], answer: i % 3 === 1 ? cite(answer) : answer, question: "What does the warranty cover?", ...(i % 5 === 0 ? { samples: ["One year.", "It lasts a year.", "Two years.", "A year, for defects."] } : {}) }));
  for (let i = 0; i < rows.length; i += 50) {
    const res = await fetch(`${c.url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rows.slice(i, i + 50)) });
    expect(res.status).toBe(202);
  }
  await c.monitor.flush();
}

describe.skipIf(!prometheusAvailable())("alerts and dashboards against a real Prometheus", () => {
  it("panel queries return data (no data for ratios where nothing was scored, and for the resampler's panels with resampling off), recording rules match the driven rate, and the page alert goes pending then firing", { timeout: 120_000 }, async () => {
    // /api/quiet is seen but never sampled: nothing is scored there.
    const c = await startCollector({ env: { HF_HOME: "/nonexistent" }, port: 0, monitor: { sampling: { default: 1, routes: { "/api/quiet": 0 } }, scoring: { backend: "offline" }, drift: { windowSize: 20, minScores: 20 } } });
    onTestFinished(() => c.close(2000));
    await c.monitor.ready();
    // Seed both verdict series at the measured rate before Prometheus starts, so its first scrape
    // holds the whole seed, and let it scrape them before the measured traffic: rate() needs the
    // counters to move while it watches, and with both series seeded at 1 in 20 its extrapolation
    // scales them alike, so their ratio is the rate sent.
    await send(c, [...Array.from({ length: 19 }, () => GOOD), BAD], "/api/warranty");
    await send(c, [GOOD, BAD, GOOD], "/api/quiet");
    const prom = await startPrometheus(c.url.replace("http://", ""), `  external_labels:\n    groundwatch_runbook_base: ${RUNBOOK_BASE}\n    groundwatch_collector_base: ${c.url}\nrule_files:\n  - ${testRules()}\n`);
    await prom.scrapedAfter();
    // Phase 1: 5% hallucinated — below the 10% threshold.
    for (let b = 0; b < 3; b++) {
      await send(c, [...Array.from({ length: 19 }, () => GOOD), BAD], "/api/warranty");
      await send(c, [GOOD, BAD], "/api/quiet");
    }
    // Every rule, the alert included, is evaluated on all of phase 1 before anything is asserted:
    // "no alert yet" below cannot pass for want of an evaluation.
    await prom.caughtUp();
    const rate = Number((await prom.query('groundwatch:hallucination_rate:ratio_rate5m{groundwatch_route="/api/warranty"}'))[0]?.value[1]);
    expect(rate).toBeCloseTo(0.05, 2);
    // The volume guards' constants are recorded, and the route's scored answers reach them.
    expect(Number((await prom.query("groundwatch:min_scored_answers:1h"))[0]?.value[1])).toBe(30);
    expect(Number((await prom.query('groundwatch:scored_answers:increase5m{groundwatch_route="/api/warranty"}'))[0]?.value[1])).toBeGreaterThanOrEqual(30);
    type Alert = { labels: Record<string, string>; annotations: Record<string, string>; state: string };
    const alertsNow = async (): Promise<Alert[]> => ((await (await fetch(`${prom.url}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } }).data.alerts.filter((a) => a.labels.alertname === "GroundwatchHallucinationRateHigh");
    expect(await alertsNow()).toEqual([]);

    // Every dashboard panel query runs (query() throws on an error) and returns data, except the
    // resampler's own panels: resampling is off in this collector, so their metrics do not exist and
    // they must be no data, neither an error nor a made-up 0 — and so must the review panels, this
    // collector keeping no review spool, and the guard panels, nothing here calling Monitor.guard(). (Entropy and the unstable-claim share have data: every
    // fifth observation sent carries its own samples.)
    expect(await prom.query('{__name__=~"groundwatch_resample_.+"}')).toEqual([]);
    const queries = panelQueries();
    for (const title of [...RESAMPLER_PANELS, ...REVIEW_PANELS, ...GUARD_PANELS]) expect(queries.some((q) => q.panel === title), title).toBe(true);
    const empty: string[] = [];
    const resamplerWithData: string[] = [];
    for (const q of queries) {
      const result = await prom.query(q.expr);
      if (RESAMPLER_PANELS.includes(q.panel) || REVIEW_PANELS.includes(q.panel) || GUARD_PANELS.includes(q.panel)) {
        if (result.length > 0) resamplerWithData.push(`${q.dashboard} / ${q.panel}: ${q.expr}`);
      } else if (result.length === 0) empty.push(`${q.dashboard} / ${q.panel}: ${q.expr}`);
    }
    expect(empty).toEqual([]);
    expect(resamplerWithData).toEqual([]);
    // Where traffic is seen but nothing scored, ratio panels are no data (not 0%), the recording
    // rule has no sample, and the share of traffic sampled is a true 0.
    expect(Number((await prom.query('sum(groundwatch_observations_seen_total{groundwatch_route="/api/quiet"})'))[0]?.value[1])).toBeGreaterThan(0);
    const quiet = panelQueries("5m", "/api/quiet");
    for (const title of RATIO_PANELS) expect(quiet.some((q) => q.panel === title), title).toBe(true);
    const notEmpty: string[] = [];
    for (const q of quiet.filter((x) => RATIO_PANELS.includes(x.panel))) if ((await prom.query(q.expr)).length > 0) notEmpty.push(`${q.dashboard} / ${q.panel}: ${q.expr}`);
    expect(notEmpty).toEqual([]);
    expect(await prom.query('groundwatch:hallucination_rate:ratio_rate5m{groundwatch_route="/api/quiet"}')).toEqual([]);
    const share = quiet.find((q) => q.panel === "Share of traffic sampled (period)")!;
    expect((await prom.query(share.expr)).map((r) => Number(r.value[1]))).toEqual([0]);

    // Phase 2: raise the rate — hallucinated answers only — while watching the alert's state.
    const states: string[] = [];
    const watcher = setInterval(() => {
      void alertsNow().then((a) => {
        for (const x of a) if (states.at(-1) !== x.state) states.push(x.state);
      });
    }, 200);
    onTestFinished(() => clearInterval(watcher));
    for (let b = 0; b < 3; b++) await send(c, Array.from({ length: 20 }, () => BAD), "/api/warranty");
    await waitForValue("the alert to fire", () => (states.includes("firing") ? states : undefined), { timeout: 60_000, interval: 200 });
    clearInterval(watcher);
    expect(states[0]).toBe("pending");
    expect(states).toContain("firing");
    const firing = (await alertsNow())[0];
    expect(firing?.labels).toMatchObject({ severity: "page", groundwatch_route: "/api/warranty" });
    // The runbook link takes its base from the external label; the description states the guard.
    expect(firing?.annotations.runbook_url).toBe(`${RUNBOOK_BASE}#groundwatchhallucinationratehigh`);
    expect(firing?.annotations.description).toContain("volume guard: at least 30 in the hour and 3 in the last 5 minutes");
    // It names the dominant cause of the hour's ungrounded answers and links that runbook section.
    expect(firing?.annotations.description).toMatch(new RegExp(`Mostly (retrieval|generation|citation|mixed|unknown) \\(\\d[\\d.]*% of the ungrounded answers in the hour\\): follow ${RUNBOOK_BASE.replaceAll(".", "\\.")}#cause-\\1\\.$`));
    // Its link to the flagged answers, based on the external label, leads to the route's flagged answers on this collector.
    expect(firing?.annotations.flagged_url).toBe(`${c.url}/v1/flagged?route=%2Fapi%2Fwarranty`);
    const flagged = (await (await fetch(firing!.annotations.flagged_url!)).json()) as { flagged: Array<{ route: string; verdict: string; traceId: string }> };
    expect(flagged.flagged.length).toBeGreaterThan(0);
    for (const f of flagged.flagged) expect(f.route).toBe("/api/warranty");
    expect(flagged.flagged.some((f) => f.verdict === "ungrounded")).toBe(true);
    expect(firing?.annotations.traces_url).toMatch(/^http:\/\/127\.0\.0\.1:16686\/search\?service=groundwatch-collector&lookback=1h&tags=/);
    // 3 + 60 hallucinated of 120 measured answers. The alert can fire before Prometheus has scraped
    // and evaluated the last batch, so the rule is read once it has taken everything in.
    await prom.caughtUp();
    const raised = Number((await prom.query('groundwatch:hallucination_rate:ratio_rate5m{groundwatch_route="/api/warranty"}'))[0]?.value[1]);
    expect(raised).toBeCloseTo(63 / 120, 1);
  });
});
