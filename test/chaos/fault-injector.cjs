/* global require, process */
// Preloaded with `node --require` into the chaos SDK host, so it also runs at the start of every
// worker thread (Node runs --require modules in workers). It lets a test kill the scoring workers
// from outside, as an out-of-memory abort or a native crash would, without any hook in groundwatch:
// - a "exit" message on the BroadcastChannel "groundwatch-chaos" ends every worker thread at once;
// - while the file named by GW_CHAOS_BLOCK_START exists, new worker threads exit as they start
//   (a replacement that cannot start).
// - SIGUSR2 to the process does the same as the "exit" message (for hosts the test cannot call into,
//   such as `groundwatch serve`).
const { isMainThread, BroadcastChannel } = require("node:worker_threads");
const { existsSync } = require("node:fs");

if (isMainThread) {
  process.on("SIGUSR2", () => {
    const channel = new BroadcastChannel("groundwatch-chaos");
    channel.postMessage("exit");
    channel.close();
  });
}

if (!isMainThread) {
  const marker = process.env.GW_CHAOS_BLOCK_START;
  if (marker && existsSync(marker)) process.exit(7);
  const channel = new BroadcastChannel("groundwatch-chaos");
  channel.unref();
  channel.onmessage = (event) => {
    if (event.data === "exit") process.exit(9);
  };
}
