import { describe, expect, it } from "vitest";
import { isOwnEvaluation, ownRoute } from "../../src/collector/own-telemetry.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

describe("groundwatch's own evaluation telemetry", () => {
  it("is a groundwatch.evaluate span or a gen_ai.evaluation.result event that carries groundwatch.route", () => {
    expect(isOwnEvaluation({ name: "groundwatch.evaluate", attributes: { "groundwatch.route": "/api/answer" } })).toBe(true);
    expect(isOwnEvaluation({ eventName: "gen_ai.evaluation.result", attributes: { "groundwatch.route": "/api/answer", "gen_ai.evaluation.name": "groundedness" } })).toBe(true);
    expect(ownRoute({ eventName: "gen_ai.evaluation.result", attributes: { "groundwatch.route": "/api/answer" } })).toBe("/api/answer");
  });

  it("leaves another library's evaluation events, and spans that only share the name, to the joiner", () => {
    expect(isOwnEvaluation({ eventName: "gen_ai.evaluation.result", attributes: { "gen_ai.evaluation.name": "relevance" } })).toBe(false);
    expect(isOwnEvaluation({ name: "groundwatch.evaluate", attributes: {} })).toBe(false);
    expect(isOwnEvaluation({ name: "chat gpt-4o", attributes: { "groundwatch.route": "/api/answer" } })).toBe(false);
    expect(isOwnEvaluation({ eventName: "gen_ai.choice", attributes: { "groundwatch.route": "/api/answer" } })).toBe(false);
  });

  it("is linear in the sender's names and routes (they are attacker-controlled)", () => {
    const records = (n: number) => [
      { eventName: `gen_ai.evaluation.result${"x".repeat(n)}`, attributes: { "groundwatch.route": "/r".repeat(n) } },
      { name: `groundwatch.evaluate${" ".repeat(n)}`, attributes: { "groundwatch.route": "/r" } },
      { eventName: "gen_ai.evaluation.result", attributes: { "groundwatch.route": "/r".repeat(n) } },
    ];
    expectLinear("isOwnEvaluation", measureGrowth(records, (rs) => rs.filter(isOwnEvaluation).map(ownRoute).join("").length, { n: 10_000, maxN: 640_000 }));
  });
});
