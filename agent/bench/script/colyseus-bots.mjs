// The bots of `bench:agent --only script`, written as a team would with its game's own SDK (@colyseus/sdk): each
// joins its room (ctx.room, rooms of parameters.roomSize), then sends its position every 1000 / parameters.hz ms
// stamped with its send time; each "moved" from a room-mate is a broadcast receipt. The same module runs as a Throng
// script (scenario.kind: script) and under plain-bots.mjs in one plain Node process.
import { Client } from "@colyseus/sdk";

const nowUs = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

export default async function (ctx) {
  const client = new Client(String(ctx.parameters.url));
  const room = await ctx.measure("join-ms", () => client.joinOrCreate("arena", { room: ctx.room }));
  if (ctx.signal.aborted) return void room.leave();
  ctx.signal.addEventListener("abort", () => void room.leave(), { once: true });
  room.onMessage("moved", (move) => ctx.broadcast(move.c, move.s, move.t));
  let seq = 0;
  ctx.every(1000 / Number(ctx.parameters.hz), () => {
    seq += 1;
    room.send("move", { c: ctx.client, s: seq, t: nowUs(), x: Math.cos(seq), y: Math.sin(seq) });
  });
}
