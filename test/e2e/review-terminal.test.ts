/**
 * `groundwatch review` driven the way a person drives it: the real binary in a terminal (tmux), keys
 * sent one at a time, the screen read back. Records are written straight into a spool in the
 * contract's segment layout; the labels file is checked record by record.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import type { LabelRecord } from "../../src/review/record.ts";
import { labelsPath } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSegment } from "../helpers/review-terminal.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HAVE_TMUX = spawnSync("tmux", ["-V"]).status === 0;
const POLL = { timeout: 30_000, interval: 100 };

/** A tmux server of its own (its own socket), running `command` in a 120×40 pane, killed when the test ends. */
function terminal(command: string): { keys: (...keys: string[]) => void; screen: () => string; shellPid: () => number } {
  const socket = `groundwatch-review-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  // remain-on-exit keeps the pane (and what the command printed last) after it exits.
  tmux("new-session", "-d", "-s", "review", "-x", "120", "-y", "40", command, ";", "set-option", "-w", "remain-on-exit", "on");
  onTestFinished(() => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
  });
  return {
    keys: (...keys) => void tmux("send-keys", "-t", "review", ...keys),
    screen: () => tmux("capture-pane", "-p", "-t", "review"),
    shellPid: () => Number(tmux("display-message", "-p", "-t", "review", "#{pane_pid}").trim()),
  };
}

/** The (first) child process of `pid`, from /proc (no procps needed). */
function childOf(pid: number): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) return Number(entry);
    } catch {
      // The process ended while /proc was read.
    }
  }
  throw new Error(`process ${pid} has no child`);
}

const labelsOf = (path: string): Array<Omit<LabelRecord, "time">> =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => {
      const { time: _time, ...rest } = JSON.parse(l) as LabelRecord;
      return rest;
    });

describe.skipIf(!HAVE_TMUX)("groundwatch review in a terminal (tmux; skipped when tmux is not installed — .ci/run installs it)", () => {
  it("labels by keys — agree, disagree, claim by claim, undo, quit — and a rerun shows only what is left", async () => {
    const dir = tempDir();
    writeSegment(dir, [spoolRecord({ id: "f-1", time: "2026-12-01T09:00:00.000Z" }), spoolRecord({ id: "f-2", time: "2026-12-01T09:30:00.000Z" })], "r1");
    writeSegment(dir, [spoolRecord({ id: "f-3", time: "2026-12-01T10:00:00.000Z", replica: "r2" }), spoolRecord({ id: "g-1", kind: "grounded_sample", verdict: "grounded", time: "2026-12-01T08:00:00.000Z", replica: "r2" })], "r2");
    // After the review, the shell prints the terminal's line discipline: raw mode must be off again.
    const command = `cd ${JSON.stringify(ROOT)} && env -u NO_COLOR ${JSON.stringify(process.execPath)} bin/groundwatch.js review --dir ${JSON.stringify(dir)} --reviewer alice; echo "tty: $(stty -a | tr ' ;' '\\n\\n' | grep -x -e -icanon -e icanon -e -echo -e echo | tr '\\n' ' ')"`;

    const t = terminal(command);
    await expect.poll(t.screen, POLL).toContain("[1/4] f-1  a agree");
    expect(t.screen()).toContain("Items can be returned within 30 days of delivery.");
    // The claim and its evidence, each labelled (the line wraps at the pane's 120 columns).
    expect(t.screen()).toContain('0. contradicted (generation), score 0.050 | claim: "You can return items within 90 days." | contradicting evidence');
    t.keys("a");
    await expect.poll(t.screen, POLL).toContain("[2/4] f-2");
    t.keys("d");
    await expect.poll(t.screen, POLL).toContain("[3/4] f-3");
    // Claim by claim: the cursor on claim 0 (contradicted, marked not supported), down to claim 1, mark it not supported.
    t.keys("c");
    await expect.poll(t.screen, POLL).toContain("> [not supported] 0. contradicted");
    t.keys("j");
    await expect.poll(t.screen, POLL).toContain("> [supported]     1. supported");
    t.keys("0");
    await expect.poll(t.screen, POLL).toContain("> [not supported] 1. supported");
    t.keys("Enter");
    await expect.poll(t.screen, POLL).toContain("[4/4] g-1");
    t.keys("u");
    await expect.poll(t.screen, POLL).toContain("undone: the label of f-3");
    expect(t.screen()).toContain("[3/4] f-3");
    t.keys("q");
    await expect.poll(t.screen, POLL).toContain("labelled 2, 2 left");
    await expect.poll(t.screen, POLL).toContain("tty: icanon echo");

    expect(labelsOf(labelsPath(dir))).toEqual([
      { v: 1, id: "f-1", reviewer: "alice", label: 0, agreement: "agree", kind: "flagged" },
      { v: 1, id: "f-2", reviewer: "alice", label: 1, agreement: "disagree", kind: "flagged" },
      { v: 1, id: "f-3", reviewer: "alice", label: 0, agreement: "agree", claims: [{ index: 0, label: 0 }, { index: 1, label: 0 }], kind: "flagged" },
      { v: 1, id: "f-3", reviewer: "alice", kind: "flagged", undo: true },
    ]);

    // The rerun resumes: the undone answer, then the grounded sample; Ctrl-C quits and gives the terminal back.
    const again = terminal(command);
    await expect.poll(again.screen, POLL).toContain("[1/2] f-3");
    again.keys("s");
    await expect.poll(again.screen, POLL).toContain("[2/2] g-1");
    again.keys("C-c");
    await expect.poll(again.screen, POLL).toContain("labelled 0, 2 left");
    await expect.poll(again.screen, POLL).toContain("tty: icanon echo");
    expect(labelsOf(labelsPath(dir))).toHaveLength(4);

    // SIGTERM (a closing terminal, a supervisor) also ends the session with the terminal restored.
    const third = terminal(command);
    await expect.poll(third.screen, POLL).toContain("[1/2] f-3");
    process.kill(childOf(third.shellPid()), "SIGTERM");
    await expect.poll(third.screen, POLL).toContain("labelled 0, 2 left");
    await expect.poll(third.screen, POLL).toContain("tty: icanon echo");
  });
});
