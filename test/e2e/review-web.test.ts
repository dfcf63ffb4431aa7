import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { describe, expect, it, onTestFinished } from "vitest";
import { startReviewWeb } from "../../src/cli/review/web-server.ts";
import type { SpoolRecord } from "../../src/review/record.ts";
import { readLabelRecords } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSpool } from "../cli/review-web-fixtures.ts";

const CHROMIUM = "/usr/bin/chromium";

function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error("chromium is not installed: .ci/run must install Debian's chromium");
  return false;
}

/**
 * Headless Chromium driven over the DevTools protocol on its pipe (--remote-debugging-pipe: commands
 * on fd 3, replies on fd 4, each message a JSON text ended by a NUL byte): no WebSocket, no browser
 * download, only Debian's chromium.
 */
interface Browser {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Evaluates an expression in the page and returns its value. */
  evaluate(expression: string): Promise<unknown>;
  press(key: string): Promise<void>;
  /** The browser's log entries so far (CSP violations among them). */
  log(): string[];
  close(): Promise<void>;
}

async function launch(url: string): Promise<Browser> {
  const profile = tempDir();
  const child: ChildProcess = spawn(CHROMIUM, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank"], { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let buffered = "";
  const logged: string[] = [];
  // A browser that died closes its pipe: the test fails on its waits, not on an unhandled EPIPE.
  toBrowser.on("error", () => undefined);
  fromBrowser.setEncoding("utf8");
  fromBrowser.on("data", (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\0")) >= 0) {
      const message = JSON.parse(buffered.slice(0, end)) as { id?: number; method?: string; params?: { entry?: { text?: string } }; result?: Record<string, unknown>; error?: { message: string } };
      buffered = buffered.slice(end + 1);
      if (message.method === "Log.entryAdded") logged.push(String(message.params?.entry?.text ?? ""));
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiter || message.id === undefined) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result ?? {});
    }
  });
  /** The page's session, once attached: every command but Target.* goes to it. */
  const attached: { sessionId?: string } = {};
  const send = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(attached.sessionId !== undefined && !method.startsWith("Target.") ? { sessionId: attached.sessionId } : {}) })}\0`);
    });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async (): Promise<void> => {
    // Browser.close lets Chromium end its helper processes; SIGKILL only if it does not exit.
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    await Promise.race([send("Browser.close").catch(() => ({})), exited]);
    await exited;
    clearTimeout(kill);
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const { targetId } = (await send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    attached.sessionId = ((await send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string }).sessionId;
    await send("Page.enable");
    await send("Log.enable");
    await send("Page.navigate", { url });
  } catch (error) {
    await close();
    throw error;
  }
  const evaluate = async (expression: string): Promise<unknown> => ((await send("Runtime.evaluate", { expression, returnByValue: true })) as { result: { value?: unknown } }).result.value;
  const SPECIAL: Record<string, { code: string; keyCode: number; text?: string }> = { " ": { code: "Space", keyCode: 32, text: " " }, Enter: { code: "Enter", keyCode: 13, text: "\r" } };
  const press = async (key: string): Promise<void> => {
    const special = SPECIAL[key];
    const code = special?.code ?? `Key${key.toUpperCase()}`;
    const keyCode = special?.keyCode ?? key.toUpperCase().charCodeAt(0);
    const text = special ? special.text : key;
    await send("Input.dispatchKeyEvent", { type: "keyDown", key, code, windowsVirtualKeyCode: keyCode, ...(text !== undefined ? { text } : {}) });
    await send("Input.dispatchKeyEvent", { type: "keyUp", key, code, windowsVirtualKeyCode: keyCode });
  };
  return { send, evaluate, press, log: () => [...logged], close };
}

/** How long a wait for the page may take on a loaded machine (expect.poll's default is 1 s). */
const WAIT = { timeout: 15_000 };
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

describe.skipIf(!chromiumAvailable())("groundwatch review --web in headless Chromium", () => {
  it("labels answers with the keyboard (agree, disagree, undo, claim by claim) and runs no script from the data", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const hostileAnswer = `Items may be returned within 90 days. ${HOSTILE}`;
    writeSpool(dir, [
      spoolRecord("h1", { question: HOSTILE, answer: hostileAnswer, documents: [{ id: HOSTILE, title: HOSTILE, text: `Returns: unopened items may be returned within 30 days of delivery for a full refund. ${HOSTILE}` }] }),
      spoolRecord("a2"),
      spoolRecord("a3", { kind: "grounded_sample", verdict: "grounded", score: 0.9, sampleRate: 0.05 }),
      spoolRecord("a4"),
    ]);
    const labels = join(dir, "labels.jsonl");
    const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: labels, port: 0, now: () => new Date("2026-12-01T12:00:00.000Z") });
    onTestFinished(() => server.close());
    const browser = await launch(server.url.replace("127.0.0.1", "localhost"));
    onTestFinished(() => browser.close());
    const shown = (): Promise<unknown> => browser.evaluate("document.body ? document.body.getAttribute('data-answer') : null");

    await expect.poll(shown, WAIT).toBe("h1");
    // The hostile text is on the page as text: no element made from it, no script of it ran.
    expect(await browser.evaluate("window.__pwned")).toBeUndefined();
    expect(await browser.evaluate("document.querySelectorAll('img').length + ':' + document.querySelectorAll('script').length")).toBe("0:1");
    expect(await browser.evaluate("document.getElementById('answer').textContent")).toBe(hostileAnswer);
    expect(await browser.evaluate("document.getElementById('question').textContent")).toBe(HOSTILE);
    // The contradicted claim's evidence is marked in its document, cut from the offsets.
    expect(await browser.evaluate("document.querySelector('#documents mark.evidence').textContent")).toBe("unopened items may be returned within 30 days of delivery for a full refund");
    expect(await browser.evaluate("document.querySelector('#answer mark.claim.v-contradicted').textContent")).toBe("Items may be returned within 90 days.");
    expect(await browser.evaluate("document.getElementById('progress').textContent")).toBe("0 labelled, 0 skipped, 4 to go, of 4");

    await browser.press("a"); // agree: the flag was right
    await expect.poll(shown, WAIT).toBe("a2");
    await browser.press("d"); // disagree
    await expect.poll(shown, WAIT).toBe("a4");
    await browser.press("u"); // undo the disagreement: a2 again
    await expect.poll(shown, WAIT).toBe("a2");
    await browser.press("c"); // claim by claim: claim 0 is marked not supported, claim 1 supported
    await expect.poll(() => browser.evaluate("document.body.getAttribute('data-mode')"), WAIT).toBe("claims");
    await browser.press("j");
    await browser.press(" "); // claim 1: not supported either
    await browser.press("k");
    await browser.press(" "); // claim 0: supported after all
    await expect.poll(() => browser.evaluate("Array.from(document.querySelectorAll('#claims li > span:first-child')).map(function (s) { return s.textContent; }).join('|')"), WAIT).toBe("[supported] |[not supported] ");
    await browser.press("Enter");
    // Flagged answers first (review/queue.ts): a4, then the grounded sample a3.
    await expect.poll(shown, WAIT).toBe("a4");
    await browser.press("s"); // skip: no label
    await expect.poll(shown, WAIT).toBe("a3");
    await browser.press("a"); // agree that the grounded sample is grounded: nothing left for this session
    await expect.poll(shown, WAIT).toBe("");
    expect(await browser.evaluate("document.getElementById('done').hidden")).toBe(false);
    expect(await browser.evaluate("document.getElementById('progress').textContent")).toBe("3 labelled, 1 skipped, 0 to go, of 4");
    expect(await browser.evaluate("window.__pwned")).toBeUndefined();
    // The page's own script and style ran under its CSP: nothing was blocked.
    expect(browser.log().filter((text) => /Content Security Policy/i.test(text))).toEqual([]);

    const at = "2026-12-01T12:00:00.000Z";
    expect(readLabelRecords(labels).labels).toEqual([
      { v: 1, id: "h1", reviewer: "ana", time: at, label: 0, agreement: "agree", kind: "flagged" },
      { v: 1, id: "a2", reviewer: "ana", time: at, label: 1, agreement: "disagree", kind: "flagged" },
      { v: 1, id: "a2", reviewer: "ana", time: at, kind: "flagged", undo: true },
      { v: 1, id: "a2", reviewer: "ana", time: at, label: 0, agreement: "agree", claims: [{ index: 0, label: 1 }, { index: 1, label: 0 }], kind: "flagged" },
      { v: 1, id: "a3", reviewer: "ana", time: at, label: 1, agreement: "agree", kind: "grounded_sample" },
    ]);
  });
  it("opened with ?token=, gives another port of the same host only a session id, never the token", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1")]);
    const token = "the-review-page-token-0123456789";
    const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: join(dir, "labels.jsonl"), port: 0, token });
    onTestFinished(() => server.close());
    // Another web server on the same host name (any other service there): what the browser sends it.
    const cookies: string[] = [];
    const other = createServer((req, res) => {
      cookies.push(req.headers.cookie ?? "");
      res.end("other service");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;

    const browser = await launch(`${server.url}?token=${token}`);
    onTestFinished(() => browser.close());
    await expect.poll(() => browser.evaluate("document.body ? document.body.getAttribute('data-answer') : null"), WAIT).toBe("a1");
    expect(await browser.evaluate("location.search")).toBe("");
    await browser.send("Page.navigate", { url: otherUrl });
    await expect.poll(() => cookies.length, WAIT).toBeGreaterThan(0);
    // Cookies are not bound to a port: the other server gets the session's cookie, and nothing in it is the token.
    expect(cookies[0]).toMatch(/^groundwatch_review_session=[A-Za-z0-9_-]{43}$/);
    expect(cookies.join("\n")).not.toContain(token);
  });

  it("shows an answer whose spool record holds a null claim, without it", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const good = spoolRecord("n1");
    writeSpool(dir, [{ ...good, claims: [null, good.claims[0]], documents: [null, good.documents[0]] } as unknown as SpoolRecord]);
    const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: join(dir, "labels.jsonl"), port: 0 });
    onTestFinished(() => server.close());
    const browser = await launch(server.url);
    onTestFinished(() => browser.close());
    await expect.poll(() => browser.evaluate("document.body ? document.body.getAttribute('data-answer') : null"), WAIT).toBe("n1");
    await expect.poll(() => browser.evaluate("document.getElementById('answer').textContent"), WAIT).toBe(good.answer);
    expect(await browser.evaluate("document.querySelectorAll('#claims li').length")).toBe(1);
    expect(await browser.evaluate("document.querySelector('#documents mark.evidence').textContent")).toBe("unopened items may be returned within 30 days of delivery for a full refund");
    expect(await browser.evaluate("document.getElementById('status').textContent")).toBe("");
  });

  it("highlights spans in the answer with their probability, as text, and a click marks one wrong for the label", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const answer = `Items may be returned within 90 days. Refunds are ${HOSTILE}.`;
    const spans = [
      { start: 29, end: 36, probability: 0.93, claim: 0, text: "90 days" },
      { start: 50, end: 50 + HOSTILE.length, probability: 0.6, claim: 1, text: HOSTILE },
    ];
    writeSpool(dir, [spoolRecord("s1", { answer, spans })]);
    const labels = join(dir, "labels.jsonl");
    const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: labels, port: 0, now: () => new Date("2026-12-01T12:00:00.000Z") });
    onTestFinished(() => server.close());
    const browser = await launch(server.url);
    onTestFinished(() => browser.close());
    await expect.poll(() => browser.evaluate("document.body ? document.body.getAttribute('data-answer') : null"), WAIT).toBe("s1");
    expect(await browser.evaluate("Array.from(document.querySelectorAll('#answer mark.span')).map(function (m) { return m.textContent + '@' + m.getAttribute('data-probability'); }).join('|')")).toBe(`90 days@0.930|${HOSTILE}@0.600`);
    expect(await browser.evaluate("document.querySelector('#answer sup.p').textContent")).toBe("p 0.930");
    expect(await browser.evaluate("document.querySelectorAll('#answer b, img').length")).toBe(0);
    expect(await browser.evaluate("window.__pwned")).toBeUndefined();
    expect(await browser.evaluate("document.getElementById('spans-view').hidden")).toBe(false);
    await browser.evaluate("document.querySelector('#spans button[data-span=\"1\"]').click()");
    await expect.poll(() => browser.evaluate("document.querySelector('#answer mark.span.wrong') && document.querySelector('#answer mark.span.wrong').getAttribute('data-span')"), WAIT).toBe("1");
    expect(await browser.evaluate("document.querySelector('#spans button[data-span=\"1\"]').getAttribute('aria-pressed')")).toBe("true");
    await browser.press("d");
    await expect.poll(() => browser.evaluate("document.body.getAttribute('data-answer')"), WAIT).toBe("");
    expect(readLabelRecords(labels).labels).toEqual([{ v: 1, id: "s1", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", label: 1, agreement: "disagree", spans: [{ span: 1, verdict: "wrong" }], kind: "flagged" }]);
    expect(browser.log().filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  });
});
