import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { CMD_ACK } from "./kcp";
import { kcpTransport } from "./kcp-transport";
import { causeOf, type TransportEnd } from "./transport";

// The KCP transport's own lifecycle against a bare UDP socket that plays the server by hand: it sees each datagram
// and acknowledges only what the test says.

let peer: Socket | undefined;
afterEach(() => {
  peer?.close();
  peer = undefined;
});

interface Push {
  conv: number;
  ts: number;
  sn: number;
  from: RemoteInfo;
}

/** A UDP socket that hands the test every PUSH segment it receives. */
async function handPeer(onPush: (push: Push) => void): Promise<number> {
  peer = createSocket("udp4");
  peer.on("message", (datagram, from) => {
    for (let at = 0; at + 24 <= datagram.length; at += 24 + datagram.readUInt32LE(at + 20)) {
      if (datagram[at + 4] === 81)
        onPush({
          conv: datagram.readUInt32LE(at),
          ts: datagram.readUInt32LE(at + 8),
          sn: datagram.readUInt32LE(at + 12),
          from,
        });
    }
  });
  await new Promise<void>((resolve) => peer!.bind(0, "127.0.0.1", resolve));
  return peer.address().port;
}

/** The server's ACK of one segment, the window open. */
function ack(push: Push): void {
  const datagram = Buffer.alloc(24);
  datagram.writeUInt32LE(push.conv, 0);
  datagram[4] = CMD_ACK;
  datagram.writeUInt16LE(32, 6);
  datagram.writeUInt32LE(push.ts, 8);
  datagram.writeUInt32LE(push.sn, 12);
  datagram.writeUInt32LE(push.sn + 1, 16);
  peer!.send(datagram, push.from.port, push.from.address);
}

describe("KCP transport", () => {
  it("a close waits until what was sent is acknowledged (a leave message is delivered), then ends as ours", async () => {
    let firstPush: (push: Push) => void;
    const pushed = new Promise<Push>((resolve) => (firstPush = resolve));
    const port = await handPeer((push) => firstPush(push));
    let end: TransportEnd | undefined;
    let closed = false;
    const connection = kcpTransport({ protocol: "kcp", host: "127.0.0.1", port }).open({
      onOpen: () => connection.send("bye"),
      onMessage() {},
      onEnd: (e) => (end = e),
    });
    const push = await pushed;
    const closing = connection.close(30_000).then(() => (closed = true));
    // Several turns of the loop: nothing acknowledged yet, so the connection stays.
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    ack(push);
    await closing;
    expect(end).toEqual({ opened: true });
  });

  it("a close the server never acknowledges ends after the close's timeout", async () => {
    const port = await handPeer(() => {});
    const connection = kcpTransport({ protocol: "kcp", host: "127.0.0.1", port }).open({
      onOpen: () => connection.send("unheard"),
      onMessage() {},
      onEnd() {},
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await connection.close(50);
  });

  it("a server that stops acknowledging ends the connection as a timeout once a segment went 20 times", async () => {
    let pushes = 0;
    const port = await handPeer((push) => {
      pushes += 1;
      // The first message is acknowledged (a round trip measured, so the RTO is short); the second never is.
      if (push.sn === 0) ack(push);
    });
    const ended = new Promise<TransportEnd>((resolve) => {
      const connection = kcpTransport({ protocol: "kcp", host: "127.0.0.1", port, mode: "fast3" }).open({
        onOpen() {
          connection.send("acknowledged");
          setTimeout(() => connection.send("never acknowledged"), 50);
        },
        onMessage() {},
        onEnd: resolve,
      });
    });
    const end = await ended;
    expect(end.opened).toBe(true);
    expect(causeOf(end.error!)).toBe("timeout");
    expect(pushes).toBe(1 + 20);
    // About 3 s here (RTO 30 ms, +15 ms per expiry); a loaded machine measures a longer round trip, so a longer RTO.
  }, 120_000);
});
