import type { DriftTracker, WeightedSample } from "../core/drift.ts";
import { createDriftTracker } from "../core/drift.ts";
import type { RouteTally } from "../telemetry/instruments.ts";
import type { RouteLabels } from "../telemetry/route-labels.ts";
import { createRouteLabels } from "../telemetry/route-labels.ts";

/** A route's tally while the monitor counts into it. */
type MutableRouteTally = { -readonly [K in keyof RouteTally]: RouteTally[K] };

/** How the per-route drift trackers are made. */
export interface RouteTalliesOptions {
  /** The most distinct route labels (the one cap, telemetry/route-labels.ts). */
  readonly maxRoutes: number;
  /** Routes admitted first: the sampling rules' own routes (patterns with `*` are not routes). */
  readonly preset: readonly string[];
  /** Recent scores a route's drift tracker keeps. */
  readonly driftWindowSize: number;
  /** No drift verdict with fewer scores than this on either side. */
  readonly driftMinScores: number;
  /** The reference distribution for a route's drift tracker (by route label), read when the tracker is created. */
  readonly driftReference: (route: string) => WeightedSample | undefined;
}

/** Per-route tallies of the hot path and per-route drift, exported by observable instruments at collection time. */
export interface RouteTallies {
  /** The labels routes are recorded under. */
  readonly labels: RouteLabels;
  /** Hot-path tallies by route label (created on first use; bounded by the cap). */
  readonly routes: ReadonlyMap<string, RouteTally>;
  /** Drift trackers by route label (created at the route's first score). */
  readonly drift: ReadonlyMap<string, DriftTracker>;
  /** The tally of a route's label (created on first use; bounded by the cap). */
  tallyFor(label: string): MutableRouteTally;
  /** Adds a score to the route's drift tracker. */
  addScore(label: string, score: number): void;
}

export function createRouteTallies(options: RouteTalliesOptions): RouteTallies {
  /** The one cap on route labels (telemetry/route-labels.ts): the sampling rules' own routes are admitted first. */
  const labels = createRouteLabels(options.maxRoutes, options.preset);
  const routes = new Map<string, MutableRouteTally>();
  const drift = new Map<string, DriftTracker>();
  return {
    labels,
    routes,
    drift,
    tallyFor(label: string): MutableRouteTally {
      let tally = routes.get(label);
      if (!tally) routes.set(label, (tally = { seen: 0, notSampled: 0, sampled: 0 }));
      return tally;
    },
    addScore(label: string, score: number): void {
      let t = drift.get(label);
      if (!t) {
        const reference = options.driftReference(label);
        drift.set(label, (t = createDriftTracker({ windowSize: options.driftWindowSize, minScores: options.driftMinScores, ...(reference ? { reference } : {}) })));
      }
      t.add(score);
    },
  };
}
