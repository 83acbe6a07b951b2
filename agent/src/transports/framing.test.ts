import { mulberry32 as seeded } from "../engine/seeded-random";
import { describe, expect, it } from "vitest";
import type { TcpFraming } from "@throng/protocol/plan";
import { createFramer, FramingError } from "./framing";
import { causeOf } from "./transport";

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
    [
      "2-byte little-endian counting the header",
      { kind: "length-prefix", headerBytes: 2, byteOrder: "little", lengthIncludesHeader: true },
    ],
    ["4-byte big-endian counting the header", { kind: "length-prefix", headerBytes: 4, lengthIncludesHeader: true }],
    ["4-byte little-endian", { kind: "length-prefix", headerBytes: 4, byteOrder: "little" }],
  ])("%s: messages survive any split of the stream", (_name, framing) => {
    for (const chunk of [1, 3, 7, 1000]) expect(roundTrip(framing, messages, chunk)).toEqual(messages);
  });

  it("writes the header exactly as configured", () => {
    expect([...createFramer({ kind: "length-prefix", headerBytes: 2 }).encode(Buffer.from("abc"))]).toEqual([
      0, 3, 97, 98, 99,
    ]);
    expect([
      ...createFramer({
        kind: "length-prefix",
        headerBytes: 2,
        byteOrder: "little",
        lengthIncludesHeader: true,
      }).encode(Buffer.from("abc")),
    ]).toEqual([5, 0, 97, 98, 99]);
    expect([
      ...createFramer({ kind: "length-prefix", headerBytes: 4, lengthIncludesHeader: true }).encode(Buffer.from("a")),
    ]).toEqual([0, 0, 0, 5, 97]);
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
    expect(() => createFramer({ kind: "length-prefix", headerBytes: 2 }).encode(Buffer.alloc(70_000))).toThrow(
      /does not fit/,
    );
    const framer = createFramer({ kind: "length-prefix", headerBytes: 4 });
    expect(() => framer.push(Buffer.from([0xff, 0xff, 0xff, 0xff]), () => {})).toThrow(/bad length/);
  });
});

/** Feeds `stream` cut at `cuts` through one reused read buffer (scribbled over after each read); the messages as hex. */
function framesOf(framing: TcpFraming, stream: Buffer, cuts: number[]): string[] {
  const framer = createFramer(framing);
  const out: string[] = [];
  const reused = Buffer.alloc(stream.length);
  let from = 0;
  for (const to of [...cuts, stream.length]) {
    const read = stream.copy(reused, 0, from, to);
    framer.push(reused.subarray(0, read), (m) => out.push(m.toString("hex")));
    reused.fill(0x3f);
    from = to;
  }
  return out;
}

/** Every way the test cuts a stream: a byte at a time, in two at every boundary (short streams), and 40 seeded random chunkings. */
function chunkings(length: number): number[][] {
  const all: number[][] = [Array.from({ length: length - 1 }, (_, i) => i + 1)];
  if (length <= 600) for (let at = 1; at < length; at += 1) all.push([at]);
  for (let seed = 1; seed <= 40; seed += 1) {
    const random = seeded(seed);
    const cuts: number[] = [];
    const most = seed % 2 === 0 ? 8 : 400;
    for (let at = 1 + Math.floor(random() * most); at < length; at += 1 + Math.floor(random() * most)) cuts.push(at);
    all.push(cuts);
  }
  return all;
}

function expectFrames(framing: TcpFraming, frames: Buffer[], messages: Buffer[]): void {
  const stream = Buffer.concat(frames);
  const expected = messages.map((m) => m.toString("hex"));
  for (const cuts of chunkings(stream.length)) expect(framesOf(framing, stream, cuts)).toEqual(expected);
}

const bytes = (length: number, seed: number) => Buffer.from(Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff));
const hex = (text: string) => Buffer.from(text.replace(/ /g, ""), "hex");

describe("length-field framing", () => {
  it("cuts MQTT packets (fixed header byte, varint remaining length) however the stream is split", () => {
    const framing: TcpFraming = { kind: "length-field", lengthFieldOffset: 1, lengthFieldBytes: "varint" };
    const connack = hex("20 02 00 00");
    const publish = Buffer.concat([hex("30 c8 01"), bytes(200, 1)]);
    const pingresp = hex("d0 00");
    const packets = [connack, publish, pingresp, connack];
    expectFrames(framing, packets, packets);
  });

  it("cuts protobuf-delimited messages (varint prefix, stripped) and writes the prefix as writeDelimited does", () => {
    const framing: TcpFraming = { kind: "length-field", lengthFieldBytes: "varint", initialBytesToStrip: "header" };
    const framer = createFramer(framing);
    expect(framer.encode(bytes(300, 2)).subarray(0, 2).toString("hex")).toBe("ac02");
    expect(framer.encode(bytes(20_000, 3)).subarray(0, 3).toString("hex")).toBe("a09c01");
    expect(framer.encode(Buffer.alloc(0)).toString("hex")).toBe("00");
    const short = [0, 1, 127, 128, 300].map((length) => bytes(length, length));
    expectFrames(
      framing,
      short.map((m) => framer.encode(m)),
      short,
    );
    // A number of bytes to strip counts from the frame's front, whatever the varint's size (here its 1 byte and 1 more).
    const stripTwo: TcpFraming = { kind: "length-field", lengthFieldBytes: "varint", initialBytesToStrip: 2 };
    expectFrames(
      stripTwo,
      short.slice(1, 3).map((m) => framer.encode(m)),
      short.slice(1, 3).map((m) => m.subarray(1)),
    );
    const long = [bytes(16_383, 4), bytes(16_384, 5), bytes(20_000, 6), bytes(3, 7)];
    const stream = Buffer.concat(long.map((m) => framer.encode(m)));
    for (const cuts of chunkings(stream.length).slice(1))
      expect(framesOf(framing, stream, cuts)).toEqual(long.map((m) => m.toString("hex")));
  });

  it("cuts a 3-byte little-endian length at offset 2 with adjustment -3, stripping the 5-byte header", () => {
    const framing: TcpFraming = {
      kind: "length-field",
      lengthFieldOffset: 2,
      lengthFieldBytes: 3,
      byteOrder: "little",
      lengthAdjustment: -3,
      initialBytesToStrip: 5,
    };
    // The field counts itself and the body: a frame is 2 + 3 + value - 3 bytes.
    const frame = (body: Buffer) => {
      const header = Buffer.from([0xab, 0xcd, 0, 0, 0]);
      header.writeUIntLE(body.length + 3, 2, 3);
      return Buffer.concat([header, body]);
    };
    const bodies = [bytes(0, 0), bytes(1, 1), bytes(258, 2), bytes(70_000, 3).subarray(0, 500)];
    expectFrames(framing, bodies.map(frame), bodies);
    // At an offset the scenario writes the header: the framer sends its message as it is.
    const message = frame(bytes(4, 4));
    expect(createFramer(framing).encode(message)).toBe(message);
  });

  it.each<[string, TcpFraming]>([
    ["2-byte", { kind: "length-prefix", headerBytes: 2 }],
    [
      "4-byte little-endian counting the header",
      { kind: "length-prefix", headerBytes: 4, byteOrder: "little", lengthIncludesHeader: true },
    ],
  ])("old %s length prefix: any split of the stream", (_name, framing) => {
    const framer = createFramer(framing);
    const messages = [bytes(0, 0), bytes(5, 1), bytes(300, 2), bytes(1, 3)];
    expectFrames(
      framing,
      messages.map((m) => framer.encode(m)),
      messages,
    );
  });

  it("prepends 1-, 3- and 8-byte fields in either byte order with the value that gives the message's length back", () => {
    const abc = Buffer.from("abc");
    expect(createFramer({ kind: "length-field", lengthFieldBytes: 1 }).encode(abc).toString("hex")).toBe("03616263");
    expect(
      createFramer({ kind: "length-field", lengthFieldBytes: 3, lengthAdjustment: -3 }).encode(abc).toString("hex"),
    ).toBe("000006616263");
    expect(createFramer({ kind: "length-field", lengthFieldBytes: 8 }).encode(abc).toString("hex")).toBe(
      "0000000000000003616263",
    );
    expect(
      createFramer({ kind: "length-field", lengthFieldBytes: 8, byteOrder: "little" }).encode(abc).toString("hex"),
    ).toBe("0300000000000000616263");
    for (const framing of [
      { kind: "length-field", lengthFieldBytes: 8, byteOrder: "little", initialBytesToStrip: 8 },
      { kind: "length-field", lengthFieldBytes: 1, lengthAdjustment: 2, initialBytesToStrip: "header" },
    ] as TcpFraming[]) {
      const framer = createFramer(framing);
      const messages = [bytes(2, 1), bytes(200, 2)];
      expectFrames(
        framing,
        messages.map((m) => framer.encode(m)),
        messages,
      );
    }
  });

  it("ends the stream as a protocol error on a frame over maxFrameBytes, an 8-byte length above 2^53, a runaway varint, a negative length", () => {
    const refuse = (framing: TcpFraming, stream: string, message: RegExp) => {
      let thrown: unknown;
      try {
        createFramer(framing).push(hex(stream), () => {});
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(FramingError);
      expect(causeOf(thrown as Error)).toBe("protocol");
      expect((thrown as Error).message).toMatch(message);
    };
    refuse(
      { kind: "length-field", lengthFieldBytes: "varint" },
      "80 80 40",
      /frame of 1048579 bytes, over maxFrameBytes \(1048576\)/,
    );
    refuse({ kind: "length-field", lengthFieldBytes: 2, maxFrameBytes: 100 }, "00 63", /over maxFrameBytes \(100\)/);
    refuse({ kind: "length-field", lengthFieldBytes: 8 }, "00 20 00 00 00 00 00 00", /above 2\^53/);
    refuse(
      { kind: "length-field", lengthFieldBytes: "varint" },
      "ff ff ff ff ff ff ff ff ff ff",
      /varint longer than 10 bytes/,
    );
    refuse({ kind: "length-field", lengthFieldBytes: 1, lengthAdjustment: -2 }, "01", /below 0/);
    refuse(
      { kind: "length-field", lengthFieldBytes: 1, initialBytesToStrip: 4 },
      "01",
      /shorter than initialBytesToStrip 4/,
    );
    refuse({ kind: "length-prefix", headerBytes: 2, lengthIncludesHeader: true }, "00 01", /bad length/);
    // Exactly maxFrameBytes passes; the field's bytes count.
    const frames: string[] = [];
    createFramer({ kind: "length-field", lengthFieldBytes: 2, maxFrameBytes: 100 }).push(
      Buffer.concat([hex("00 62"), bytes(98, 0)]),
      (m) => frames.push(m.toString("hex")),
    );
    expect(frames).toEqual([Buffer.concat([hex("00 62"), bytes(98, 0)]).toString("hex")]);
  });

  it("refuses to send what the field cannot say or the reader would refuse", () => {
    expect(() => createFramer({ kind: "length-field", lengthFieldBytes: 1 }).encode(Buffer.alloc(256))).toThrow(
      /does not fit a 1-byte length field/,
    );
    expect(() =>
      createFramer({ kind: "length-field", lengthFieldBytes: 1, lengthAdjustment: 5 }).encode(Buffer.alloc(4)),
    ).toThrow(/shorter than lengthAdjustment 5/);
    expect(() =>
      createFramer({ kind: "length-field", lengthFieldBytes: 4, maxFrameBytes: 10 }).encode(Buffer.alloc(7)),
    ).toThrow(/longer than maxFrameBytes/);
  });
});
