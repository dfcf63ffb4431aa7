import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { resolveReviewTarget } from "../../src/cli/review/options.ts";
import { startReviewWeb } from "../../src/cli/review/web-server.ts";
import { readLabelRecords } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSpool } from "./review-web-fixtures.ts";

describe("the review session's options, resolved once for the terminal and the page alike", () => {
  it("takes each from its flag, else its environment variable, else the default labels file in the first spool", () => {
    const env = { GROUNDWATCH_REVIEW_DIR: "env-spool", GROUNDWATCH_REVIEWER: " eve " };
    expect(resolveReviewTarget({}, { env, cwd: "/work" })).toEqual({ dirs: ["/work/env-spool"], reviewer: "eve", labels: "/work/env-spool/labels.jsonl" });
    expect(resolveReviewTarget({ dir: ["a", "b"], reviewer: "ana", labels: "l.jsonl" }, { env, cwd: "/work" })).toEqual({ dirs: ["/work/a", "/work/b"], reviewer: "ana", labels: "/work/l.jsonl" });
  });

  it("review --web reads GROUNDWATCH_REVIEW_DIR and GROUNDWATCH_REVIEWER as the terminal review does", async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1")]);
    // Bound off loopback without a token, the page refuses to start: the check after the session's options resolved.
    const run = await runCli(["review", "--web", "--host", "0.0.0.0", "--port", "0"], { env: { GROUNDWATCH_REVIEW_DIR: dir, GROUNDWATCH_REVIEWER: "ana" } });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain("is required");
    expect(run.stderr).toContain("invalid --host");
  });

  it("checks the reviewer's name by one rule in both views, with the same message", async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1")]);
    for (const argv of [["review"], ["review", "--web"]]) {
      const run = await runCli([...argv, "--dir", dir, "--reviewer", "a\u001b[2J"], { stdin: "" });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--reviewer must be at most 100 characters, without control characters");
    }
  });

  it("a reviewer who labelled in the terminal goes on labelling on the page under the same name", async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1"), spoolRecord("a2")]);
    const reviewer = "Jane O'Brien (QA)";
    const terminal = await runCli(["review", "--dir", dir, "--reviewer", reviewer], { stdin: "a\nq\n" });
    expect(terminal.code, terminal.stderr).toBe(0);
    const labels = join(dir, "labels.jsonl");
    const server = await startReviewWeb({ dirs: [dir], reviewer, labelsFile: labels, port: 0 });
    onTestFinished(() => server.close());
    expect(await (await fetch(`${server.url}api/next`)).json()).toMatchObject({ answer: { id: "a2" }, progress: { labelled: 1, remaining: 1 } });
    expect(readLabelRecords(labels).labels.map((l) => l.reviewer)).toEqual([reviewer]);
  });
});
