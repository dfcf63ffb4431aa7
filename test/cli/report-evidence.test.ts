import { describe, expect, it } from "vitest";
import type { Evidence } from "../../src/core/result.ts";
import { evidenceLine, evidenceLocation, evidenceText } from "../../src/cli/report/evidence.ts";

const ONE: Evidence = { doc: 0, start: 0, end: 31, text: "The Team plan includes 5 seats.", window: { start: 0, end: 31 } };
const TWO: Evidence = { ...ONE, also: { doc: 1, start: 0, end: 40, text: "The Team plan includes priority support.", window: { start: 0, end: 40 } } };

describe("the evidence line of the reports", () => {
  it("shows one sentence and where it lies", () => {
    expect(evidenceLine({ label: "evidence", evidence: ONE })).toBe("evidence [document [1], 0–31]: The Team plan includes 5 seats.");
  });

  it("shows both sentences of evidence read together, and where each lies", () => {
    expect(evidenceLocation(TWO)).toBe("document [1], 0–31 + document [2], 0–40");
    expect(evidenceText(TWO)).toBe("The Team plan includes 5 seats. + The Team plan includes priority support.");
    expect(evidenceLine({ label: "nearest evidence", evidence: TWO })).toBe("nearest evidence [document [1], 0–31 + document [2], 0–40]: The Team plan includes 5 seats. + The Team plan includes priority support.");
  });
});
