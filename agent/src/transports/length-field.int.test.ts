import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TcpFraming, TcpTarget } from "@throng/protocol/plan";
import { parseFramingSpec } from "../cli/framing-spec";
import { tcpPing } from "../testing/round-trip";
import { nativeIo } from "./native-io";
import { tcpTransport } from "./tcp";
import { causeOf, type Transport, type TransportEnd } from "./transport";

/**
 * The length-field framing against a real server on loopback that speaks protobuf-delimited framing (a varint
 * length before each message, as writeDelimitedTo writes it) and echoes every message. The server cuts and writes
 * frames with its own code, not the agent's framer. Both I/O paths: the native one when the addon is built (this
 * process's default), and Node's sockets (a fresh copy of the transport modules with THRONG_IO=node's choice).
 */

const protobufDelimited: TcpFraming = {
  kind: "length-field",
  lengthFieldBytes: "varint",
  initialBytesToStrip: "header",
};

function varint(value: number): Buffer {
  const out: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 0x80)) out.push((value % 0x80) | 0x80);
  out.push(value);
  return Buffer.from(out);
}

/** Reads varint-delimited messages from a socket's data and hands each whole one to `onMessage`. */
function delimitedReader(onMessage: (message: Buffer) => void): (data: Buffer) => void {
  let buffered = Buffer.alloc(0);
  return (data) => {
    buffered = Buffer.concat([buffered, data]);
    for (;;) {
      let length = 0;
      let at = 0;
      for (let shift = 1; at < buffered.length; shift *= 0x80) {
        const byte = buffered[at++]!;
        length += (byte & 0x7f) * shift;
        if (byte < 0x80) break;
        if (at === buffered.length) return;
      }
      if (at === 0 || buffered.length - at < length) return;
      onMessage(buffered.subarray(at, at + length));
      buffered = buffered.subarray(at + length);
    }
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    socket.on("error", () => {});
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** The protobuf-delimited echo server: every message back, with its own varint prefix. */
const echoServer = () =>
  serve((socket) =>
    socket.on(
      "data",
      delimitedReader((message) => socket.write(Buffer.concat([varint(message.length), message]))),
    ),
  );

type MakeTransport = (target: TcpTarget) => Transport;

/** Opens one connection, sends `messages` once open, and gathers what arrives until `count` messages (then closes) or its end. */
async function exchange(
  transport: Transport,
  messages: Buffer[],
  count: number,
): Promise<{ received: Buffer[]; end?: TransportEnd }> {
  const received: Buffer[] = [];
  let closing: Promise<void> | undefined;
  const result = await new Promise<{ received: Buffer[]; end?: TransportEnd }>((resolve) => {
    const connection = transport.open({
      onOpen: () => {
        for (const message of messages) connection.send(message);
      },
      onMessage(message) {
        // A view of a reused buffer: copy it to keep it.
        received.push(Buffer.from(message));
        if (received.length !== count) return;
        resolve({ received });
        closing = connection.close();
      },
      onEnd: (end) => resolve({ received, end }),
    });
  });
  await closing;
  return result;
}

const paths: [string, () => Promise<MakeTransport | undefined>][] = [
  ["the native I/O path", async () => (nativeIo().kind === "native" ? tcpTransport : undefined)],
  [
    "Node's sockets",
    async () => {
      vi.resetModules();
      const io = await import("./native-io");
      io.preferIo("node");
      const tcp = await import("./tcp");
      expect(io.nativeIo().kind).toBe("node");
      return tcp.tcpTransport;
    },
  ],
];

describe.each(paths)("length-field framing over TCP on %s", (_path, load) => {
  it("sends protobuf-delimited messages (1-, 2- and 3-byte varints) to an echo server and gets exactly them back", async (context) => {
    const make = await load();
    if (!make) return context.skip();
    const port = await echoServer();
    const messages = [0, 1, 127, 128, 300, 20_000, 5].map((length, i) =>
      Buffer.from(Array.from({ length }, (_, j) => (j * 7 + i) & 0xff)),
    );
    const { received, end } = await exchange(
      make({ protocol: "tcp", host: "127.0.0.1", port, framing: protobufDelimited }),
      messages,
      messages.length,
    );
    expect(end).toBeUndefined();
    expect(received.map((m) => m.length)).toEqual(messages.map((m) => m.length));
    expect(received.map((m) => m.toString("hex"))).toEqual(messages.map((m) => m.toString("hex")));
  });

  it('ends the connection with cause "protocol" when the server\'s length is over maxFrameBytes', async (context) => {
    const make = await load();
    if (!make) return context.skip();
    // 1 MiB + 1 as a varint: one byte over the default maxFrameBytes, field included.
    const port = await serve((socket) => socket.write(Buffer.concat([varint(1024 * 1024), Buffer.alloc(16)])));
    const { received, end } = await exchange(
      make({ protocol: "tcp", host: "127.0.0.1", port, framing: protobufDelimited }),
      [],
      1,
    );
    expect(received).toEqual([]);
    expect(end?.opened).toBe(true);
    expect(end?.error?.message).toMatch(/over maxFrameBytes \(1048576\)/);
    expect(causeOf(end!.error!)).toBe("protocol");
  });
});

describe("the reference target with --framing varint", () => {
  it("answers a protobuf-delimited ping with a protobuf-delimited pong", async () => {
    const framing = parseFramingSpec("varint")!;
    expect(await tcpPing(framing, 9)).toMatchObject({ type: "pong", seq: 9 });
  });
});
