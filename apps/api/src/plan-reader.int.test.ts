import { describe, expect, it } from "vitest";
import { ErrorBody } from "@throng/protocol/errors";
import { pingPlan } from "./testing/plans";
import { signedUpApiPerFile } from "./testing/signed-up-api";

// One plan reader for every channel (issue 27 §1): a .proto that does not compile, or a protobuf body that does not
// fit its type, passed the API's schema and failed only on the rig. Save, start and Try it now run the same check
// as `throng run` and `throng-agent run` (@throng/wire/plan-reader).

const PROTO = 'syntax = "proto3"; package game; message Ping { uint32 seq = 1; }';
const protobufPlan = (proto: string, body: string) => ({
  ...pingPlan,
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws", frames: "binary" },
  scenario: { kind: "ping-pong", intervalMs: 100, message: { format: "protobuf", messageType: "game.Ping", body } },
  protobuf: { proto },
});

const { user } = signedUpApiPerFile("Codecs");

function refusal(answer: { status: number; json: unknown }) {
  expect(answer.status, JSON.stringify(answer.json)).toBe(400);
  return ErrorBody.parse(answer.json).error;
}

describe("a plan's codecs are checked where it is saved, started and tried", () => {
  it("save refuses a .proto that does not compile, naming protobuf.proto", async () => {
    const error = refusal(await user().request("POST", "/api/plans", protobufPlan("message {", '{"seq":{{seq}}}')));
    expect(error.fields).toEqual([{ path: "protobuf.proto", message: expect.stringMatching(/^does not parse/) }]);
  });

  it("save refuses a body with a field its message type lacks, naming the field", async () => {
    const error = refusal(await user().request("POST", "/api/plans", protobufPlan(PROTO, '{"seq":{{seq}},"hp":1}')));
    expect(error.fields).toEqual([
      { path: "scenario.message.body.hp", message: expect.stringContaining('message game.Ping has no field "hp"') },
    ]);
    expect(error.message).toContain("scenario.message.body.hp");
  });

  it("a plan whose codecs fit saves, and Try it refuses a bad one under spec.", async () => {
    expect((await user().request("POST", "/api/plans", protobufPlan(PROTO, '{"seq":{{seq}}}'))).status).toBe(201);
    const error = refusal(
      await user().request("POST", "/api/plans/try", { spec: protobufPlan(PROTO, '{"sequence":1}') }),
    );
    expect(error.fields?.[0]?.path).toBe("spec.scenario.message.body.sequence");
  });
});
