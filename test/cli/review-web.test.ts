import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { startReviewWeb } from "../../src/cli/review/web-server.ts";
import type { ReviewWebOptions, ReviewWebServer } from "../../src/cli/review/web-server.ts";
import type { SpoolRecord } from "../../src/review/record.ts";
import { currentLabels, readLabelRecords } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSpool } from "./review-web-fixtures.ts";

const TOKEN = "a-review-token-of-32-characters!";
const NOW = (): Date => new Date("2026-12-01T12:00:00.000Z");

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request through node:http, which (unlike fetch) lets a test set Host and Origin. */
function call(server: ReviewWebServer, method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Reply> {
  const url = new URL(path, server.url);
  const headers: Record<string, string> = { ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? resolve({ status: 0, headers: {}, body: "" }) : reject(error)));
    req.end(options.body);
  });
}
const json = (r: Reply): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

async function serve(overrides: Partial<ReviewWebOptions> = {}): Promise<{ server: ReviewWebServer; dir: string; labels: string }> {
  const dir = tempDir();
  const spool = join(dir, "spool");
  // Review order puts flagged answers first (review/queue.ts): a1, a2, then the grounded sample a3.
  writeSpool(spool, [spoolRecord("a1"), spoolRecord("a2"), spoolRecord("a3", { kind: "grounded_sample", verdict: "grounded", score: 0.9, sampleRate: 0.05 })]);
  const labels = join(spool, "labels.jsonl");
  const server = await startReviewWeb({ dirs: [spool], reviewer: "ana", labelsFile: labels, port: 0, now: NOW, ...overrides });
  onTestFinished(() => server.close());
  return { server, dir: spool, labels };
}
const nextId = async (server: ReviewWebServer, headers: Record<string, string> = {}): Promise<unknown> => (json(await call(server, "GET", "/api/next", { headers })).answer as { id?: string } | undefined)?.id;
/** The `name=value` a reply's Set-Cookie sets (the header a browser would store). */
const sessionCookie = (reply: Reply): string => String(reply.headers["set-cookie"]).split(";")[0] ?? "";
const post = (server: ReviewWebServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> => call(server, "POST", path, { body: JSON.stringify(body), headers });

describe("groundwatch review --web: the API", () => {
  it("serves the oldest unlabelled answer and appends the reviewer's label with its agreement and claims", async () => {
    const { server, labels } = await serve();
    const first = json(await call(server, "GET", "/api/next"));
    expect(first.done).toBe(false);
    const answer = first.answer as { id: string; claims: Array<{ evidence?: unknown }>; documents: unknown[] };
    expect(answer.id).toBe("a1");
    expect(answer.claims[0]?.evidence).toEqual({ doc: 0, start: 9, end: 84 });
    expect(answer.documents).toHaveLength(1);

    expect((await post(server, "/api/label", { id: "a1", agreement: "agree", claims: [{ index: 0, label: 0 }, { index: 1, label: 1 }] })).status).toBe(200);
    expect(await nextId(server)).toBe("a2");
    // Disagreeing with a grounded sample says it is not grounded.
    expect((await post(server, "/api/label", { id: "a2", agreement: "disagree" })).status).toBe(200);
    // Claim marks for claims the answer does not have are dropped; a claim marked twice keeps the last mark.
    expect((await post(server, "/api/label", { id: "a3", label: 1, claims: [{ index: 1, label: 0 }, { index: 7, label: 1 }, { index: 1, label: 1 }] })).status).toBe(200);
    expect(json(await call(server, "GET", "/api/next"))).toMatchObject({ done: true, progress: { total: 3, labelled: 3, skipped: 0, remaining: 0 } });

    expect(readLabelRecords(labels).labels).toEqual([
      { v: 1, id: "a1", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", label: 0, agreement: "agree", claims: [{ index: 0, label: 0 }, { index: 1, label: 1 }], kind: "flagged" },
      { v: 1, id: "a2", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", label: 1, agreement: "disagree", kind: "flagged" },
      { v: 1, id: "a3", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", label: 1, agreement: "agree", claims: [{ index: 1, label: 1 }], kind: "grounded_sample" },
    ]);
  });

  it("does not show a labelled answer again in a later session, but shows it to another reviewer", async () => {
    const { server, dir, labels } = await serve();
    await post(server, "/api/label", { id: "a1", agreement: "agree" });
    await server.close();
    const again = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: labels, port: 0 });
    onTestFinished(() => again.close());
    expect(await nextId(again)).toBe("a2");
    const other = await startReviewWeb({ dirs: [dir], reviewer: "bo", labelsFile: labels, port: 0 });
    onTestFinished(() => other.close());
    expect(await nextId(other)).toBe("a1");
  });

  it("skips an answer for this session only", async () => {
    const { server, dir, labels } = await serve();
    expect((await post(server, "/api/skip", { id: "a1" })).status).toBe(200);
    expect(await nextId(server)).toBe("a2");
    expect(json(await call(server, "GET", "/api/progress"))).toEqual({ total: 3, labelled: 0, skipped: 1, remaining: 2 });
    expect(readLabelRecords(labels).labels).toEqual([]);
    await server.close();
    const again = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: labels, port: 0 });
    onTestFinished(() => again.close());
    expect(await nextId(again)).toBe("a1");
  });

  it("undo appends an undo record, takes the last label back and shows that answer again", async () => {
    const { server, labels } = await serve();
    await post(server, "/api/label", { id: "a1", agreement: "agree" });
    await post(server, "/api/label", { id: "a2", agreement: "agree" });
    const undone = await post(server, "/api/undo", {});
    expect(json(undone)).toMatchObject({ undone: "a2" });
    expect(await nextId(server)).toBe("a2");
    const records = readLabelRecords(labels).labels;
    expect(records.at(-1)).toEqual({ v: 1, id: "a2", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", kind: "flagged", undo: true });
    expect([...currentLabels(records).values()].map((l) => l.id)).toEqual(["a1"]);
    await post(server, "/api/undo", {});
    expect(await nextId(server)).toBe("a1");
    expect((await post(server, "/api/undo", {})).status).toBe(409);
  });

  it("merges replicas' spools, each answer once", async () => {
    const dir = tempDir();
    writeSpool(join(dir, "r1"), [spoolRecord("x1"), spoolRecord("shared")], "r1", 1_764_583_200_000);
    writeSpool(join(dir, "r2"), [spoolRecord("shared", { replica: "r2" }), spoolRecord("x2", { replica: "r2" })], "r2", 1_764_583_100_000);
    const server = await startReviewWeb({ dirs: [join(dir, "r1"), join(dir, "r2")], reviewer: "ana", labelsFile: join(dir, "labels.jsonl"), port: 0 });
    onTestFinished(() => server.close());
    expect(json(await call(server, "GET", "/api/progress"))).toMatchObject({ total: 3 });
  });

  it("refuses bad labels: an id not in the spools, a label that is not 0 or 1, a body that is not JSON", async () => {
    const { server } = await serve();
    expect((await post(server, "/api/label", { id: "nope", label: 1 })).status).toBe(404);
    expect((await post(server, "/api/label", { id: "a1", label: 2 })).status).toBe(400);
    expect((await post(server, "/api/label", { id: "a1" })).status).toBe(400);
    expect((await call(server, "POST", "/api/label", { body: "{", headers: {} })).status).toBe(400);
    expect((await call(server, "POST", "/api/label", { body: JSON.stringify({ id: "a1", label: 1 }), headers: { "content-type": "text/plain" } })).status).toBe(415);
  });

  it("caps request bodies at 64 KiB", async () => {
    const { server, labels } = await serve();
    const big = JSON.stringify({ id: "a1", label: 1, pad: "x".repeat(70 * 1024) });
    const reply = await call(server, "POST", "/api/label", { body: big });
    expect([413, 0]).toContain(reply.status);
    expect(readLabelRecords(labels).labels).toEqual([]);
  });
});

describe("groundwatch review --web: local by default", () => {
  it("refuses a non-loopback bind without a token, and a short token, as configuration errors", async () => {
    const dir = tempDir();
    await expect(startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: join(dir, "l.jsonl"), host: "0.0.0.0", port: 0 })).rejects.toMatchObject({ name: "ConfigError", field: "--host" });
    await expect(startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: join(dir, "l.jsonl"), host: "0.0.0.0", port: 0, token: "short" })).rejects.toMatchObject({ name: "ConfigError", field: "--token" });
    const run = await runCli(["review", "--web", "--dir", dir, "--reviewer", "ana", "--host", "0.0.0.0", "--port", "0"], { env: { PATH: process.env.PATH } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--host");
    expect(run.stderr).toContain("--token");
  });

  it("without a token, answers only requests addressed to a loopback name (DNS rebinding)", async () => {
    const { server } = await serve();
    expect((await call(server, "GET", "/api/next", { headers: { host: "evil.example:4320" } })).status).toBe(421);
    expect((await call(server, "GET", "/", { headers: { host: "evil.example" } })).status).toBe(421);
    expect((await call(server, "GET", "/api/next", { headers: { host: "localhost:4320" } })).status).toBe(200);
  });

  it("bound to loopback with a token, still answers only requests addressed to a loopback name (redteam-4 L8)", async () => {
    const { server } = await serve({ token: TOKEN });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await call(server, "GET", "/api/next", { headers: { host: "evil.example:4320", ...bearer } })).status).toBe(421);
    expect((await call(server, "GET", "/api/next", { headers: { host: "localhost:4320", ...bearer } })).status).toBe(200);
  });

  it("refuses cross-origin and cross-site POSTs", async () => {
    const { server, labels } = await serve();
    const host = new URL(server.url).host;
    expect((await post(server, "/api/label", { id: "a1", label: 1 }, { origin: "http://evil.example" })).status).toBe(403);
    expect((await post(server, "/api/label", { id: "a1", label: 1 }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(readLabelRecords(labels).labels).toEqual([]);
    expect((await post(server, "/api/label", { id: "a1", label: 1 }, { origin: `http://${host}`, "sec-fetch-site": "same-origin" })).status).toBe(200);
  });

  it("with a token, checks it on every request: bearer header, or the cookie of a session opened from ?token= once", async () => {
    const { server } = await serve({ token: TOKEN });
    expect((await call(server, "GET", "/api/next")).status).toBe(401);
    expect((await call(server, "GET", "/")).status).toBe(401);
    expect((await call(server, "GET", "/api/progress", { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status).toBe(401);
    expect((await call(server, "GET", "/?token=wrong-token-wrong-token")).status).toBe(401);
    expect((await post(server, "/api/label", { id: "a1", label: 1 })).status).toBe(401);
    expect((await call(server, "GET", "/api/next", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const opened = await call(server, "GET", `/?token=${encodeURIComponent(TOKEN)}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe("/");
    const cookie = sessionCookie(opened);
    expect(String(opened.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
    expect((await call(server, "GET", "/", { headers: { cookie } })).status).toBe(200);
    expect(await nextId(server, { cookie })).toBe("a1");
    expect((await post(server, "/api/label", { id: "a1", label: 1 }, { cookie })).status).toBe(200);
  });

  it("puts a random session id in the cookie, never the token: every port of the host name receives it", async () => {
    const { server } = await serve({ token: TOKEN });
    const first = await call(server, "GET", `/?token=${encodeURIComponent(TOKEN)}`);
    const second = await call(server, "GET", `/?token=${encodeURIComponent(TOKEN)}`);
    const header = String(first.headers["set-cookie"]);
    expect(header).not.toContain(TOKEN);
    expect(header).not.toContain(encodeURIComponent(TOKEN));
    const [name, id] = sessionCookie(first).split("=");
    expect(name).toBe("groundwatch_review_session");
    // 32 random bytes, base64url: 256 bits, and a new one for every session.
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessionCookie(second)).not.toBe(sessionCookie(first));
    expect(await nextId(server, { cookie: sessionCookie(second) })).toBe("a1");
  });

  it("does not take the token as a cookie, nor a session id it did not open", async () => {
    const { server } = await serve({ token: TOKEN });
    for (const cookie of [`groundwatch_review=${TOKEN}`, `groundwatch_review_session=${TOKEN}`, `groundwatch_review_session=${encodeURIComponent(TOKEN)}`, `groundwatch_review_session=${"A".repeat(43)}`]) {
      expect((await call(server, "GET", "/api/next", { headers: { cookie } })).status, cookie).toBe(401);
      expect((await post(server, "/api/label", { id: "a1", label: 1 }, { cookie })).status, cookie).toBe(401);
    }
  });

  it("ends a session 12 hours after it was opened, and keeps at most 64 (the oldest goes first)", async () => {
    let nowMs = Date.parse("2026-12-01T12:00:00.000Z");
    const { server } = await serve({ token: TOKEN, now: () => new Date(nowMs) });
    const open = async (): Promise<string> => sessionCookie(await call(server, "GET", `/?token=${encodeURIComponent(TOKEN)}`));
    const status = async (cookie: string): Promise<number> => (await call(server, "GET", "/api/progress", { headers: { cookie } })).status;
    const early = await open();
    expect(await status(early)).toBe(200);
    expect(String((await call(server, "GET", `/?token=${encodeURIComponent(TOKEN)}`)).headers["set-cookie"])).toContain("Max-Age=43200");
    nowMs += 12 * 3600_000 - 1;
    expect(await status(early)).toBe(200);
    nowMs += 1;
    expect(await status(early)).toBe(401);

    const sessions: string[] = [];
    for (let i = 0; i < 65; i++) sessions.push(await open());
    expect(await status(sessions[0] ?? "")).toBe(401);
    expect(await status(sessions[1] ?? "")).toBe(200);
    expect(await status(sessions[64] ?? "")).toBe(200);
  });
});

describe("groundwatch review --web: the page", () => {
  it("is one self-contained page under a strict CSP: a nonce'd script, no inline handlers, no external assets, no spooled text", async () => {
    const { server } = await serve();
    const page = await call(server, "GET", "/");
    expect(page.status).toBe(200);
    const csp = String(page.headers["content-security-policy"]);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.body).toContain(`<script nonce="${nonce ?? ""}">`);
    expect(page.body).not.toMatch(/\son[a-z]+=/i);
    expect(page.body).not.toMatch(/(src|href)=/i);
    expect(page.body).not.toContain("innerHTML");
    // The answers come through the API as JSON, never in the page's markup.
    expect(page.body).not.toContain("returned within 90 days");
    const second = await call(server, "GET", "/");
    expect(String(second.headers["content-security-policy"])).not.toContain(nonce ?? "");
  });

  it("sends each answer as the terminal view shows it: a null claim or document is dropped, not sent for the page to trip on", async () => {
    const dir = tempDir();
    const good = spoolRecord("x1");
    // A spool line whose outline is right but whose claims and documents hold nulls (a crafted or damaged record).
    const crafted = { ...good, claims: [null, good.claims[0], 5], documents: [null, good.documents[0]], question: null } as unknown as SpoolRecord;
    writeSpool(dir, [crafted]);
    const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: join(dir, "labels.jsonl"), port: 0, now: NOW });
    onTestFinished(() => server.close());
    const answer = json(await call(server, "GET", "/api/next")).answer as { id: string; claims: unknown[]; documents: unknown[]; question?: unknown };
    expect(answer.id).toBe("x1");
    expect(answer.claims).toEqual([good.claims[0]]);
    expect(answer.documents).toEqual([good.documents[0]]);
    expect(answer.question).toBeUndefined();
    // Labelling it claim by claim works on what was sent.
    expect((await post(server, "/api/label", { id: "x1", agreement: "agree", claims: [{ index: 0, label: 0 }] })).status).toBe(200);
    expect(readLabelRecords(join(dir, "labels.jsonl")).labels[0]?.claims).toEqual([{ index: 0, label: 0 }]);
  });

  it("keeps a hostile answer as JSON text in the API", async () => {
    const dir = tempDir();
    const hostile = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';
    writeSpool(dir, [spoolRecord("h1", { answer: hostile, question: hostile, claims: [] })]);
    const server = await startReviewWeb({ dirs: [dir], reviewer: "ana", labelsFile: join(dir, "labels.jsonl"), port: 0 });
    onTestFinished(() => server.close());
    const reply = await call(server, "GET", "/api/next");
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect((json(reply).answer as { answer: string }).answer).toBe(hostile);
  });
});
