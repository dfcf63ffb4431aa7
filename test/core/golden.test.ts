import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

// Regenerate after an intended change (a refit, a new feature) with UPDATE_GOLDEN=1 and review the diff.
const INPUT = fileURLToPath(new URL("../fixtures/golden.jsonl", import.meta.url));
const EXPECTED = fileURLToPath(new URL("../fixtures/golden.expected.json", import.meta.url));

interface GoldenRow {
  id: string;
  verdict: string;
  score: number | null;
  claims: Array<{ text: string; start: number; end: number; verdict: string; score: number; evidenceDoc: number | null }>;
  skipped: string[];
}

async function scoreFixtures(): Promise<GoldenRow[]> {
  const scorer = await createScorer({ backend: "offline" }, { analyzer: testAnalyzer() });
  const rows = readFileSync(INPUT, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; context: string | string[]; answer: string });
  const out: GoldenRow[] = [];
  for (const row of rows) {
    const r = await scorer.score(row);
    out.push({
      id: row.id,
      verdict: r.verdict,
      score: r.score === null ? null : Number(r.score.toFixed(6)),
      claims: r.claims.map((c) => ({ text: c.text, start: c.start, end: c.end, verdict: c.verdict, score: Number(c.score.toFixed(6)), evidenceDoc: c.evidence?.doc ?? null })),
      skipped: r.skipped.map((s) => `${s.reason}: ${s.text}`),
    });
  }
  await scorer.close();
  return out;
}

describe("golden fixture set", () => {
  it("scores every fixture exactly as recorded", async () => {
    const actual = await scoreFixtures();
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(EXPECTED, JSON.stringify(actual, null, 2) + "\n");
    const expected = JSON.parse(readFileSync(EXPECTED, "utf8")) as GoldenRow[];
    expect(actual).toEqual(expected);
  });

  it("has the verdicts a reader expects on the clear-cut rows", async () => {
    const byId = new Map((await scoreFixtures()).map((r) => [r.id, r]));
    expect(byId.get("g01")?.verdict).toBe("grounded");
    expect(byId.get("g03")?.verdict).toBe("grounded");
    expect(byId.get("g07")?.verdict).toBe("grounded");
    for (const id of ["g02", "g04", "g05", "g06", "g11", "g12"]) expect(byId.get(id)?.verdict, id).toBe("ungrounded");
    expect(byId.get("g04")?.claims[0]?.verdict).toBe("contradicted");
    expect(byId.get("g06")?.claims[0]?.verdict).toBe("contradicted");
    expect(byId.get("g09")?.verdict).toBe("unscorable");
    expect(byId.get("g10")?.verdict).toBe("unscorable");
    expect(byId.get("g08")?.skipped).toEqual(["greeting: Great question!", "question: Anything else?"]);
  });

  it("does not fail open on the cases issue 16 found", async () => {
    const byId = new Map((await scoreFixtures()).map((r) => [r.id, r]));
    // A sentence-initial plural in the evidence ("Refunds", "Items") supports the singular.
    expect(byId.get("g13")?.verdict).toBe("grounded");
    // "thirty days" is "30 days".
    expect(byId.get("g14")?.verdict).toBe("grounded");
    // Numbers the evidence lacks are unsupported, even with no word around them; one it states otherwise is contradicted.
    expect(byId.get("g15")?.verdict).toBe("ungrounded");
    expect(byId.get("g15")?.claims[0]?.verdict).toBe("unsupported");
    expect(byId.get("g16")?.claims[0]?.verdict).toBe("contradicted");
    expect(byId.get("g17")?.verdict).toBe("ungrounded");
    expect(byId.get("g18")?.skipped).toEqual(["refusal: I'm not able to answer that."]);
  });
});
