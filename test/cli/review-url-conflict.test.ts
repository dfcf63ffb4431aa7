import { PassThrough, Readable } from "node:stream";
import { describe, expect, it, onTestFinished } from "vitest";
import { runTerminalReview } from "../../src/cli/review/terminal.ts";
import { startReviewWeb } from "../../src/cli/review/web-server.ts";
import type { LabelRecord } from "../../src/review/record.ts";
import type { ReviewStore, SeenLabel } from "../../src/review/store.ts";
import { createDirectoryStore, unseenLabels } from "../../src/review/store.ts";
import { labelsPath, readLabelRecords } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { reviewLabel, spoolRecord, writeSpool } from "../helpers/review-spool.ts";

const f1 = spoolRecord("f1", "flagged", "2026-11-01T10:00:00.000Z");
const f2 = spoolRecord("f2", "flagged", "2026-11-01T11:00:00.000Z");
/** bo's label of f1, written after the reviewer's session loaded (another machine, the same holder). */
const BO = reviewLabel(f1, "bo", 0, "2026-12-01T09:00:00.000Z");

/** A spool of f1 and f2 whose store learns of bo's label only after it was loaded, as a holder would. */
function racedStore(): { store: ReviewStore; dir: string } {
  const dir = writeSpool(`${tempDir()}/spool`, [f1, f2], []);
  const inner = createDirectoryStore({ dirs: [dir] });
  let raced = false;
  return {
    dir,
    store: {
      load: () => inner.load(),
      write(record: LabelRecord, seen: readonly SeenLabel[]) {
        if (!raced) {
          raced = true;
          const others = unseenLabels([BO], record.id, record.reviewer, seen);
          if (others.length > 0) {
            return inner.write(BO, []).then(() => ({ conflict: others }));
          }
        }
        return inner.write(record, seen);
      },
    },
  };
}

async function terminalRun(store: ReviewStore, script: string): Promise<{ out: string; result: { labelled: number; left: number } }> {
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  const result = await runTerminalReview({ store, reviewer: "ana", now: () => new Date("2026-12-01T10:00:00Z") }, { stdin: Readable.from([script]), stdout, stderr: new PassThrough(), env: {}, cwd: "/" });
  return { out, result };
}

describe("a label of an answer someone else labelled since the session loaded", () => {
  it("the terminal says who and how, and labels anyway on y (written once, after the other's)", async () => {
    const { store, dir } = racedStore();
    const { out, result } = await terminalRun(store, "a\ny\nq\n");
    expect(out).toContain("f1: already labelled by bo (agree) since you started —  y label anyway  n skip");
    expect(result.labelled).toBe(1);
    expect(readLabelRecords(labelsPath(dir)).labels.map((l) => `${l.reviewer}:${l.id}`)).toEqual(["bo:f1", "ana:f1"]);
  });

  it("the terminal skips the answer on n, writing nothing of this reviewer's", async () => {
    const { store, dir } = racedStore();
    const { out, result } = await terminalRun(store, "a\nn\nq\n");
    expect(out).toContain("already labelled by bo (agree)");
    expect(result).toEqual({ labelled: 0, left: 2 });
    expect(readLabelRecords(labelsPath(dir)).labels.map((l) => `${l.reviewer}:${l.id}`)).toEqual(["bo:f1"]);
  });

  it("the page's API answers 409 with the other's label, and writes on the second try", async () => {
    const { store, dir } = racedStore();
    const web = await startReviewWeb({ store, dirs: [], reviewer: "ana", port: 0, now: () => new Date("2026-12-01T10:00:00Z") });
    onTestFinished(() => web.close());
    const label = (): Promise<Response> => fetch(`${web.url}api/label`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "f1", agreement: "agree" }) });
    const first = await label();
    expect(first.status).toBe(409);
    expect(await first.json()).toMatchObject({ error: "already labelled by bo (agree)", conflict: [{ reviewer: "bo", id: "f1" }] });
    expect((await label()).status).toBe(200);
    expect(readLabelRecords(labelsPath(dir)).labels.map((l) => `${l.reviewer}:${l.id}`)).toEqual(["bo:f1", "ana:f1"]);
  });
});
