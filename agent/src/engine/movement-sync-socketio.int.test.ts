import { createServer, type Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import { runPlan, total, totalsByKind } from "../testing/assignment";
import { expectTimedBroadcasts } from "../testing/broadcast-reach.test-support";

// Movement-sync against a Socket.IO v4 server from npm (docs/protocols.md, "Movement-sync through any server"),
// driven over a raw WebSocket by declarative steps that speak Engine.IO and Socket.IO packets as text: the server's
// open packet ("0{...}"), the namespace connect ("40" → "40{...}"), a join event with an acknowledgement
// ("421[...]" → "431[...]"), move events, and the namespace disconnect ("41") as the leave step.
//
// Engine.IO's heartbeat: the server sends "2" every pingInterval and drops a client that has not answered "3" within
// pingTimeout. The plan's `respond` rule answers each "2" with "3" (docs/protocols.md, "Answering the server's
// keep-alives"). The server keeps its own heartbeat logic, with the intervals shortened (defaults 25 s and 20 s) so
// that it pings several times within the test's 2 s.
const PING_INTERVAL_MS = 300;
const PING_TIMEOUT_MS = 200;

let http: HttpServer;
let io: Server;
let port = 0;
const counts = { joins: 0, moves: 0, leaves: 0, pingTimeouts: 0 };

beforeAll(async () => {
  http = createServer();
  io = new Server(http, { transports: ["websocket"], pingInterval: PING_INTERVAL_MS, pingTimeout: PING_TIMEOUT_MS });
  io.on("connection", (socket) => {
    socket.on("join", (room: number, ack?: (answer: string) => void) => {
      counts.joins += 1;
      socket.data.room = String(room);
      void socket.join(String(room));
      ack?.("joined");
    });
    socket.on("move", (payload: unknown) => {
      counts.moves += 1;
      if (typeof socket.data.room === "string") socket.to(socket.data.room).emit("moved", payload);
    });
    socket.on("disconnect", (reason) => {
      if (reason === "client namespace disconnect") counts.leaves += 1;
      if (reason === "ping timeout") counts.pingTimeouts += 1;
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  port = (http.address() as { port: number }).port;
});

afterAll(async () => {
  await io.close();
});

const MOVED = String.raw`"client":(\d+),"seq":(\d+),"sentAtUs":(\d+)`;

const ANSWER_PINGS = [{ when: { regex: "^2$" }, send: { body: "3" } }];

const plan = ({ answerPings = true } = {}): Omit<PlanSpec, "name"> => ({
  target: { protocol: "websocket", url: `ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket` },
  scenario: {
    kind: "movement-sync",
    roomSize: 5,
    updateHz: 10,
    session: [
      { kind: "expect", reply: { regex: String.raw`^0\{` } }, // Engine.IO open
      { kind: "send", message: { body: "40" } }, // Socket.IO connect to "/"
      { kind: "expect", reply: { regex: String.raw`^40\{` }, failWhen: { regex: "^44" } }, // connect ack, or connect error
      { kind: "send", message: { body: '421["join",{{room}}]' } }, // event "join" with ack id 1
      { kind: "expect", reply: { regex: String.raw`^431\[` } },
    ],
    update: { body: '42["move",{"client":{{client}},"seq":{{seq}},"sentAtUs":{{sentAtUs}},"x":{{x}}}]' },
    broadcast: {
      filter: { regex: String.raw`^42\["moved"` },
      sender: { regex: MOVED },
      seq: { regex: MOVED, group: 2 },
      sentAtUs: { regex: MOVED, group: 3 },
    },
    leave: [{ kind: "send", message: { body: "41" } }],
    ...(answerPings ? { respond: ANSWER_PINGS } : {}),
  },
  load: { clients: 10, durationSec: 2, rampUpSec: 0 },
});

describe("movement-sync through a Socket.IO v4 server, Engine.IO packets as text steps", () => {
  it("answering each Engine.IO ping, no player is dropped: each moved event the room relays is a timed broadcast, reach ≈ 1, no errors, a namespace disconnect per client", async () => {
    Object.assign(counts, { joins: 0, moves: 0, leaves: 0, pingTimeouts: 0 });
    const snapshots = await runPlan(plan());
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({});
    // Every Engine.IO ping was answered: the server dropped no one.
    expect(totalsByKind(snapshots, "closesByCause").server).toBeUndefined();
    expect(counts.pingTimeouts).toBe(0);
    expect(total(snapshots, "connectionsFailed")).toBe(0);
    expect(counts.joins).toBe(10);
    expectTimedBroadcasts(snapshots, 0.95, "Socket.IO room server");
    // The leave step's "41" reached the server before each connection closed.
    await vi.waitFor(() => expect(counts.leaves).toBe(10));
  });

  it("without a respond rule the server's pings go unanswered and it drops every player", async () => {
    Object.assign(counts, { joins: 0, moves: 0, leaves: 0, pingTimeouts: 0 });
    const snapshots = await runPlan(plan({ answerPings: false }));
    expect(counts.joins).toBe(10);
    expect(totalsByKind(snapshots, "closesByCause").server).toBe(10);
    expect(totalsByKind(snapshots, "errorsByKind")["closed-by-server"]).toBe(10);
    expect(counts.pingTimeouts).toBe(10);
  });
});
