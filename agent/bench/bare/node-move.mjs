// A bare Node.js movement-sync client, the floor bench:agent compares the engine's S4 against: `net` sockets, no
// metrics, no histograms. Plain JavaScript run by plain `node`. Same load as S4 against the reference target: N
// WebSocket clients (the lean client's framing: FIN text frames, zero mask key) in rooms of --room-size; each sends
// {"type":"join","room":R,"client":C}, and once the target's "joined" came, {"type":"move",...} updates at --hz on
// a 1 ms grid (one timer for all clients). It counts the room's broadcasts it receives (the other members' moves)
// and prints one JSON line: updates sent/s, broadcasts received/s and CPU µs per received broadcast over the
// measured window (after a warm-up), from process.cpuUsage().
//
//   node node-move.mjs --port N [--path /ws] [--clients 200] [--room-size 20] [--hz 20] [--seconds 10] [--warmup 2]
import { connect } from "node:net";
import { argReader, loadArgs, measureWindow, websocketUpgrade, whenAllReady } from "./bare-common.mjs";

const arg = argReader();
const { host, port, path, clients, seconds, warmup } = loadArgs(arg, { clients: "200", seconds: "10" });
const roomSize = Number(arg("room-size", "20"));
const hz = Number(arg("hz", "20"));
if (!Number.isInteger(port) || port <= 0) {
  console.error(
    "usage: node node-move.mjs --port N [--path /ws] [--clients 200] [--room-size 20] [--hz 20] [--seconds 10] [--warmup 2]",
  );
  process.exit(2);
}
const intervalMs = Math.round(1000 / hz);

/** A client's text frame: FIN + text, masked with a zero key (so the payload goes as it is). */
function frame(text) {
  const payload = Buffer.from(text);
  const head =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff, 0, 0, 0, 0]);
  return Buffer.concat([head, payload]);
}
const MOVE = Buffer.from('{"type":"move"');

let received = 0;
let sent = 0;
let open = 0;
let joined = 0;
let stopping = false;
const players = [];

function startClient(index) {
  const room = Math.floor(index / roomSize);
  const socket = connect({ host, port, noDelay: true });
  const player = { socket, index, room, seq: 0, joined: false };
  players.push(player);
  let upgraded = false;
  const upgrade = websocketUpgrade(host, port, path);
  // Bytes of a frame split across reads.
  let pending = Buffer.alloc(0);
  socket.on("connect", () => {
    socket.write(upgrade.request);
  });
  socket.on("data", (chunk) => {
    if (!upgraded) {
      if (!upgrade.done(chunk)) return;
      upgraded = true;
      open += 1;
      socket.write(frame(`{"type":"join","room":${room},"client":${index}}`));
      return;
    }
    const data = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let at = 0;
    // Bounded by the bytes read: each pass takes one whole frame (the target's frames are unmasked).
    while (data.length - at >= 2) {
      let length = data[at + 1] & 0x7f;
      let start = at + 2;
      if (length === 126) {
        if (data.length - at < 4) break;
        length = data.readUInt16BE(at + 2);
        start = at + 4;
      }
      if (data.length < start + length) break;
      if (!player.joined) {
        player.joined = true;
        joined += 1;
      } else if (data.compare(MOVE, 0, MOVE.length, start, start + MOVE.length) === 0) received += 1;
      at = start + length;
    }
    pending = at < data.length ? Buffer.from(data.subarray(at)) : Buffer.alloc(0);
  });
  socket.on("error", (error) => {
    if (!stopping) {
      console.error(`connection failed: ${error.message}`);
      process.exit(1);
    }
  });
}

for (let i = 0; i < clients; i += 1) startClient(i);

// One timer for every client: client i sends on the 1 ms grid at phase i mod intervalMs.
let tick = Math.floor(performance.now());
function sendDue() {
  const now = Math.floor(performance.now());
  for (; tick <= now; tick += 1) {
    for (let i = tick % intervalMs; i < players.length; i += intervalMs) {
      const player = players[i];
      if (!player.joined) continue;
      const seq = player.seq++;
      const t = Math.round((performance.timeOrigin + performance.now()) * 1000);
      player.socket.write(
        frame(
          `{"type":"move","room":${player.room},"client":${player.index},"seq":${seq},"t":${t},"x":${Math.cos(seq / 10) * 100},"y":${Math.sin(seq / 10) * 100}}`,
        ),
      );
      sent += 1;
    }
  }
  if (!stopping) setTimeout(sendDue, 1);
}

whenAllReady(
  () => joined,
  clients,
  20_000,
  () => `only ${joined} of ${clients} clients joined (${open} open)`,
  () => {
    sendDue();
    measure();
  },
);

function measure() {
  measureWindow(
    warmup,
    seconds,
    () => ({ received, sent }),
    (counted, wallSec, cpuUs) => {
      stopping = true;
      console.log(
        JSON.stringify({
          client: "bare-node",
          clients,
          seconds: wallSec,
          sentPerSec: counted.sent / wallSec,
          receivedPerSec: counted.received / wallSec,
          cpuPercent: (100 * cpuUs) / 1e6 / wallSec,
          usPerBroadcast: cpuUs / Math.max(1, counted.received),
        }),
      );
      for (const player of players) player.socket.destroy();
    },
  );
}
