/**
 * Marking spans wrong in `groundwatch review`, driven by keys in a real terminal (tmux), the screen
 * read back and the labels file checked.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import type { LabelRecord } from "../../src/review/record.ts";
import { labelsPath } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSegment } from "../helpers/review-terminal.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HAVE_TMUX = spawnSync("tmux", ["-V"]).status === 0;
const POLL = { timeout: 30_000, interval: 100 };
const SPANS = [
  { start: 28, end: 35, probability: 0.93, claim: 0, text: "90 days" },
  { start: 64, end: 78, probability: 0.61, claim: 1, text: "payment method" },
];

describe.skipIf(!HAVE_TMUX)("marking spans in the terminal review (tmux)", () => {
  it("w, j, space, enter, then d: the second span is written wrong on the disagreeing label", { timeout: 120_000 }, async () => {
    const dir = tempDir();
    writeSegment(dir, [spoolRecord({ id: "f-1", spans: SPANS })], "r1");
    const socket = `groundwatch-spans-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
    const command = `cd ${JSON.stringify(ROOT)} && NO_COLOR=1 ${JSON.stringify(process.execPath)} bin/groundwatch.js review --dir ${JSON.stringify(dir)} --reviewer alice`;
    tmux("new-session", "-d", "-s", "review", "-x", "160", "-y", "45", command, ";", "set-option", "-w", "remain-on-exit", "on");
    onTestFinished(() => void spawnSync("tmux", ["-L", socket, "kill-server"]));
    const screen = (): string => tmux("capture-pane", "-p", "-t", "review");
    const keys = (...k: string[]): void => void tmux("send-keys", "-t", "review", ...k);

    await expect.poll(screen, POLL).toContain("w mark spans wrong");
    expect(screen()).toContain("within [[90 days]]. Refunds go to the original [[payment method]].");
    keys("w");
    await expect.poll(screen, POLL).toContain('> 0. p 0.930, claim 0, chars 28–35: "90 days"');
    keys("j");
    await expect.poll(screen, POLL).toContain("> 1. p 0.610");
    keys("Space");
    await expect.poll(screen, POLL).toContain('> [wrong] 1. p 0.610, claim 1, chars 64–78: "payment method"');
    keys("Enter");
    await expect.poll(screen, POLL).toContain("a agree  d disagree");
    keys("d");
    await expect.poll(screen, POLL).toContain("all answers shown: 1 labelled");
    keys("q");
    await expect.poll(screen, POLL).toContain("labelled 1, 0 left");
    const [label] = readFileSync(labelsPath(dir), "utf8").trim().split("\n").map((l) => JSON.parse(l) as LabelRecord);
    expect(label).toMatchObject({ id: "f-1", label: 1, agreement: "disagree", spans: [{ span: 1, verdict: "wrong" }] });
  });
});
