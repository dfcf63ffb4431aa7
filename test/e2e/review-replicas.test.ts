/**
 * Review without a shared file system: three `groundwatch serve` replicas, each spooling to its own
 * directory, peers of each other (--peers), fed OTLP traces as the gateway's loadbalancing exporter
 * routes them (trace-id hash ring). `groundwatch review --url` at one replica, driven in tmux by
 * keys: every spooled answer of the three is shown once, and each label lands in the labels file of
 * the replica that holds the answer. `review export --url` and `evidence --url` then give what the
 * shared-directory path (--dir / --review-dir of every replica's spool) gives on the same records.
 */
import { createHash } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { tracesJson } from "../collector/otlp-json.ts";
import { HashRing } from "../deploy/loadbalancing.ts";
import { labelsPath, readLabelRecords, readSpools } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { RETURNS_DOC } from "../helpers/collector.ts";
import { closedPort } from "../helpers/net.ts";
import type { Serve } from "../helpers/serve.ts";
import { metric, post, startServe } from "../helpers/serve.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HAVE_TMUX = spawnSync("tmux", ["-V"]).status === 0;
const TOKEN = "review-replicas-token-0123456789abcdef";
const REPLICAS = ["r1", "r2", "r3"] as const;
const QUESTION = "How long do I have to return an item?";
const GOOD = "You can return unopened items within 30 days of delivery.";
const BAD = "You can return unopened items within 90 days of delivery.";
/** Traces sent: each replica gets some (the ring decides), flagged and grounded answers alike. */
const TRACES = 12;
const POLL = { timeout: 30_000, interval: 100 };
const auth = { authorization: `Bearer ${TOKEN}` };

const traceId = (i: number): string => createHash("sha256").update(`review-replicas-${i}`).digest("hex").slice(0, 32);
const trace = (id: string, answer: string): string =>
  JSON.stringify(
    tracesJson(id, [
      { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
      { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": RETURNS_DOC } },
      { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": answer } },
    ]),
  );

/** A tmux server of its own running `command` in a 160×50 pane, killed when the test ends. */
function terminal(command: string): { keys: (...keys: string[]) => void; screen: () => string } {
  const socket = `groundwatch-review-replicas-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  tmux("new-session", "-d", "-s", "review", "-x", "160", "-y", "50", command, ";", "set-option", "-w", "remain-on-exit", "on");
  onTestFinished(() => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
  });
  return { keys: (...keys) => void tmux("send-keys", "-t", "review", ...keys), screen: () => tmux("capture-pane", "-p", "-t", "review") };
}

/** Three replicas on ports chosen first, each listing all three as its peers (it recognises itself). */
async function deployment(): Promise<Array<{ name: string; dir: string; serve: Serve }>> {
  const ports = [await closedPort(), await closedPort(), await closedPort()];
  const peers = ports.map((p) => `http://127.0.0.1:${p}`).join(",");
  const root = tempDir();
  return Promise.all(
    REPLICAS.map(async (name, i) => {
      const dir = join(root, name);
      const env = { GROUNDWATCH_CAPTURE_CONTENT: "1", GROUNDWATCH_REVIEW_REPLICA: name, GROUNDWATCH_TOKEN: TOKEN };
      const started = startServe(["--port", String(ports[i]), "--sample-rate", "1", "--review-dir", dir, "--review-sample-rate", "1", "--peers", peers], env);
      const serve = await started.started;
      onTestFinished(async () => {
        serve.signal("SIGTERM");
        await serve.exited;
      });
      return { name, dir, serve };
    }),
  );
}

describe.skipIf(!HAVE_TMUX)("review over three replicas' own spools (--url; tmux)", () => {
  it("shows every spooled answer once, writes each label with the replica holding it, and exports and reports what the shared-directory path does", async () => {
    const replicas = await deployment();
    const ring = new HashRing([...REPLICAS]);
    const byName = new Map(replicas.map((r) => [r.name, r]));
    const sent = new Map<string, number>();
    for (let i = 0; i < TRACES; i++) {
      const id = traceId(i);
      const to = byName.get(ring.endpointForTrace(id)) ?? replicas[0];
      expect(await post(`${to?.serve.url}/v1/traces`, trace(id, i % 3 === 0 ? GOOD : BAD), { "content-type": "application/json", ...auth })).toBe(200);
      sent.set(to?.name ?? "", (sent.get(to?.name ?? "") ?? 0) + 1);
    }
    expect(sent.size, "the ring spreads the traces over the three replicas").toBe(3);
    for (const r of replicas) {
      await expect.poll(async () => metric(await (await fetch(`${r.serve.url}/metrics`, { headers: auth })).text(), "groundwatch_observations_scored_total"), POLL).toBe(sent.get(r.name));
    }
    const spooled = replicas.map((r) => readSpools([r.dir]).records);
    const ids = spooled.flat().map((r) => r.id);
    expect(ids).toHaveLength(TRACES);

    // The reviewer at one replica's address: every answer of the three, once, by keys.
    const command = `cd ${JSON.stringify(ROOT)} && GROUNDWATCH_TOKEN=${TOKEN} ${JSON.stringify(process.execPath)} bin/groundwatch.js review --url ${replicas[1]?.serve.url ?? ""} --reviewer alice`;
    const t = terminal(command);
    const shown: string[] = [];
    for (let k = 1; k <= TRACES; k++) {
      await expect.poll(t.screen, POLL).toMatch(new RegExp(`\\[${k}/${TRACES}\\] \\S+`));
      const m = new RegExp(`\\[${k}/${TRACES}\\] (\\S+)`).exec(t.screen());
      shown.push(m?.[1] ?? "");
      t.keys(k % 2 === 0 ? "d" : "a");
    }
    await expect.poll(t.screen, POLL).toContain(`all answers shown: ${TRACES} labelled`);
    t.keys("q");
    await expect.poll(t.screen, POLL).toContain(`labelled ${TRACES}, 0 left`);
    expect([...shown].sort()).toEqual([...ids].sort());
    // Each label in the labels file of the replica whose spool holds the answer.
    for (const [i, r] of replicas.entries()) {
      const labelled = readLabelRecords(labelsPath(r.dir)).labels.map((l) => l.id);
      expect([...labelled].sort(), r.name).toEqual((spooled[i] ?? []).map((s) => s.id).sort());
    }

    // review export and evidence: --url equals every replica's directory (r1, r2, r3: the order --url reads them in).
    const dirFlags = (flag: string): string[] => replicas.flatMap((r) => [flag, r.dir]);
    const [viaDirs, viaUrl] = [join(tempDir(), "dirs.jsonl"), join(tempDir(), "url.jsonl")];
    expect((await runCli(["review", "export", ...dirFlags("--dir"), "--out", viaDirs])).code).toBe(0);
    const exported = await runCli(["review", "export", "--url", replicas[2]?.serve.url ?? "", "--out", viaUrl], { env: { GROUNDWATCH_TOKEN: TOKEN } });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe("");
    expect(readFileSync(viaUrl, "utf8")).toBe(readFileSync(viaDirs, "utf8"));
    expect(readFileSync(viaUrl, "utf8").trim().split("\n")).toHaveLength(TRACES);

    const tables = (file: string): string => [...readFileSync(file, "utf8").matchAll(/<table class="review(?:-trend)?">[\s\S]*?<\/table>/g)].map((m) => m[0]).join("\n");
    const [htmlDirs, htmlUrl] = [join(tempDir(), "dirs.html"), join(tempDir(), "url.html")];
    const period = ["--since", "1d"];
    expect((await runCli(["evidence", ...dirFlags("--review-dir"), ...period, "--out", htmlDirs])).code).toBe(0);
    const evidence = await runCli(["evidence", "--url", replicas[0]?.serve.url ?? "", "--token", TOKEN, ...period, "--out", htmlUrl]);
    expect(evidence.code, evidence.stderr).toBe(0);
    expect(tables(htmlUrl)).toContain("precision of the flags");
    expect(tables(htmlUrl)).toBe(tables(htmlDirs));

    // One replica stopped: the export says which did not answer, and covers the other two.
    replicas[0]?.serve.signal("SIGTERM");
    await replicas[0]?.serve.exited;
    const partial = await runCli(["review", "export", "--url", replicas[1]?.serve.url ?? "", "--out", join(tempDir(), "partial.jsonl")], { env: { GROUNDWATCH_TOKEN: TOKEN } });
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stderr).toMatch(/partial: replica \S+ \(unreachable\) did not answer/);
    expect(partial.stdout).toContain(`wrote ${TRACES - (spooled[0]?.length ?? 0)} rows`);
  });
});
