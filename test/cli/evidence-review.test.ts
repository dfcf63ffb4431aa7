import { describe, expect, it } from "vitest";
import { reviewCounts, reviewSection } from "../../src/cli/evidence/review.ts";
import { majorityLabels } from "../../src/review/export.ts";
import { currentLabels } from "../../src/review/spool-files.ts";
import { reviewLabel, spoolRecord } from "../helpers/review-spool.ts";

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

  // Regression: the trend printed each bucket's start date only, so a period starting at 22:37 the
  // day before showed that day for answers scored the next day.
  it("shows each trend bucket as the range it covers when the period does not start at midnight", () => {
    const r = spoolRecord("f1", "flagged", "2026-12-01T22:37:35.000Z");
    const labels = [reviewLabel(r, "ana", 0)];
    const read = { dirs: ["spool"], labelsFile: "spool/labels.jsonl", records: [r], labels: majorityLabels(currentLabels(labels)), unreadable: 0, skipped: [] };
    const from = Date.parse("2026-11-30T22:38:00Z") / 1000;
    const html = reviewSection(read, [], from, from + 86_400);
    expect(html).toContain("<tr><td>2026-11-30 22:38 – 2026-12-01 22:38</td><td>1</td>");
    expect(html).not.toContain("<td>2026-11-30</td>");
  });
});
