import { describe, expect, it } from "vitest";
import { DOC, GOOD, evalRun, set } from "../helpers/eval.ts";

const CONTRADICTED = "Items may be returned within 90 days in any condition.";
const UNSUPPORTED = "Gift wrapping is available for a fee.";

// Issue 25: report.md and report.html ignored a row's label, and showed a row's first unsupported
// claim, which need not be its worst.
describe("groundwatch eval reports on a labelled set", () => {
  const labelled = [
    { id: "missed", question: "q", context: [DOC], answer: GOOD, label: 0 },
    { id: "caught", question: "q", context: [DOC], answer: `${CONTRADICTED} ${UNSUPPORTED}`, label: 0 },
    { id: "right", question: "q", context: [DOC], answer: GOOD, label: 1 },
    { id: "flagged", question: "q", context: [DOC], answer: CONTRADICTED, label: 1 },
    { id: "unlabelled", question: "q", context: [DOC], answer: GOOD },
    { id: "empty", question: "q", context: [], answer: GOOD, label: 1 },
  ];

  it("show label agreement per row and over the set, in report.md and report.html", async () => {
    const r = await evalRun(set(labelled), ["--no-gate"]);
    expect(r.json.rows.map((x) => [x.id, x.verdict])).toEqual([["missed", "grounded"], ["caught", "ungrounded"], ["right", "grounded"], ["flagged", "ungrounded"], ["unlabelled", "grounded"], ["empty", "unscorable"]]);
    const summary = "50.0% (2 of 4 labelled rows scored agree with their label; 2 disagree; 1 unscorable, not compared)";
    expect(r.md).toContain(`| label agreement (label 1 grounded, 0 not) | ${summary} | – | – | – |`);
    // The rows that disagree, grounded ones included (a hallucination the scorer missed).
    expect(r.md).toContain("| id | label | verdict | score |\n|---|---|---|---|\n| missed | 0 (not grounded) | grounded | 0.");
    expect(r.md).toMatch(/\| flagged \| 1 \(grounded\) \| ungrounded \| 0\.\d{3} \|\n/);
    expect(r.md).not.toMatch(/\| (caught|right|unlabelled|empty) \| [01] \(/);
    expect(r.html).toContain(`<tr><td>label agreement (label 1 grounded, 0 not)</td><td>${summary}</td>`);
    expect(r.html).toContain("<th>score</th><th>label</th><th>gate</th>");
    const cell = (id: string): string | undefined => new RegExp(`<tr class="\\w+"><td>${id}</td><td>\\w+(?:<br><span class="why">cause: \\w+</span>)?</td><td>[\\d.–]+</td><td[^>]*>([^<]*)</td>`).exec(r.html)?.[1];
    expect(["missed", "caught", "right", "flagged", "unlabelled", "empty"].map(cell)).toEqual(["disagree (label 0)", "agree (label 0)", "agree (label 1)", "disagree (label 1)", "–", "unscorable (label 1)"]);
  });

  it("an unlabelled set shows no label column or agreement", async () => {
    const r = await evalRun(set(labelled.map(({ label: _label, ...row }) => row)), ["--no-gate"]);
    expect(r.md).not.toContain("label agreement");
    expect(r.html).not.toContain("label agreement");
    expect(r.html).not.toContain("<th>label</th>");
  });

  it("a row's finding is its lowest-scoring unsupported claim, not its first", async () => {
    const r = await evalRun(set(labelled), ["--no-gate"]);
    const caught = r.json.rows.find((x) => x.id === "caught")!;
    const [first, second] = caught.claims;
    // The premise of the test: the first claim not supported scores higher than the second.
    expect([first?.text, second?.text]).toEqual([CONTRADICTED, UNSUPPORTED]);
    expect(first!.verdict).not.toBe("supported");
    expect(second!.score).toBeLessThan(first!.score);
    expect(r.md).toContain("| id | verdict | score | cause | gate | lowest-scoring unsupported claim | evidence |");
    expect(r.md).toMatch(new RegExp(`\\| caught \\| ungrounded \\| [\\d.]+ \\| \\w+ \\| – \\| ${UNSUPPORTED.replace(".", "\\.")} \\|`));
    expect(r.junit).toContain(`unsupported claim &quot;${UNSUPPORTED}&quot;`);
  });
});
