import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/telemetry/semconv.ts";

describe("semantic convention names", () => {
  it("match the GenAI evaluation names in @opentelemetry/semantic-conventions/incubating", () => {
    expect(ours.EVENT_GEN_AI_EVALUATION_RESULT).toBe(incubating.EVENT_GEN_AI_EVALUATION_RESULT);
    expect(ours.ATTR_GEN_AI_EVALUATION_NAME).toBe(incubating.ATTR_GEN_AI_EVALUATION_NAME);
    expect(ours.ATTR_GEN_AI_EVALUATION_SCORE_VALUE).toBe(incubating.ATTR_GEN_AI_EVALUATION_SCORE_VALUE);
    expect(ours.ATTR_GEN_AI_EVALUATION_SCORE_LABEL).toBe(incubating.ATTR_GEN_AI_EVALUATION_SCORE_LABEL);
    expect(ours.ATTR_GEN_AI_EVALUATION_EXPLANATION).toBe(incubating.ATTR_GEN_AI_EVALUATION_EXPLANATION);
    expect(ours.ATTR_ERROR_TYPE).toBe(incubating.ATTR_ERROR_TYPE);
  });

  it("give every metric its Prometheus name (dots to underscores, _total on counters)", () => {
    expect(ours.METRICS.evaluations.prometheus).toBe("groundwatch_evaluations_total");
    expect(ours.METRICS.score.prometheus).toBe("groundwatch_groundedness_score");
    expect(new Set(Object.values(ours.METRICS).map((m) => m.name)).size).toBe(Object.keys(ours.METRICS).length);
  });
});
