import { describe, expect, it } from "vitest";
import { PlanSpec } from "./plan";
import { planIssues } from "./plan-spec.test-support";

// msgpack and protobuf message bodies in the plan schema. The .proto text itself is parsed and checked by the
// plan reader every channel shares (packages/wire/src/plan-reader.ts, checkPlanCodecs): this package is zod only.

const PROTO = 'syntax = "proto3"; package game; message Move { uint32 seq = 1; } message Ack { uint32 seq = 1; }';

function plan(message: object, extra: object = {}) {
  return {
    name: "codecs",
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070", frames: "binary" },
    scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64, message, heartbeat: { intervalMs: 1000 } },
    load: { clients: 1, durationSec: 1 },
    ...extra,
  };
}

describe("msgpack and protobuf bodies in a plan", () => {
  it("accepts a protobuf body with its message type and the plan's .proto, and a msgpack body", () => {
    const protobufPlan = plan(
      { format: "protobuf", messageType: "game.Move", body: '{"seq":{{seq}}}' },
      { protobuf: { proto: PROTO, replyType: "game.Ack" } },
    );
    expect(planIssues(protobufPlan)).toEqual([]);
    expect(PlanSpec.parse(protobufPlan).protobuf).toEqual({ proto: PROTO, replyType: "game.Ack" });
    expect(planIssues(plan({ format: "msgpack", body: '{"seq":{{seq}}}' }))).toEqual([]);
  });

  it("asks for the message type and the .proto of a protobuf body, naming the fields", () => {
    expect(planIssues(plan({ format: "protobuf", body: "{}" }))).toEqual([
      'scenario.message.messageType: a protobuf body names its message type, e.g. "game.Move", defined in protobuf.proto',
      "protobuf: scenario.message is a protobuf body: give the .proto text that defines its message type as protobuf.proto",
    ]);
  });

  it("finds protobuf bodies wherever the scenario has a template (the heartbeat's too)", () => {
    const value = plan({ body: "ping" });
    (value.scenario as { heartbeat: object }).heartbeat = {
      intervalMs: 1000,
      message: { format: "protobuf", messageType: "game.Move", body: "{}" },
    };
    expect(planIssues(value)).toEqual([
      "protobuf: scenario.heartbeat.message is a protobuf body: give the .proto text that defines its message type as protobuf.proto",
    ]);
  });

  it("refuses a message type on a body that is not protobuf, a malformed type name and an empty .proto", () => {
    expect(planIssues(plan({ format: "msgpack", messageType: "game.Move", body: "{}" }))).toEqual([
      "scenario.message.messageType: only a protobuf body names a message type: set format: protobuf, or leave messageType out",
    ]);
    expect(
      planIssues(plan({ format: "protobuf", messageType: "game Move", body: "{}" }, { protobuf: { proto: PROTO } })),
    ).toEqual(['scenario.message.messageType: must be a message type\'s full name, e.g. "game.Move"']);
    expect(planIssues(plan({ body: "ping" }, { protobuf: { proto: "" } }))).toEqual([
      "protobuf.proto: give the .proto text",
    ]);
    expect(planIssues(plan({ body: "ping" }, { protobuf: { proto: PROTO, replyType: "game/Ack" } }))).toEqual([
      'protobuf.replyType: must be a message type\'s full name, e.g. "game.Move"',
    ]);
  });
});
