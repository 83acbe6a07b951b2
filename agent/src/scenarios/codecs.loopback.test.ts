import type { AddressInfo } from "node:net";
import { decode as msgpackDecode, encode as msgpackEncode } from "@msgpack/msgpack";
import protobuf from "protobufjs";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import { createBodyCodec, createReplyDecoder, type BinaryBodyFormat, type CodecOptions } from "@throng/wire/codecs";
import { GAME_PROTO } from "@throng/wire/codecs.fixtures";

// A server in the test speaks the protocol with its own library (its own parse of the same .proto, or
// @msgpack/msgpack), decodes each binary message and answers with a reply carrying the same seq.

const servers: WebSocketServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

async function startServer(answer: (message: Buffer) => Buffer): Promise<string> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  servers.push(server);
  server.on("connection", (socket) =>
    socket.on("message", (data: RawData, isBinary) =>
      socket.send(isBinary ? answer(data as Buffer) : Buffer.from("not binary")),
    ),
  );
  await new Promise((listening) => server.once("listening", listening));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends `count` bodies encoded by the codec and gives back every reply, decoded by the reply decoder. */
async function exchange(
  url: string,
  format: BinaryBodyFormat,
  options: CodecOptions,
  body: (seq: number) => string,
  count: number,
): Promise<unknown[]> {
  const codec = createBodyCodec(format, options);
  const decodeReply = createReplyDecoder(format, options);
  const client = new WebSocket(url);
  const replies: unknown[] = [];
  const done = new Promise<void>((resolve, reject) => {
    client.on("error", reject);
    client.on("message", (data: RawData) => {
      replies.push(decodeReply(data as Buffer));
      if (replies.length === count) resolve();
    });
  });
  await new Promise((open) => client.once("open", open));
  for (let seq = 0; seq < count; seq++) client.send(codec.encode(body(seq)), { binary: true });
  await done;
  client.close();
  return replies;
}

describe("codecs against a server on loopback", () => {
  it("protobuf: 100 Moves encoded by the codec reach the server's own protobufjs intact; every Ack decodes to its seq", async () => {
    const root = protobuf.parse(GAME_PROTO, { keepCase: true }).root;
    const Move = root.lookupType("game.Move");
    const Ack = root.lookupType("game.Ack");
    const seen: unknown[] = [];
    const url = await startServer((bytes) => {
      const move = Move.toObject(Move.decode(bytes), { longs: Number }) as { seq: number; sent_at_us: number };
      seen.push(move);
      return Buffer.from(Ack.encode({ seq: move.seq, server_time_us: move.sent_at_us + 1 }).finish());
    });
    const options = { protobuf: { proto: GAME_PROTO, replyType: "game.Ack" }, messageType: "game.Move" };
    const body = (seq: number) =>
      `{"seq":${seq},"sent_at_us":${1_700_000_000_000_000 + seq},"pos":{"x":${seq * 0.5},"y":1,"z":-1},"gait":"WALK"}`;
    const replies = await exchange(url, "protobuf", options, body, 100);
    expect(replies).toEqual(
      Array.from({ length: 100 }, (_, seq) => ({ seq, server_time_us: 1_700_000_000_000_001 + seq })),
    );
    expect(seen[99]).toEqual({ seq: 99, sent_at_us: 1_700_000_000_000_099, pos: { x: 49.5, y: 1, z: -1 }, gait: 1 });
  });

  it("msgpack: 100 bodies encoded by the codec reach a @msgpack/msgpack server intact; every reply decodes to its seq", async () => {
    const seen: unknown[] = [];
    const url = await startServer((bytes) => {
      const update = msgpackDecode(bytes) as { seq: number };
      seen.push(update);
      return Buffer.from(msgpackEncode({ type: "ack", seq: update.seq }));
    });
    const body = (seq: number) => `{"type":"move","seq":${seq},"pos":[${seq * 0.5},1,-1]}`;
    const replies = await exchange(url, "msgpack", {}, body, 100);
    expect(replies).toEqual(Array.from({ length: 100 }, (_, seq) => ({ type: "ack", seq })));
    expect(seen[99]).toEqual({ type: "move", seq: 99, pos: [49.5, 1, -1] });
  });
});
