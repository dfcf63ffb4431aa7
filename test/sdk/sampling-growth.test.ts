/**
 * Route patterns (a star matches any run of characters) meet routes that callers choose: matching is linear in
 * the route, and reads a route as the regular expression it replaces did.
 */
import { describe, expect, it } from "vitest";
import { createSampler, matchesGlob } from "../../src/sdk/sampling.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const N = 12_500;
const OPTIONS = { n: N, maxN: N };

describe("route patterns", () => {
  it.each([
    ["several stars against a run of one character with no match", "*a*a*a*a*b", (n: number) => "a".repeat(n)],
    ["a star between repeated slashes", "/*/*/*/x", (n: number) => "/".repeat(n)],
    ["a prefix and a suffix around a long route", "/api/*/items", (n: number) => `/api/${"x/".repeat(n / 2)}`],
  ])("grow linearly in the route: %s", (what, pattern, make) => {
    const sampler = createSampler({ default: 0, routes: { [pattern]: 0.5 } }, () => 0);
    expectLinear(what, measureGrowth(make, (route) => sampler.rateFor(route), OPTIONS));
  });

  it("match what the .* chain they replace matched, on 20,000 small routes and patterns", () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = (pieces: string[], max: number): string => Array.from({ length: Math.floor(random() * max) }, () => pieces[Math.floor(random() * pieces.length)]).join("");
    for (let k = 0; k < 20_000; k++) {
      const pattern = pick(["*", "a", "b", "/", "ab", "."], 6);
      const route = pick(["a", "b", "/", "ab", "ba", "."], 8);
      const old = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
      expect(matchesGlob(pattern.split("*"), route), JSON.stringify({ pattern, route })).toBe(old.test(route));
    }
  });

  it("let the most specific pattern win", () => {
    const s = createSampler({ default: 0, routes: { "/api/*": 0.5, "/api/*/tax": 0.25, "/api/advice/*": 1 } }, () => 0);
    expect(s.rateFor("/api/advice/tax")).toBe(1);
    expect(s.rateFor("/api/other/tax")).toBe(0.25);
    expect(s.rateFor("/api/other")).toBe(0.5);
    expect(s.rateFor("/apiother")).toBe(0);
  });
});
