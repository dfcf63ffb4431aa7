/**
 * What a huge reply from a chat endpoint (the judge's or the collector resampler's) costs the
 * process: a local server answers one /chat/completions request with an answer of --mb MiB, sent
 * with a Content-Length and then streamed without one, and the client's resident memory is
 * polled during the call. With the bounded reader the call is refused at maxReplyBytes (4 MiB by
 * default) and memory stays flat; the same script run against a client that reads the body
 * whole shows the growth.
 *
 *   npx tsx bench/remote-body.ts [--mb 50]
 */
import { fork } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createChatClient } from "../src/nli/judge/chat.ts";

const mbFlag = process.argv.indexOf("--mb");
const mb = mbFlag >= 0 ? Number(process.argv[mbFlag + 1]) : 50;

if (process.argv.includes("--serve")) {
  // The server runs in its own process, so its copy of the body is not counted as the client's.
  const body = Buffer.from(JSON.stringify({ choices: [{ message: { content: "x".repeat(mb * 1024 * 1024) } }] }));
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.includes("chunked")) {
        res.writeHead(200, { "content-type": "application/json" });
        for (let i = 0; i < body.length; i += 65_536) res.write(body.subarray(i, i + 65_536));
        res.end();
      } else res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) }).end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => process.send?.((server.address() as AddressInfo).port));
} else {
  const child = fork(import.meta.filename, ["--serve", "--mb", String(mb)], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(Number(m))));
  for (const mode of ["declared", "chunked"]) {
    const client = createChatClient({ label: "resampler", baseUrl: `http://127.0.0.1:${port}/${mode}`, attempts: 1 });
    const before = process.memoryUsage().rss;
    let peak = before;
    const poll = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    let outcome = "read whole";
    try {
      await client.complete({ model: "m", messages: [] });
    } catch (error) {
      outcome = `${(error as Error).name}: ${(error as Error).message}`;
    }
    clearInterval(poll);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(`${mb} MiB reply, ${mode} length: RSS ${(before / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MiB (+${((peak - before) / 2 ** 20).toFixed(0)}); ${outcome}`);
  }
  child.kill();
}
