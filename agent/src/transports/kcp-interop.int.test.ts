import type { KcpTarget, TcpFraming } from "@throng/protocol/plan";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { seededRandom } from "../engine/seeded-random";
import { kcpTestServerBinary, startKcpGoServer, type KcpGoServer } from "../testing/kcp-go";
import { startLossyRelay, type LossyRelay } from "../testing/lossy-relay";
import { KcpStats } from "./kcp";
import { kcpTransport } from "./kcp-transport";
import type { TransportConnection } from "./transport";

// Throng's KCP against the reference implementation, xtaci/kcp-go v5.7.5 (agent/test-servers/kcp, built with Go).

let server: KcpGoServer | undefined;
let relay: LossyRelay | undefined;
beforeAll(async () => void (await kcpTestServerBinary()), 10 * 60_000);
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = server = undefined;
});

/** Messages of `i:` and then filler to a seeded size from 1 to `maxBytes`, each different. */
function messages(count: number, maxBytes: number): Buffer[] {
  const random = seededRandom(`kcp messages ${count} ${maxBytes}`);
  return Array.from({ length: count }, (_, i) => {
    const head = `${i}:`;
    const size = Math.max(head.length, 1 + Math.floor(random() * maxBytes));
    const message = Buffer.alloc(size, 97 + (i % 26));
    message.write(head);
    return message;
  });
}

/** Opens one connection, sends every message at once and collects what comes back until `expected` messages did. */
function exchange(
  target: KcpTarget,
  sent: (Buffer | string)[],
  expected = sent.length,
  stats = new KcpStats(),
): Promise<{ received: Buffer[]; stats: KcpStats }> {
  const received: Buffer[] = [];
  return new Promise((resolve, reject) => {
    let connection: TransportConnection | undefined;
    connection = kcpTransport(target, { stats }).open({
      onOpen: () => {
        for (const message of sent) connection!.send(message);
      },
      onMessage(data) {
        received.push(Buffer.from(data));
        if (received.length === expected) void connection!.close().then(() => resolve({ received, stats }));
      },
      onEnd: (end) => end.error && reject(end.error),
    });
  });
}

const len2: TcpFraming = { kind: "length-prefix", headerBytes: 2 };
/** Messages as text, which toEqual compares at once (it walks a Buffer byte by byte). */
const texts = (list: Buffer[]) => list.map((message) => message.toString("latin1"));

describe("KCP against kcp-go's echo server", () => {
  it("message mode: 400 messages of 1 to 1376 bytes (one segment each), all sent at once, come back once each, in order, whole", async () => {
    server = await startKcpGoServer("echo");
    const sent = messages(400, 1376);
    const { received, stats } = await exchange({ protocol: "kcp", host: "127.0.0.1", port: server.port }, sent);
    expect(texts(received)).toEqual(texts(sent));
    expect(stats.payloadBytesReceived).toBe(sent.reduce((sum, m) => sum + m.length, 0));
  });

  it("message mode: a message of 5,000 bytes goes as 4 fragments and kcp-go reads it as one message", async () => {
    server = await startKcpGoServer("echo");
    const big = `size?${"x".repeat(4_995)}`;
    const { received } = await exchange({ protocol: "kcp", host: "127.0.0.1", port: server.port }, ["size?small", big]);
    expect(received.map(String)).toEqual(["size=10", "size=5000"]);
  });

  it("stream mode: 400 messages framed by a 2-byte length prefix come back once each, in order", async () => {
    server = await startKcpGoServer("echo", { stream: true });
    const sent = messages(400, 3_000);
    const { received } = await exchange(
      { protocol: "kcp", host: "127.0.0.1", port: server.port, stream: true, framing: len2 },
      sent,
    );
    expect(texts(received)).toEqual(texts(sent));
  });

  it("a fixed conversation id is the one on the wire, and kcp-go answers on it", async () => {
    server = await startKcpGoServer("echo");
    const { received } = await exchange(
      { protocol: "kcp", host: "127.0.0.1", port: server.port, conv: 4_000_000_001 },
      ["fixed"],
    );
    expect(received.map(String)).toEqual(["fixed"]);
  });
});

describe("KCP against kcp-go through a network losing 10% of datagrams each way, 20 ms each way", () => {
  it.each([
    ["message", false],
    ["stream", true],
  ])(
    "%s mode: 300 messages arrive once each and in order; the losses are retransmitted and counted",
    async (_, stream) => {
      server = await startKcpGoServer("echo", { stream, mode: "fast" });
      relay = await startLossyRelay(
        { host: "127.0.0.1", port: server.port },
        { lossPercent: 10, delayMs: 20, seed: `kcp loss ${stream}` },
      );
      const sent = messages(300, 1_000);
      const target: KcpTarget = stream
        ? { protocol: "kcp", host: "127.0.0.1", port: relay.port, stream: true, framing: len2 }
        : { protocol: "kcp", host: "127.0.0.1", port: relay.port };
      const { received, stats } = await exchange(target, sent);
      expect(texts(received)).toEqual(texts(sent));
      expect(relay.dropped).toBeGreaterThan(10);
      expect(stats.retransmits).toBeGreaterThan(0);
      expect(stats.retransmits).toBe(stats.fastRetransmits + stats.rtoExpiries);
      expect(stats.wireBytesSent).toBeGreaterThan(stats.payloadBytesSent);
      console.log(
        `[kcp ${_} mode, 10% loss] relay dropped ${relay.dropped} of ${relay.dropped + relay.forwarded} datagrams; Throng retransmitted ${stats.retransmits} segments (fast ${stats.fastRetransmits}, RTO ${stats.rtoExpiries}); wire ${stats.wireBytesSent} B for ${stats.payloadBytesSent} B of payload`,
      );
    },
    60_000,
  );
});
