import { describe, expect, it } from "vitest";
import type { TcpFraming } from "@throng/protocol/plan";
import { createFramer } from "./framing";

function roundTrip(framing: TcpFraming, messages: string[], chunkBytes: number): string[] {
  const sender = createFramer(framing);
  const receiver = createFramer(framing);
  const stream = Buffer.concat(messages.map((message) => sender.encode(Buffer.from(message))));
  const out: string[] = [];
  // Split the stream at awkward places, as TCP may, each read landing in the same reused buffer (as the
  // transports' shared onread buffer does), scribbled over once the framer is done with it.
  const reused = Buffer.alloc(chunkBytes);
  for (let at = 0; at < stream.length; at += chunkBytes) {
    const read = stream.copy(reused, 0, at, at + chunkBytes);
    receiver.push(reused.subarray(0, read), (m) => out.push(m.toString()));
    reused.fill(0x3f);
  }
  return out;
}

const messages = ["a", "", "hello world", "x".repeat(300)];

describe("TCP framing", () => {
  it.each<[string, TcpFraming]>([
    ["2-byte big-endian", { kind: "length-prefix", headerBytes: 2 }],
    ["2-byte little-endian counting the header", { kind: "length-prefix", headerBytes: 2, byteOrder: "little", lengthIncludesHeader: true }],
    ["4-byte big-endian counting the header", { kind: "length-prefix", headerBytes: 4, lengthIncludesHeader: true }],
    ["4-byte little-endian", { kind: "length-prefix", headerBytes: 4, byteOrder: "little" }],
  ])("%s: messages survive any split of the stream", (_name, framing) => {
    for (const chunk of [1, 3, 7, 1000]) expect(roundTrip(framing, messages, chunk)).toEqual(messages);
  });

  it("writes the header exactly as configured", () => {
    expect([...createFramer({ kind: "length-prefix", headerBytes: 2 }).encode(Buffer.from("abc"))]).toEqual([0, 3, 97, 98, 99]);
    expect([...createFramer({ kind: "length-prefix", headerBytes: 2, byteOrder: "little", lengthIncludesHeader: true }).encode(Buffer.from("abc"))]).toEqual([5, 0, 97, 98, 99]);
    expect([...createFramer({ kind: "length-prefix", headerBytes: 4, lengthIncludesHeader: true }).encode(Buffer.from("a"))]).toEqual([0, 0, 0, 5, 97]);
  });

  it.each<[string, TcpFraming]>([
    ["\\n", { kind: "delimiter" }],
    ["\\r\\n", { kind: "delimiter", delimiter: "\r\n" }],
    ["hex 00ff", { kind: "delimiter", delimiterHex: "00ff" }],
  ])("delimiter %s: messages survive any split of the stream", (_name, framing) => {
    const nonEmpty = messages.filter((m) => m !== "");
    for (const chunk of [1, 2, 5, 1000]) expect(roundTrip(framing, nonEmpty, chunk)).toEqual(nonEmpty);
  });

  it("refuses a message too long for a 2-byte prefix and a corrupt stream", () => {
    expect(() => createFramer({ kind: "length-prefix", headerBytes: 2 }).encode(Buffer.alloc(70_000))).toThrow(/does not fit/);
    const framer = createFramer({ kind: "length-prefix", headerBytes: 4 });
    expect(() => framer.push(Buffer.from([0xff, 0xff, 0xff, 0xff]), () => {})).toThrow(/bad length/);
  });
});
