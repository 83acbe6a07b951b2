// A bare Node.js echo-flood client, the floor bench:agent compares the engine's S2 against: `net` sockets, no
// metrics, no histograms, no timestamps. Plain JavaScript run by plain `node` (no tsx loader, no bundle) so that
// nothing but the sockets costs CPU. Same load as S2: N connections, 8-byte messages, one in flight per
// connection, one message per write, over TCP with a 2-byte big-endian length prefix or over WebSocket with the
// lean client's framing (binary, FIN, zero mask key). Prints one JSON line: echoes/s and CPU µs per echo over the
// measured window (after a warm-up), from process.cpuUsage().
//
//   node node-echo.mjs --mode tcp|ws --port N [--path /ws] [--clients 100] [--seconds 20] [--warmup 2]
import { connect } from "node:net";
import { argReader, loadArgs, measureWindow, websocketUpgrade, whenAllReady } from "./bare-common.mjs";

const arg = argReader();
const mode = arg("mode", "tcp");
const { host, port, path, clients, seconds, warmup } = loadArgs(arg, { clients: "100", seconds: "20" });
if (!["tcp", "ws"].includes(mode) || !Number.isInteger(port) || port <= 0) {
  console.error(
    "usage: node node-echo.mjs --mode tcp|ws --port N [--path /ws] [--clients 100] [--seconds 20] [--warmup 2]",
  );
  process.exit(2);
}

const PAYLOAD = 8;
// The message as it goes on the wire: one buffer per message, built once (what a bare client would do).
const message =
  mode === "tcp"
    ? Buffer.concat([Buffer.from([0, PAYLOAD]), Buffer.alloc(PAYLOAD, 0x65)])
    : Buffer.concat([Buffer.from([0x82, 0x80 | PAYLOAD, 0, 0, 0, 0]), Buffer.alloc(PAYLOAD, 0x65)]);
// What comes back: the same payload with a 2-byte header (length prefix, or an unmasked FIN binary frame).
const ECHO_BYTES = 2 + PAYLOAD;

let echoes = 0;
let open = 0;
let stopping = false;
const sockets = [];

function startClient() {
  const socket = connect({ host, port, noDelay: true });
  sockets.push(socket);
  let upgraded = mode === "tcp";
  const upgrade = websocketUpgrade(host, port, path);
  // Bytes of the current echo seen so far; echoes are fixed-size, so counting bytes frames them.
  let pending = 0;
  socket.on("connect", () => {
    if (mode === "tcp") return begin();
    socket.write(upgrade.request);
  });
  socket.on("data", (chunk) => {
    if (!upgraded) {
      if (!upgrade.done(chunk)) return;
      upgraded = true;
      return begin();
    }
    pending += chunk.length;
    // Bounded by the bytes read: each pass takes one whole echo.
    while (pending >= ECHO_BYTES) {
      pending -= ECHO_BYTES;
      echoes += 1;
      if (!stopping) socket.write(message);
    }
  });
  socket.on("error", (error) => {
    if (!stopping) {
      console.error(`connection failed: ${error.message}`);
      process.exit(1);
    }
  });
  function begin() {
    open += 1;
    socket.write(message);
  }
}

for (let i = 0; i < clients; i += 1) startClient();

whenAllReady(
  () => open,
  clients,
  10_000,
  () => `only ${open} of ${clients} connections opened`,
  measure,
);

function measure() {
  measureWindow(
    warmup,
    seconds,
    () => ({ echoes }),
    ({ echoes: done }, wallSec, cpuUs, cpu) => {
      stopping = true;
      console.log(
        JSON.stringify({
          client: "bare-node",
          mode,
          clients,
          seconds: wallSec,
          echoesPerSec: done / wallSec,
          cpuPercent: (100 * cpuUs) / 1e6 / wallSec,
          usPerEcho: cpuUs / Math.max(1, done),
          userUsPerEcho: cpu.user / Math.max(1, done),
          systemUsPerEcho: cpu.system / Math.max(1, done),
        }),
      );
      for (const socket of sockets) socket.destroy();
    },
  );
}
