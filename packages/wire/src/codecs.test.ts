import { decode as msgpackDecode, encode as msgpackEncode } from "@msgpack/msgpack";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { checkPlanCodecs, createBodyCodec, createReplyDecoder } from "./codecs";
import { GAME_PROTO } from "./codecs.fixtures";

const moveOptions = { protobuf: { proto: GAME_PROTO }, messageType: "game.Move" };
const fullMove = {
  seq: 7,
  sent_at_us: 1_700_000_000_123_456,
  pos: { x: 1.5, y: -2.25, z: 0 },
  buttons: [1, 2, 4_000_000_000],
  token: Buffer.from([0, 1, 2, 250, 255]).toString("base64"),
  gait: "RUN",
  stats: { hp: 100, mp: -5 },
  path: [
    { x: 1, y: 2, z: 3 },
    { x: 4, y: 5, z: 6 },
  ],
  big: "18446744073709551615",
  heading: 0.1,
  name: "π player",
  jumping: true,
  delta: -9_007_199_254_740_991,
};

describe("protobuf bodies", () => {
  it("round-trips nested messages, repeated fields, maps, enums, int64 and bytes", () => {
    const codec = createBodyCodec("protobuf", moveOptions);
    const decoded = codec.decode(codec.encode(JSON.stringify(fullMove)));
    // uint64 max reads back as a number (longs as numbers: exact only up to 2^53)
    expect(decoded).toEqual({ ...fullMove, big: 2 ** 64 });
  });

  it("encodes what the server's own protobufjs decodes (field names as in the .proto, lowerCamelCase accepted)", () => {
    const bytes = createBodyCodec("protobuf", moveOptions).encode('{"seq":3,"sentAtUs":"9007199254740993","gait":1}');
    const Move = protobuf.parse(GAME_PROTO).root.lookupType("game.Move");
    const message = Move.toObject(Move.decode(bytes), { longs: String });
    expect(message).toEqual({ seq: 3, sentAtUs: "9007199254740993", gait: 1 });
  });

  it("decodes a message the sender left at defaults with every field present (seq 0 is still a seq)", () => {
    const ack = createBodyCodec("protobuf", { ...moveOptions, messageType: "game.Ack" });
    expect(ack.decode(ack.encode('{"seq":0}'))).toEqual({ seq: 0, server_time_us: 0 });
  });

  it("names the field and what to write when a body does not fit its message type", () => {
    const codec = createBodyCodec("protobuf", moveOptions);
    expect(() => codec.encode('{"seq":1,"velocity":2}')).toThrow(
      /^body\.velocity: message game\.Move has no field "velocity" \(its fields: seq, sent_at_us, .*\); remove it/,
    );
    expect(() => codec.encode('{"seq":"one"}')).toThrow(
      'body.seq: Move.seq is uint32: write a whole number from 0 to 4294967295 (got "one")',
    );
    expect(() => codec.encode('{"seq":-1}')).toThrow(/body\.seq: .*from 0 to 4294967295 \(got -1\)/);
    expect(() => codec.encode('{"pos":{"x":"1"}}')).toThrow('body.pos.x: Vec3.x is float: write a number (got "1")');
    expect(() => codec.encode('{"pos":[1,2]}')).toThrow(
      "body.pos: message game.Vec3 is written as a JSON object (got a list)",
    );
    expect(() => codec.encode('{"buttons":[1,"x"]}')).toThrow(/^body\.buttons\[1\]: Move\.buttons is repeated uint32/);
    expect(() => codec.encode('{"buttons":1}')).toThrow(/^body\.buttons: .*write a JSON list/);
    expect(() => codec.encode('{"gait":"FLY"}')).toThrow(
      'body.gait: Move.gait is Gait: write one of GAIT_UNSPECIFIED, WALK, RUN (or its number) (got "FLY")',
    );
    expect(() => codec.encode('{"sent_at_us":1.5}')).toThrow(
      /^body\.sent_at_us: Move\.sent_at_us is int64: write a whole number/,
    );
    expect(() => codec.encode('{"token":"not base64!"}')).toThrow(/^body\.token: .*base64/);
    expect(() => codec.encode('{"stats":{"hp":"full"}}')).toThrow(/^body\.stats\.hp: Move\.stats is int32/);
    expect(() => codec.encode('{"seq":1,')).toThrow(/^body is not JSON once its placeholders are filled/);
  });

  it("says what is wrong with a .proto that does not parse, an unknown message type and an import it cannot load", () => {
    expect(() =>
      createBodyCodec("protobuf", { protobuf: { proto: "message Move { uint32 seq = ; }" }, messageType: "Move" }),
    ).toThrow(/^protobuf\.proto does not parse: .*; fix the \.proto text$/);
    expect(() =>
      createBodyCodec("protobuf", {
        protobuf: { proto: 'syntax = "proto3"; message Move { Vec seq = 1; }' },
        messageType: "Move",
      }),
    ).toThrow(/^protobuf\.proto: .*Vec.*define that type/);
    expect(() => createBodyCodec("protobuf", { ...moveOptions, messageType: "Move" })).toThrow(
      'messageType: no message type "Move" in protobuf.proto (it defines game.Vec3, game.Move, game.Ack); name one of those, with its package',
    );
    expect(() =>
      createBodyCodec("protobuf", {
        protobuf: { proto: 'syntax = "proto3"; import "other.proto"; message A { uint32 a = 1; }' },
        messageType: "A",
      }),
    ).toThrow(/^protobuf\.proto imports "other\.proto", which the agent cannot load: paste the messages it needs/);
    expect(() => createBodyCodec("protobuf", { messageType: "game.Move" })).toThrow(
      /^protobuf\.proto: a protobuf body needs the \.proto text/,
    );
    expect(() => createBodyCodec("protobuf", { protobuf: { proto: GAME_PROTO } })).toThrow(
      /^messageType: a protobuf body names its message type/,
    );
  });

  it("supplies google/protobuf well-known types it carries, without reading files", () => {
    const proto =
      'syntax = "proto3"; import "google/protobuf/timestamp.proto"; message Tick { google.protobuf.Timestamp at = 1; }';
    const codec = createBodyCodec("protobuf", { protobuf: { proto }, messageType: "Tick" });
    expect(codec.decode(codec.encode('{"at":{"seconds":"1700000000","nanos":5}}'))).toEqual({
      at: { seconds: 1_700_000_000, nanos: 5 },
    });
  });
});

describe("msgpack bodies", () => {
  it("round-trips nested maps, arrays, 64-bit integers, floats, strings and booleans", () => {
    const body = {
      seq: 7,
      sentAtUs: 1_700_000_000_123_456,
      pos: { x: 1.5, y: -2.25 },
      buttons: [1, 2, 3],
      name: "π",
      ok: true,
      none: null,
    };
    const codec = createBodyCodec("msgpack");
    const bytes = codec.encode(JSON.stringify(body));
    expect(codec.decode(bytes)).toEqual(body);
    expect(msgpackDecode(bytes)).toEqual(body); // what any MessagePack server reads
    expect(bytes[0]).toBe(0x87); // a fixmap of 7 keys: MessagePack, not JSON text
  });

  it("each encoded message owns its bytes (the encoder's buffer is reused)", () => {
    const codec = createBodyCodec("msgpack");
    const first = codec.encode('{"seq":1}');
    codec.encode('{"seq":2}');
    expect(codec.decode(first)).toEqual({ seq: 1 });
  });

  it("says a body that is not JSON is not JSON", () => {
    expect(() => createBodyCodec("msgpack").encode("{seq: 1}")).toThrow(
      /^body is not JSON once its placeholders are filled/,
    );
  });
});

describe("reply decoders", () => {
  it("decode the plan's replyType, else the request's messageType", () => {
    const Ack = protobuf.parse(GAME_PROTO).root.lookupType("game.Ack");
    const ack = Buffer.from(Ack.encode({ seq: 42, serverTimeUs: 5 }).finish());
    expect(
      createReplyDecoder("protobuf", {
        protobuf: { proto: GAME_PROTO, replyType: "game.Ack" },
        messageType: "game.Move",
      })(ack),
    ).toEqual({ seq: 42, server_time_us: 5 });
    expect(createReplyDecoder("protobuf", { ...moveOptions, messageType: "game.Ack" })(ack)).toEqual({
      seq: 42,
      server_time_us: 5,
    });
    expect(() => createReplyDecoder("protobuf", { protobuf: { proto: GAME_PROTO, replyType: "game.Nope" } })).toThrow(
      /^protobuf\.replyType: no message type "game\.Nope"/,
    );
    expect(() => createReplyDecoder("protobuf", { protobuf: { proto: GAME_PROTO } })).toThrow(
      /^protobuf\.replyType: name the message type replies are decoded as/,
    );
  });

  it("give undefined for bytes that do not decode, and never throw", () => {
    const protobufReply = createReplyDecoder("protobuf", { protobuf: { proto: GAME_PROTO, replyType: "game.Ack" } });
    const msgpackReply = createReplyDecoder("msgpack");
    for (const garbage of [
      Buffer.from([0xff, 0xff, 0xff]),
      Buffer.from([0x0a, 0x10]),
      Buffer.from("08", "hex"),
      Buffer.from([0x0f]),
    ]) {
      expect(protobufReply(garbage)).toBeUndefined();
    }
    for (const garbage of [
      Buffer.from([0xc1]),
      Buffer.from([0x92, 0x01]),
      Buffer.alloc(0),
      Buffer.concat([Buffer.from(msgpackEncode({ seq: 1 })), Buffer.from([0x01])]),
    ]) {
      expect(msgpackReply(garbage)).toBeUndefined();
    }
    expect(msgpackReply(Buffer.from(msgpackEncode({ seq: 9 })))).toEqual({ seq: 9 });
  });
});

describe("checkPlanCodecs (the plan's protobuf checked when it is loaded)", () => {
  const pingPong = (message: object) => ({
    kind: "ping-pong" as const,
    intervalMs: 100,
    messageBytes: 64,
    message: { body: "", ...message },
  });

  it("accepts bodies whose placeholders fill to a message that fits", () => {
    const plan = {
      protobuf: { proto: GAME_PROTO, replyType: "game.Ack" },
      scenario: pingPong({
        format: "protobuf",
        messageType: "game.Move",
        body: '{"seq":{{seq}},"sent_at_us":{{sentAtUs}},"pos":{"x":{{x}}}}',
      }),
    };
    expect(() => checkPlanCodecs(plan)).not.toThrow();
    expect(() => checkPlanCodecs({ scenario: pingPong({ format: "msgpack", body: '{"seq":{{seq}}}' }) })).not.toThrow();
  });

  it("names the plan field that is wrong", () => {
    const move = { format: "protobuf", messageType: "game.Move" };
    expect(() =>
      checkPlanCodecs({
        protobuf: { proto: GAME_PROTO },
        scenario: pingPong({ ...move, body: '{"seq":{{seq}},"hp":1}' }),
      }),
    ).toThrow(/^scenario\.message\.body\.hp: message game\.Move has no field "hp"/);
    expect(() =>
      checkPlanCodecs({
        protobuf: { proto: GAME_PROTO },
        scenario: pingPong({ ...move, messageType: "game.Mov", body: "{}" }),
      }),
    ).toThrow(/^scenario\.message\.messageType: no message type "game\.Mov"/);
    expect(() =>
      checkPlanCodecs({ protobuf: { proto: "message {" }, scenario: pingPong({ ...move, body: "{}" }) }),
    ).toThrow(/^protobuf\.proto does not parse/);
    expect(() =>
      checkPlanCodecs({
        protobuf: { proto: GAME_PROTO, replyType: "Ack" },
        scenario: pingPong({ ...move, body: "{}" }),
      }),
    ).toThrow(/^protobuf\.replyType: no message type "Ack"/);
    expect(() => checkPlanCodecs({ scenario: pingPong({ format: "msgpack", body: "{{seq}" }) })).toThrow(
      /^scenario\.message\.body is not JSON/,
    );
  });
});
