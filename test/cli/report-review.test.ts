import { describe, expect, it } from "vitest";
import { reviewCounts } from "../../src/cli/report-review.ts";
import { spoolRecord } from "../helpers/review-spool.ts";

const row = (verdict: string | undefined, n: number): { metric: Record<string, string>; value: [number, string] } => ({ metric: verdict === undefined ? {} : { groundwatch_verdict: verdict }, value: [1_700_000_000, String(n)] });

describe("evidence's count of the period's answers for the review section", () => {
  it("counts ungrounded answers as flagged, and unscorable ones too when the spool keeps them as flagged", () => {
    const rows = [row("grounded", 900), row("ungrounded", 100), row("unscorable", 7)];
    expect(reviewCounts(rows, [spoolRecord("f", "flagged", "2026-11-01T00:00:00Z")])).toEqual({ flagged: 100, grounded: 900 });
    const unscorable = { ...spoolRecord("u", "flagged", "2026-11-01T00:00:00Z"), verdict: "unscorable" as const };
    expect(reviewCounts(rows, [unscorable])).toEqual({ flagged: 107, grounded: 900 });
  });

  it("has no counts when Prometheus has no series by verdict (the spool then estimates them)", () => {
    expect(reviewCounts([], [])).toBeUndefined();
    expect(reviewCounts([row(undefined, 3)], [])).toBeUndefined();
  });
});
