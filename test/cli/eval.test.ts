import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { BAD, DOC, GOOD, rows, set } from "../helpers/eval.ts";

describe("groundwatch eval", () => {
  it("passes a clean set and writes report.json, report.md, junit.xml, report.html and the step summary", async () => {
    const out = tempDir();
    const summary = join(out, "summary.md");
    writeFileSync(summary, "");
    const run = await runCli(["eval", "--set", set(rows(0)), "--min-mean-score", "0.3", "--max-hallucination-rate", "0.05", "--out", out, "--backend", "offline"], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("## groundwatch eval — PASSED");
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { summary: { rows: number; hallucinationRate: number }; gate: { passed: boolean } };
    expect(report).toMatchObject({ summary: { rows: 10, hallucinationRate: 0 }, gate: { passed: true } });
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit.match(/<testcase classname="groundwatch\.eval" /g)).toHaveLength(10);
    // One testcase per gate criterion: the hallucination rate, the unscorable share and the mean score.
    expect(junit.match(/<testcase classname="groundwatch\.eval\.gate" /g)).toHaveLength(3);
    expect(readFileSync(summary, "utf8")).toContain("PASSED");
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("<svg");
  });

  it("fails the gate on the hallucination rate, with the interval and the failing rows, exit 1", async () => {
    const out = tempDir();
    const run = await runCli(["eval", "--set", set(rows(3)), "--max-hallucination-rate", "0.1", "--out", out, "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("## groundwatch eval — FAILED");
    expect(run.stdout).toMatch(/hallucination rate 30\.0% is above the maximum 10\.0%/);
    expect(run.stdout).toMatch(/\| hallucination rate \| 30\.0% \(95% CI \d+\.\d%–\d+\.\d%\)/);
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    // The gate's criterion fails, and the three ungrounded rows that failed it.
    expect(junit).toContain('<testsuite name="groundwatch eval: gate" tests="2" failures="1"');
    expect(junit).toContain('<testsuite name="groundwatch eval: rows" tests="10" failures="3">');
    expect(junit).toContain('<failure message="counts against the failed gate (hallucination rate): ungrounded');
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain('<mark class="contradicted"');
  });

  it("escapes untrusted text in the HTML and JUnit reports", async () => {
    const out = tempDir();
    await runCli(["eval", "--set", set([{ id: "<x>", context: [DOC], answer: `<script>alert(1)</script> The fee is $5 & free.` }]), "--out", out, "--backend", "offline"]);
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain('name="&lt;x&gt;"');
  });

  it("flags rows that regressed against a baseline report", async () => {
    const base = tempDir();
    await runCli(["eval", "--set", set(rows(0, 4)), "--out", base, "--backend", "offline"]);
    const run = await runCli(["eval", "--set", set(rows(1, 4)), "--baseline", join(base, "report.json"), "--out", tempDir(), "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("1 row(s) regressed against the baseline");
    expect(run.stdout).toMatch(/\| q0 \| grounded \(\d\.\d{3}\) \| ungrounded \(\d\.\d{3}\) \|/);
  });

  it("asks a RAG endpoint for the answers with --target, and fails closed on a broken reply", async () => {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        const q = (JSON.parse(body) as { query: string }).query;
        if (q.includes("broken")) {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ nope: true }));
          return;
        }
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { text: q.includes("bad") ? BAD : GOOD } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`;
    const out = tempDir();
    const run = await runCli([
      "eval", "--set", set([{ id: 1, question: "good one", context: [DOC] }, { id: 2, question: "a bad one", context: [DOC] }, { id: 3, question: "broken \"quoted\"", context: [DOC] }]),
      "--target", url, "--request", '{"query":"{{question}}"}', "--answer-path", "data.text", "--out", out, "--backend", "offline",
    ]);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { rows: Array<{ id: number; verdict: string; reason?: string; error?: string }> };
    expect(report.rows.map((r) => r.verdict)).toEqual(["grounded", "ungrounded", "unscorable"]);
    expect(report.rows[2]).toMatchObject({ reason: "target_error" });
    expect(report.rows[2]?.error).toContain('no string at "data.text"');
    // The default gate applies: one ungrounded answer of two scorable is a 50% hallucination rate.
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("hallucination rate 50.0% is above the maximum 10.0%");
  });

  it("names a row without an answer when there is no --target", async () => {
    const run = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: "c" }])]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 1: no "answer", and no --target to ask for one');
  });

  // Regression: a repeated id was accepted, and the baseline comparison (a map by id) silently
  // compared one of the two rows against the other's earlier result.
  it("refuses a set that repeats a row id, naming both lines", async () => {
    const run = await runCli(["eval", "--set", set([{ id: "a", context: DOC, answer: GOOD }, { id: "b", context: DOC, answer: GOOD }, { id: "a", context: DOC, answer: BAD }]), "--out", tempDir(), "--backend", "offline"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 3: id "a" is already used on line 1');
  });
});

/** A RAG endpoint that answers every request with `reply`; closed when the test ends. */
async function target(reply: (res: ServerResponse) => void): Promise<{ url: string; closed: Array<{ sent: number; aborted: boolean }> }> {
  const closed: Array<{ sent: number; aborted: boolean }> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => reply(res));
    res.on("close", () => closed.push({ sent: res.socket?.bytesWritten ?? 0, aborted: !res.writableFinished }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => {
    // An aborted reply can leave its connection open until the client's keep-alive times out.
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`, closed };
}

/** Streams JSON without a Content-Length until the client goes away (or `limit` bytes). */
function endless(res: ServerResponse, limit = 400e6): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"answer":"');
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  const pump = (): void => {
    while (!res.destroyed && sent < limit) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end('"}');
  };
  pump();
}

/** The number of unescaped pipes on a Markdown line: the cell boundaries GitHub sees. */
const pipes = (line: string): number => line.replace(/\\./g, "").split("|").length - 1;

// Regression (issue 13): a newline in a row id injected headings and remote images into report.md
// and $GITHUB_STEP_SUMMARY, "<!--" hid the rest of it, and HTML, ESC, NUL and bidi controls passed.
describe("groundwatch eval: untrusted text in the reports", () => {
  const hostile = [
    "a\n## Injected heading\n![pixel](https://evil.example/p.png)",
    "<!-- the rest is hidden",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1)) | extra | cells",
    "*bold* _em_ `code` $x$ ~~s~~ &amp; \\",
    "esc\u001b[31mred nul\u0000 bidi\u202eevil\u2066 c1\u009b",
    "lone \ud800 surrogate \ufffe",
  ];

  it("escapes ids, claims and the set path in report.md and the step summary", async () => {
    const out = tempDir();
    const summary = join(out, "summary.md");
    writeFileSync(summary, "");
    const answer = `${BAD} ![x](https://evil.example/a.png) <!-- <script>alert(1)</script>`;
    const run = await runCli(["eval", "--set", set(hostile.map((id) => ({ id, context: [DOC], answer }))), "--out", out, "--backend", "offline", "--no-gate"], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(run.code).toBe(0);
    const md = readFileSync(join(out, "report.md"), "utf8");
    expect(readFileSync(summary, "utf8")).toBe(md);
    const lines = md.split("\n");
    expect(lines.filter((l) => l.startsWith("#"))).toEqual(["## groundwatch eval — report only, no gate"]);
    for (const bad of ["![", "<!--", "<img", "<script", "](", "\u001b", "\u0000", "\u202e", "\u2066", "\u009b", "\ud800"]) expect(md, JSON.stringify(bad)).not.toContain(bad);
    const summaryRows = ["| measure", "| answer threshold", "| hallucination", "| grounded share", "| mean", "| unscorable", "| regressions", "| failing answers by cause", "| answer relevance"];
    const table = lines.filter((l) => l.startsWith("| ") && !summaryRows.some((p) => l.startsWith(p)));
    expect(table).toHaveLength(1 + hostile.length);
    // Seven columns (id, verdict, score, cause, gate, claim, evidence): eight cell boundaries on every line.
    for (const l of table) expect(pipes(l), l).toBe(8);
    expect(md).toContain("| a \\#\\# Injected heading \\!\\[pixel\\]\\(https://evil.example/p.png\\) | ungrounded |");
    expect(md).toContain("| &lt;\\!-- the rest is hidden |");
    expect(md).toContain("| \\*bold\\* \\_em\\_ \\`code\\` \\$x\\$ \\~\\~s\\~\\~ &amp;amp; \\\\ |");
    expect(run.stdout).not.toContain("\u001b");
  });

  it("escapes a baseline's rows in the regressions table", async () => {
    const base = join(tempDir(), "report.json");
    writeFileSync(base, JSON.stringify({ rows: [{ id: "q0", verdict: "grounded\n# Owned ![i](https://evil.example/i.png)", score: 1 }] }));
    const run = await runCli(["eval", "--set", set(rows(1, 1)), "--baseline", base, "--out", tempDir(), "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("| q0 | grounded \\# Owned \\!\\[i\\]\\(https://evil.example/i.png\\) (1.000) | ungrounded (");
  });

  it("escapes report.html and keeps junit.xml to characters XML 1.0 allows", async () => {
    const out = tempDir();
    const run = await runCli(["eval", "--set", set(hostile.map((id) => ({ id, context: [DOC], answer: `${BAD} <img src=y> \u202e\u0000` }))), "--out", out, "--backend", "offline", "--no-gate"]);
    expect(run.code).toBe(0);
    const html = readFileSync(join(out, "report.html"), "utf8");
    for (const bad of ["<img", "<!-- the", "\u001b", "\u0000", "\u202e", "\u2066", "\u009b"]) expect(html, JSON.stringify(bad)).not.toContain(bad);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    // XML 1.0 Char: tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF.
    expect(junit).toMatch(/^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u);
    expect(junit).toContain('name="a&#10;## Injected heading&#10;![pixel](https://evil.example/p.png)"');
    expect(junit).toContain('name="&lt;img src=x onerror=alert(1)&gt;"');
    expect(junit.match(/<testcase classname="groundwatch\.eval" /g)).toHaveLength(hostile.length);
  });
});

describe("groundwatch eval: inputs and outputs", () => {
  it("reads a set and a baseline that start with a byte order mark", async () => {
    const dir = tempDir();
    const path = join(dir, "eval.jsonl");
    writeFileSync(path, `\ufeff${rows(0, 2).map((r) => JSON.stringify(r)).join("\r\n")}\r\n`);
    const first = await runCli(["eval", "--set", path, "--out", join(dir, "a"), "--backend", "offline"]);
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(join(dir, "base.json"), `\ufeff${readFileSync(join(dir, "a", "report.json"), "utf8")}`);
    const second = await runCli(["eval", "--set", path, "--baseline", join(dir, "base.json"), "--out", join(dir, "b"), "--backend", "offline"]);
    expect(second.code, second.stderr).toBe(0);
  });

  it("names an --out that is a file, exit 2, before scoring", async () => {
    const file = join(tempDir(), "taken");
    writeFileSync(file, "");
    const run = await runCli(["eval", "--set", set(rows(0, 1)), "--out", file, "--backend", "offline"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`groundwatch eval: cannot write --out ${file}: it is not a directory\n`);
    const under = await runCli(["eval", "--set", set(rows(0, 1)), "--out", join(file, "sub"), "--backend", "offline"]);
    expect(under.code).toBe(2);
    expect(under.stderr).toBe(`groundwatch eval: cannot write --out ${join(file, "sub")}: a part of the path is not a directory\n`);
  });

  it("names a report file that cannot be written, exit 2, without a stack trace", async () => {
    const out = tempDir();
    mkdirSync(join(out, "junit.xml"));
    const run = await runCli(["eval", "--set", set(rows(0, 1)), "--out", out, "--backend", "offline"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`groundwatch eval: cannot write --out ${join(out, "junit.xml")}: it is a directory\n`);
  });

  it("warns when $GITHUB_STEP_SUMMARY cannot be appended to, and keeps the gate's exit code", async () => {
    const out = tempDir();
    const run = await runCli(["eval", "--set", set(rows(0, 1)), "--out", out, "--backend", "offline"], { env: { GITHUB_STEP_SUMMARY: out } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`groundwatch eval: WARNING: cannot append to $GITHUB_STEP_SUMMARY ${out}: EISDIR`);
  });
});

// Regression (issue 13): a 400 MB reply from --target was read whole (2.7 GB RSS), then the
// process died of a stack overflow. The reply is now streamed and capped; the row fails.
// These runs are report-only (--no-gate): a lone unscorable row fails the default gate, and they
// test how the reply is read, not the gate.
describe("groundwatch eval --target: reply size", () => {
  it("aborts a streamed reply over --max-reply-bytes and fails only that row", async () => {
    const server = await target((res) => endless(res));
    const out = tempDir();
    const run = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: [DOC] }]), "--target", server.url, "--max-reply-bytes", "1000000", "--retries", "0", "--out", out, "--backend", "offline", "--no-gate"]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { rows: Array<{ verdict: string; reason?: string; error?: string }> };
    expect(report.rows[0]).toMatchObject({ verdict: "unscorable", reason: "target_error", error: `target ${server.url}: the reply is larger than 1000000 bytes (--max-reply-bytes); the request was aborted` });
    await expect.poll(() => server.closed.length).toBe(1);
    expect(server.closed[0]?.aborted).toBe(true);
    expect(server.closed[0]?.sent).toBeLessThan(50e6);
  });

  it("caps at 10 MB by default, and refuses a declared Content-Length over the cap unread", async () => {
    const streamed = await target((res) => endless(res));
    const declared = await target((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(11e6) });
      res.write('{"answer":"');
    });
    const out = tempDir();
    const run = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: [DOC] }]), "--target", streamed.url, "--retries", "0", "--out", out, "--backend", "offline", "--no-gate"]);
    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8"))).toMatchObject({ rows: [{ reason: "target_error", error: expect.stringContaining("larger than 10000000 bytes") as unknown }] });
    expect(run.code).toBe(0);
    const run2 = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: [DOC] }]), "--target", declared.url, "--max-reply-bytes", "1000", "--retries", "0", "--out", out, "--backend", "offline", "--no-gate"]);
    expect(run2.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8"))).toMatchObject({ rows: [{ error: expect.stringContaining("larger than 1000 bytes") as unknown }] });
  });

  it("still reads a reply just under the cap", async () => {
    const server = await target((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ answer: GOOD })));
    const out = tempDir();
    const size = Buffer.byteLength(JSON.stringify({ answer: GOOD }));
    const run = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: [DOC] }]), "--target", server.url, "--max-reply-bytes", String(size), "--out", out, "--backend", "offline"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8"))).toMatchObject({ rows: [{ verdict: "grounded" }] });
  });

  it("refuses a --max-reply-bytes that is not a positive whole number", async () => {
    const run = await runCli(["eval", "--set", set([{ id: 1, question: "q", context: [DOC] }]), "--target", "http://127.0.0.1:9/", "--max-reply-bytes", "0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-reply-bytes must be a positive whole number of bytes (got "0")');
  });
});
