import type { Socket } from "node:net";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import { merged, runPlan, total, totalsByKind } from "../testing/assignment";
import { onDelimitedMessages } from "../testing/delimited-frames";
import { joinOkStep, useLoopbackServer, varintTcpTarget } from "../testing/delimited-server.test-support";

// A game server's own binary protocol, driven by a plan alone (docs/protocols.md): protobuf messages on TCP, each
// behind a varint length (protobuf's writeDelimited, the length-field framing). A client joins with a Join
// message, captures the session id from JoinOk and sends it in every Ping; the server answers Pong with the
// ping's seq, or an Error for a ping with a wrong session. The server is written here with protobufjs itself
// (its own parse of the same .proto), so nothing of the agent's codecs or framing is on its side.

const PROTO = `
syntax = "proto3";
package game;
message Join { string player = 1; int32 client = 2; }
message Ping { int64 seq = 1; string session = 2; int64 sentAtUs = 3; }
message Reply {
  oneof kind { JoinOk joinOk = 1; Pong pong = 2; Error error = 3; }
}
message JoinOk { string session = 1; }
message Pong { int64 seq = 1; }
message Error { string reason = 1; }
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const Join = root.lookupType("game.Join");
const Ping = root.lookupType("game.Ping");
const Reply = root.lookupType("game.Reply");

const sessions = new Map<Socket, string>();
let pingsAnswered = 0;
let joins = 0;

/** Reads varint-delimited messages off one socket: the first is a Join, the rest Pings. */
function serve(socket: Socket): void {
  const send = (reply: object) => socket.write(Buffer.from(Reply.encodeDelimited(Reply.fromObject(reply)).finish()));
  onDelimitedMessages(socket, (body) => {
    if (!sessions.has(socket)) {
      const join = Join.toObject(Join.decode(body)) as { player: string; client: number };
      const session = `s-${join.player}-${join.client}`;
      sessions.set(socket, session);
      joins += 1;
      send({ joinOk: { session } });
      return;
    }
    const ping = Ping.toObject(Ping.decode(body), { longs: Number }) as { seq: number; session: string };
    if (ping.session !== sessions.get(socket)) send({ error: { reason: "bad session" } });
    else {
      pingsAnswered += 1;
      send({ pong: { seq: ping.seq } });
    }
  });
  socket.on("error", () => undefined);
  socket.on("close", () => sessions.delete(socket));
}

const server = useLoopbackServer(serve);

function plan(pingSession: string): Omit<PlanSpec, "name"> {
  return {
    target: varintTcpTarget(server.port()),
    protobuf: { proto: PROTO, replyType: "game.Reply" },
    scenario: {
      kind: "ping-pong",
      intervalMs: 100,
      session: [
        {
          kind: "send",
          message: { format: "protobuf", messageType: "game.Join", body: '{"player":"bot","client":{{client}}}' },
        },
        joinOkStep,
      ],
      message: {
        format: "protobuf",
        messageType: "game.Ping",
        body: `{"seq":{{seq}},"session":"${pingSession}","sentAtUs":{{sentAtUs}}}`,
      },
      match: { by: "json-field", field: "pong.seq" },
      reply: { failWhen: { json: { field: "error.reason" } } },
    },
    load: { clients: 10, durationSec: 2, rampUpSec: 0 },
  };
}

describe("protobuf over TCP with a varint length field, a captured session id and replies decoded as the plan's reply type", () => {
  it("joins, captures the session, and every ping carrying it is answered and timed by its seq", async () => {
    const answeredBefore = pingsAnswered;
    const snapshots = await runPlan(plan("{{vars.session}}"));
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({});
    expect(total(snapshots, "connectionsFailed")).toBe(0);
    const roundTrips = merged(snapshots, "rttUs")!.totalCount;
    expect(roundTrips).toBeGreaterThan(10 * 10);
    // Every round trip the agent timed is a pong the server sent for a ping with the right session.
    expect(roundTrips).toBeLessThanOrEqual(pingsAnswered - answeredBefore);
    // Every ping sent (all but the 10 joins) was answered by the server or was still in flight at the end. Not an
    // equality: a pong the server sent as the run stopped counts both as answered and as in flight.
    const pingsSent = total(snapshots, "messagesSent") - 10;
    expect(pingsAnswered - answeredBefore).toBeLessThanOrEqual(pingsSent);
    expect(pingsSent).toBeLessThanOrEqual(pingsAnswered - answeredBefore + total(snapshots, "inFlightAtEnd"));
  });

  it("a ping with the wrong session gets the server's Error reply: a bad-reply error, never a round trip", async () => {
    const joinsBefore = joins;
    const wrong = plan("not-my-session");
    // In order: the Error answers the ping in flight (it carries no pong.seq to match by).
    if (wrong.scenario.kind === "ping-pong") wrong.scenario.match = { by: "order" };
    const snapshots = await runPlan(wrong);
    expect(joins - joinsBefore).toBe(10);
    expect(merged(snapshots, "rttUs")!.totalCount).toBe(0);
    expect(totalsByKind(snapshots, "errorsByKind")["bad-reply"]).toBeGreaterThan(10 * 5);
  });
});
