/* global console, process, setInterval */
// Connections that never read, for the chaos suite (issue 35, H1): opens COUNT connections to
// 127.0.0.1:PORT, spread over the local ADDRESSES (comma-separated loopback addresses, e.g.
// 127.0.0.2,127.0.0.3), each sending a request whose headers never end, and never reads or closes
// them. Prints "held N failed M" once every connection has connected or failed, then waits to be killed.
//   node test/chaos/hold-connections.mjs PORT COUNT ADDRESSES
import { connect } from "node:net";

const [port, count, addresses] = [Number(process.argv[2]), Number(process.argv[3]), (process.argv[4] ?? "127.0.0.1").split(",")];
const UNFINISHED = "GET /healthz HTTP/1.1\r\nHo";
let held = 0;
let failed = 0;
const sockets = [];
for (let i = 0; i < count; i++) {
  const socket = connect({ port, host: "127.0.0.1", localAddress: addresses[i % addresses.length] });
  let settled = false;
  const settle = (ok) => {
    if (settled) return;
    settled = true;
    if (ok) held++;
    else failed++;
    if (held + failed === count) console.log(`held ${held} failed ${failed}`);
  };
  socket.once("connect", () => {
    socket.write(UNFINISHED);
    settle(true);
  });
  socket.on("error", () => settle(false));
  sockets.push(socket);
}
// Nothing is read: the sockets stay referenced and open until this process is killed.
setInterval(() => sockets.length, 60_000);
