import { describe, expect, it } from "vitest";
import { bsearch, HashRing, positionsForEndpoints } from "./loadbalancing.ts";

// The port of the loadbalancing exporter's ring gives the upstream unit tests' answers
// (exporter/loadbalancingexporter/consistent_hashing_test.go), so the replica test splits traffic as
// the OpenTelemetry Collector would.
describe("the loadbalancing exporter's consistent-hash ring (port)", () => {
  it("places endpoints where upstream does", () => {
    expect(positionsForEndpoints(["endpoint-1"], 5)).toEqual([1401, 4175, 14133, 17836, 21667].map((pos) => ({ pos, endpoint: "endpoint-1" })));
    expect(positionsForEndpoints(["endpoint-1", "endpoint-1"], 5)).toEqual(positionsForEndpoints(["endpoint-1"], 5));
    expect(positionsForEndpoints(["endpoint-1", "endpoint-2"], 5)).toEqual([
      { pos: 1401, endpoint: "endpoint-1" },
      { pos: 4175, endpoint: "endpoint-1" },
      { pos: 10240, endpoint: "endpoint-2" },
      { pos: 14133, endpoint: "endpoint-1" },
      { pos: 15002, endpoint: "endpoint-2" },
      { pos: 17836, endpoint: "endpoint-1" },
      { pos: 21263, endpoint: "endpoint-2" },
      { pos: 21667, endpoint: "endpoint-1" },
      { pos: 26806, endpoint: "endpoint-2" },
      { pos: 27020, endpoint: "endpoint-2" },
    ]);
    expect(new HashRing(["endpoint-1", "endpoint-2"]).items).toHaveLength(200);
  });

  it("searches the ring as upstream does", () => {
    const items = [14, 25, 33, 47, 56, 121, 134, 158, 240, 270, 350].map((pos) => ({ pos, endpoint: "" }));
    const half = Math.floor(items.length / 2);
    for (const [requested, expected] of [
      [85, 121],
      [14, 14],
      [351, 14],
      [270, 270],
      [271, 350],
    ] as const) {
      expect(bsearch(requested, items.slice(0, half), items.slice(half)).pos, `angle ${requested}`).toBe(expected);
    }
  });

  it("routes ids to the endpoints upstream does", () => {
    const ring = new HashRing(["endpoint-1", "endpoint-2"]);
    expect(ring.endpointFor(new Uint8Array([1, 2, 0, 0]))).toBe("endpoint-1");
    expect(ring.endpointFor(new Uint8Array([128, 128, 0, 0]))).toBe("endpoint-2");
    expect(ring.endpointFor(Buffer.from("ad-service-7"))).toBe("endpoint-1");
    expect(ring.endpointFor(Buffer.from("get-recommendations-1"))).toBe("endpoint-2");
  });
});
