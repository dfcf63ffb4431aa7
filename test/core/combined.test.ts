import { describe, expect, it } from "vitest";
import type { CombinedPolicy } from "../../src/core/combined.ts";
import { combineVerdicts } from "../../src/core/combined.ts";
import type { EntropyResult } from "../../src/core/entropy/semantic-entropy.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import type { AnswerResult } from "../../src/core/groundedness.ts";
import { cityKey, meaningBackend } from "../helpers/meaning-backend.ts";

const BACKEND = { name: "fake", version: "1", tier: "production" as const };
const grounded: AnswerResult = { verdict: "grounded", score: 0.9, threshold: 0.5, claims: [], skipped: [], backend: BACKEND, limits: [], entailmentCalls: 0 };
const ungrounded: AnswerResult = { verdict: "ungrounded", score: 0.1, threshold: 0.5, claims: [], skipped: [], backend: BACKEND, limits: [], entailmentCalls: 0 };
const unscorable: AnswerResult = { verdict: "unscorable", score: null, reason: "empty_context", detail: "", claims: [], skipped: [], backend: BACKEND, limits: [], entailmentCalls: 0 };
const EITHER: CombinedPolicy = { entropyThreshold: 0.5, mode: "either" };
const Q = "Which city is the capital of Australia?";

const measure = (samples: string[]): Promise<EntropyResult> => semanticEntropy({ question: Q, samples, backend: meaningBackend(cityKey) });

describe("combined verdict", () => {
  it("passes a grounded answer whose resamples agree", async () => {
    expect(combineVerdicts(grounded, await measure(["Canberra.", "It is Canberra.", "Canberra, ACT."]), EITHER)).toEqual({ verdict: "pass", reasons: [] });
  });

  it("fails a grounded answer whose resamples disagree in meaning", async () => {
    const v = combineVerdicts(grounded, await measure(["Canberra.", "Sydney.", "Paris."]), EITHER);
    expect(v.verdict).toBe("fail");
    expect(v.reasons[0]).toMatch(/uncertain: normalised semantic entropy 1\.000 at or above 0\.5 \(3 meanings in 3 samples\)/);
  });

  it("fails an ungrounded answer even when resamples agree", async () => {
    expect(combineVerdicts(ungrounded, await measure(["Canberra.", "It is Canberra."]), EITHER).verdict).toBe("fail");
  });

  it("is unscorable, never pass, when the entropy measurement is unreliable", async () => {
    const v = combineVerdicts(grounded, await measure(["Canberra.", "Canberra.", "Canberra."]), EITHER);
    expect(v.verdict).toBe("unscorable");
    expect(v.reasons[0]).toContain("semantic entropy unreliable");
  });

  it("is unscorable when groundedness is", async () => {
    expect(combineVerdicts(unscorable, await measure(["Canberra.", "It is Canberra."]), EITHER)).toEqual({ verdict: "unscorable", reasons: ["groundedness unscorable: empty_context"] });
  });

  it("fails when every resample declines to answer", async () => {
    const v = combineVerdicts(grounded, await measure(["I don't know.", "No idea.", "I cannot answer that."]), EITHER);
    expect(v).toEqual({ verdict: "fail", reasons: ["every resample declined to answer"] });
  });

  it("reports entropy without gating on it under groundedness-only", async () => {
    expect(combineVerdicts(grounded, await measure(["Canberra.", "Sydney.", "Paris."]), { entropyThreshold: 0.5, mode: "groundedness-only" }).verdict).toBe("pass");
  });
});
