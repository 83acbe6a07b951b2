// The room server of `bench:agent --only script`: a real Colyseus server (@colyseus/core over its ws transport),
// one "arena" room per `room` option (filterBy), at most --room-size players, relaying each "move" to the room's
// other players as "moved". Prints "colyseus listening on PORT" once it accepts; Colyseus itself shuts down on SIGTERM.
//
//   node colyseus-server.mjs [--port 0] [--room-size 16]
import { createServer } from "node:http";
import { Room, Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { argReader } from "../bare/bare-common.mjs";

const arg = argReader();
const roomSize = Number(arg("room-size", "16"));

class Arena extends Room {
  maxClients = roomSize;
  onCreate() {
    this.onMessage("move", (client, move) => this.broadcast("moved", move, { except: client }));
  }
}

const http = createServer();
const server = new Server({ greet: false, transport: new WebSocketTransport({ server: http }) });
server.define("arena", Arena).filterBy(["room"]);
await server.listen(Number(arg("port", "0")));
console.log(`colyseus listening on ${http.address().port}`);
