import { io } from "socket.io-client";

// A Socket.IO game client: connects (timed), joins its room, waits until the room is full, then sends its position
// every 100 ms stamped with its send time; each "moved" from a room-mate is a broadcast receipt.
const nowUs = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

export default async function (ctx) {
  const socket = io(String(ctx.parameters.url), { transports: ["websocket"], reconnection: false, forceNew: true });
  ctx.signal.addEventListener("abort", () => socket.close(), { once: true });
  await ctx.measure(
    "connect-ms",
    new Promise((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("connect_error", reject);
    }),
  );
  const full = new Promise((resolve) => socket.once("full", resolve));
  const members = await new Promise((resolve) =>
    socket.emit("join", { room: ctx.room, size: Number(ctx.parameters.roomSize) }, resolve),
  );
  if (members < Number(ctx.parameters.roomSize)) await full;
  socket.on("moved", (move) => ctx.broadcast(move.client, move.seq, move.sentAtUs));
  let seq = 0;
  ctx.every(100, () => {
    socket.emit("move", {
      room: ctx.room,
      client: ctx.client,
      seq: seq++,
      sentAtUs: nowUs(),
      x: Math.cos(seq),
      y: Math.sin(seq),
    });
    ctx.count("updates");
  });
}
