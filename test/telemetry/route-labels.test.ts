import { describe, expect, it } from "vitest";
import { MAX_ROUTE_CHARS, OTHER_ROUTE, UNKNOWN_ROUTE, createRouteLabels } from "../../src/telemetry/route-labels.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

describe("route labels: one cap for every instrument", () => {
  it("admits maxRoutes distinct labels, then reports every new route as __other__", () => {
    const labels = createRouteLabels(3);
    expect(["/a", "/b", "/c", "/d", "/e"].map((r) => labels.label(r))).toEqual(["/a", "/b", "/c", OTHER_ROUTE, OTHER_ROUTE]);
    // A route admitted before keeps its own label after the cap is reached.
    expect(labels.label("/b")).toBe("/b");
    expect(labels.size).toBe(4);
  });

  it("admits the preset routes (those the sampling rules name) before any traffic", () => {
    const labels = createRouteLabels(2, ["/api/answer"]);
    expect(labels.label("/x")).toBe("/x");
    expect(labels.label("/y")).toBe(OTHER_ROUTE);
    expect(labels.label("/api/answer")).toBe("/api/answer");
  });

  it("labels sanitised routes: control and ANSI sequences removed, cut at MAX_ROUTE_CHARS, blank or non-strings unknown", () => {
    const labels = createRouteLabels(10);
    expect(labels.label("/a\u001b[31m/b\u0007")).toBe("/a/b");
    expect(labels.label("x".repeat(5000))).toHaveLength(MAX_ROUTE_CHARS);
    expect(labels.label("   ")).toBe(UNKNOWN_ROUTE);
    expect(labels.label(42)).toBe(UNKNOWN_ROUTE);
    expect(labels.label(undefined)).toBe(UNKNOWN_ROUTE);
  });

  it("gives the uncapped clean route for sampling decisions, even past the cap", () => {
    const labels = createRouteLabels(1);
    labels.label("/first");
    expect(labels.label("/second")).toBe(OTHER_ROUTE);
    expect(labels.clean("/second")).toBe("/second");
  });

  it("costs linear time in the number of distinct routes and in a route's length", () => {
    expectLinear(
      "distinct routes",
      measureGrowth(
        (n) => Array.from({ length: n }, (_, i) => `/orders/${i}/items`),
        (routes) => {
          const labels = createRouteLabels(200);
          for (const r of routes) labels.label(r);
        },
        { n: 2000 },
      ),
    );
    expectLinear(
      "one long route",
      measureGrowth(
        (n) => "/a\u001b[1m".repeat(n),
        (route) => createRouteLabels(10).label(route),
        { n: 50_000 },
      ),
    );
  });
});
