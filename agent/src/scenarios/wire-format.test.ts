import { encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import { prepareTemplate } from "@throng/wire/message-template";
import { compileCapture, compileReplyRule } from "./reply-rule";
import { createWireFormat, TEXT_WIRE } from "@throng/wire/wire-format";

const scenario = (format: "msgpack" | "json"): PlanSpec["scenario"] => ({
  kind: "ping-pong",
  intervalMs: 100,
  message: { format, body: '{"type":"move","seq":{{seq}},"x":{{x}}}' },
  match: { by: "json-field", field: "seq" },
});

describe("wire format", () => {
  it("encodes a msgpack template's filled body, and field rules read msgpack replies", () => {
    const plan = { scenario: scenario("msgpack") };
    const wire = createWireFormat(plan);
    const template = plan.scenario.kind === "ping-pong" ? plan.scenario.message! : undefined;
    const message = prepareTemplate(template!, wire).bind()({ seq: 7, sentAtUs: 0, client: 0, x: 1.5 });
    expect(message).toEqual(Buffer.from(encode({ type: "move", seq: 7, x: 1.5 })));
    const reply = Buffer.from(encode({ type: "pong", seq: 7, session: { id: "abc" } }));
    expect(compileReplyRule({ json: { field: "type", equals: "pong" } }, wire.decodeReply)(reply)).toBe(true);
    expect(compileCapture({ name: "id", from: { json: "session.id" } }, wire.decodeReply)(reply)).toBe("abc");
    expect(wire.decodeReply(Buffer.from([0xc1]))).toBeUndefined(); // never-used msgpack byte: no value, no throw
  });

  it("keeps JSON text plans on plain text, and says which field is wrong in a bad .proto", () => {
    expect(createWireFormat({ scenario: scenario("json") })).toBe(TEXT_WIRE);
    const protobufPlan = {
      protobuf: { proto: 'syntax = "proto3"; message A { int32 seq = 1; }' },
      scenario: { ...scenario("json"), message: { format: "protobuf" as const, messageType: "B", body: "{}" } },
    };
    expect(() => createWireFormat(protobufPlan as never)).toThrow(/messageType/);
  });
});
