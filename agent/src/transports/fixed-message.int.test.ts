import { describe, expect, it } from "vitest";
import { startTarget } from "../target/target-server";
import { roundTrip, TCP_FRAMINGS } from "../testing/round-trip";
import { tcpTransport } from "./tcp";
import { FixedMessage, type Transport } from "./transport";
import { udpTransport } from "./udp";
import { webSocketTransport } from "./websocket";

describe("FixedMessage", () => {
  it("is framed once per framing and re-framed for another", () => {
    const message = new FixedMessage(Buffer.from("abc"));
    const framings: string[] = [];
    const encode = (tag: string) => (payload: Buffer) => {
      framings.push(tag);
      return Buffer.concat([Buffer.from(tag), payload]);
    };
    const first = message.framed("len2", encode("len2"));
    expect(message.framed("len2", encode("len2"))).toBe(first);
    expect(message.framed("ws", encode("ws")).toString()).toBe("wsabc");
    expect(framings).toEqual(["len2", "ws"]);
  });

  it.each(TCP_FRAMINGS)(
    "goes out whole, again and again, on several TCP connections at once (framing %j)",
    async (framing) => {
      const target = await startTarget({ port: 0, tcp: { port: 0, framing } });
      const transport = tcpTransport({ protocol: "tcp", host: "127.0.0.1", port: target.tcpPort!, framing });
      const message = new FixedMessage(Buffer.from("eeeeeeee"));
      try {
        // Three connections, each sending the same buffer five times back to back: every echo must be the payload.
        const echoes = await Promise.all(
          [0, 1, 2].map(
            () =>
              new Promise<string[]>((resolve, reject) => {
                const got: string[] = [];
                const connection = transport.open({
                  onOpen: () => {
                    for (let i = 0; i < 5; i += 1) connection.send(message);
                  },
                  onMessage: (data) => got.push(data.toString()) === 5 && void connection.close(),
                  onEnd: (end) => (end.error ? reject(end.error) : resolve(got)),
                });
              }),
          ),
        );
        expect(echoes).toEqual([0, 1, 2].map(() => Array(5).fill("eeeeeeee")));
      } finally {
        await target.close();
      }
    },
  );

  it.each<[string, (target: Awaited<ReturnType<typeof startTarget>>) => Transport]>([
    ["the lean WebSocket client (text)", (target) => webSocketTransport({ protocol: "websocket", url: target.url })],
    [
      "the lean WebSocket client (binary)",
      (target) => webSocketTransport({ protocol: "websocket", url: target.url, frames: "binary" }),
    ],
    ["the ws library", (target) => webSocketTransport({ protocol: "websocket", url: target.url, client: "ws" })],
    ["UDP", (target) => udpTransport({ protocol: "udp", host: "127.0.0.1", port: target.udpPort! })],
  ])("is answered like the same bytes sent plainly over %s", async (_name, transportFor) => {
    const target = await startTarget({ port: 0, udp: { port: 0 } });
    try {
      const reply = await roundTrip(transportFor(target), new FixedMessage(Buffer.from('{"type":"ping","seq":9}')));
      expect(JSON.parse(reply.toString())).toMatchObject({ type: "pong", seq: 9 });
    } finally {
      await target.close();
    }
  });
});
