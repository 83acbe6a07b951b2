import type { Socket } from "node:net";
import protobuf from "protobufjs";
import { describe, expect, it, vi } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import { runPlan, total, totalsByKind } from "../testing/assignment";
import { expectTimedBroadcasts } from "../testing/broadcast-reach.test-support";
import { onDelimitedMessages } from "../testing/delimited-frames";
import { joinOkStep, useLoopbackServer, varintTcpTarget } from "../testing/delimited-server.test-support";

// Movement-sync against a room server nobody here wrote for Throng (docs/protocols.md, "Movement-sync through any
// server"): protobuf messages on TCP behind a varint length (protobuf's writeDelimited). A client joins a room with
// Join{room, client}, gets JoinOk{session}, then sends Move{session, client, seq, sentAtUs, x, y}; the server sends
// Moved{sender, seq, sentAtUs, x, y} to every other member of the room, and forgets a client at its Leave. The
// server is written here with protobufjs itself (its own parse of the .proto), so nothing of the agent is on its side.

const PROTO = `
syntax = "proto3";
package room;
message Join { int32 room = 1; int32 client = 2; }
message Move { string session = 1; int32 client = 2; int64 seq = 3; int64 sentAtUs = 4; float x = 5; float y = 6; }
message Leave { string session = 1; }
message ClientMessage { oneof kind { Join join = 1; Move move = 2; Leave leave = 3; } }
message JoinOk { string session = 1; }
message Moved { int32 sender = 1; int64 seq = 2; int64 sentAtUs = 3; float x = 4; float y = 5; }
message Error { string reason = 1; }
message ServerMessage { oneof kind { JoinOk joinOk = 1; Moved moved = 2; Error error = 3; } }
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const ClientMessage = root.lookupType("room.ClientMessage");
const ServerMessage = root.lookupType("room.ServerMessage");

interface Member {
  socket: Socket;
  session: string;
  room: number;
}

const rooms = new Map<number, Set<Member>>();
const counts = { moves: 0, moved: 0, leaves: 0, badSessions: 0 };

/** Reads varint-delimited ClientMessages off one socket: a join, then moves, then perhaps a leave. */
function serve(socket: Socket): void {
  // As a game server would: without it, Nagle's algorithm holds a Moved behind an unacknowledged one for ~40 ms.
  socket.setNoDelay(true);
  let member: Member | undefined;
  const frame = (message: object) =>
    Buffer.from(ServerMessage.encodeDelimited(ServerMessage.fromObject(message)).finish());
  const leave = () => {
    if (member) rooms.get(member.room)?.delete(member);
    member = undefined;
  };
  onDelimitedMessages(socket, (body) => {
    const message = ClientMessage.toObject(ClientMessage.decode(body), { longs: Number }) as {
      join?: { room: number; client: number };
      move?: { session: string; client: number; seq: number; sentAtUs: number; x: number; y: number };
      leave?: { session: string };
    };
    if (message.join) {
      member = { socket, session: `s-${message.join.room}-${message.join.client}`, room: message.join.room };
      const room = rooms.get(member.room) ?? new Set<Member>();
      rooms.set(member.room, room);
      room.add(member);
      socket.write(frame({ joinOk: { session: member.session } }));
    } else if (message.move) {
      const { session, client, seq, sentAtUs, x, y } = message.move;
      if (!member || session !== member.session) {
        counts.badSessions += 1;
        socket.write(frame({ error: { reason: "bad session" } }));
        return;
      }
      counts.moves += 1;
      const moved = frame({ moved: { sender: client, seq, sentAtUs, x, y } });
      for (const other of rooms.get(member.room) ?? []) {
        if (other === member) continue;
        other.socket.write(moved);
        counts.moved += 1;
      }
    } else if (message.leave && member && message.leave.session === member.session) {
      counts.leaves += 1;
      leave();
    }
  });
  socket.on("error", () => undefined);
  socket.on("close", leave);
}

const server = useLoopbackServer(serve);

const plan = (): Omit<PlanSpec, "name"> => ({
  target: varintTcpTarget(server.port()),
  protobuf: { proto: PROTO, replyType: "room.ServerMessage" },
  scenario: {
    kind: "movement-sync",
    roomSize: 5,
    updateHz: 10,
    session: [
      {
        kind: "send",
        message: {
          format: "protobuf",
          messageType: "room.ClientMessage",
          body: '{"join":{"room":{{room}},"client":{{client}}}}',
        },
      },
      joinOkStep,
    ],
    update: {
      format: "protobuf",
      messageType: "room.ClientMessage",
      body: '{"move":{"session":"{{vars.session}}","client":{{client}},"seq":{{seq}},"sentAtUs":{{sentAtUs}},"x":{{x}},"y":{{y}}}}',
    },
    broadcast: {
      filter: { json: { field: "moved.sender" } },
      sender: { json: "moved.sender" },
      seq: { json: "moved.seq" },
      sentAtUs: { json: "moved.sentAtUs" },
    },
    leave: [
      {
        kind: "send",
        message: {
          format: "protobuf",
          messageType: "room.ClientMessage",
          body: '{"leave":{"session":"{{vars.session}}"}}',
        },
      },
    ],
  },
  load: { clients: 10, durationSec: 2, rampUpSec: 0 },
});

describe("movement-sync through a protobuf-over-TCP room server (update template, broadcast rule on the decoded reply type, leave)", () => {
  it("every Moved the server relays is a timed broadcast: reach ≈ 1, latency recorded, no errors, a Leave per client", async () => {
    const snapshots = await runPlan(plan());
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({});
    expect(total(snapshots, "connectionsFailed")).toBe(0);
    expect(counts.badSessions).toBe(0);
    // Not 1: the run's last tick can still be on its way when the run ends (0.9898 seen on a busy CI host: ~8 of 784).
    const received = expectTimedBroadcasts(snapshots, 0.97, "protobuf room server");
    // The agent counted no broadcast the server did not send.
    expect(received).toBeLessThanOrEqual(counts.moved);
    // Each client's Leave went out before its connection closed.
    await vi.waitFor(() => expect(counts.leaves).toBe(10));
  });
});
