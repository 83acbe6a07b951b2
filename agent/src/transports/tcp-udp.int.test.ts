import { createSocket } from "node:dgram";
import { describe, expect, it } from "vitest";
import type { TcpFraming } from "@throng/protocol/plan";
import { startTarget } from "../target/target-server";
import { tcpTransport } from "./tcp";
import type { TransportEnd } from "./transport";
import { causeOf } from "./transport";
import { udpTransport } from "./udp";
import { roundTrip, TCP_FRAMINGS, tcpPing } from "../testing/round-trip";

describe("TCP transport against the reference target", () => {
  it.each(TCP_FRAMINGS)("answers a ping with its pong over framing %j", async (framing) => {
    expect(await tcpPing(framing, 7)).toMatchObject({ type: "pong", seq: 7 });
  });

  it("binds the source address it is given (127.0.0.2) and counts a refused connect as refused", async () => {
    const framing: TcpFraming = { kind: "delimiter" };
    const target = await startTarget({ port: 0, tcp: { port: 0, framing } });
    const transport = tcpTransport({ protocol: "tcp", host: "127.0.0.1", port: target.tcpPort!, framing });
    const local = await new Promise<string>((resolve) => {
      const connection = transport.open(
        { onOpen: () => connection.send("x"), onMessage: () => void connection.close(), onEnd: () => resolve("ended") },
        { localAddress: "127.0.0.2" },
      );
    });
    expect(local).toBe("ended");
    await target.close();
    const end = await new Promise<TransportEnd>((resolve) =>
      transport.open({ onOpen() {}, onMessage() {}, onEnd: resolve }),
    );
    expect(end.opened).toBe(false);
    expect(causeOf(end.error!)).toBe("refused");
  });
});

describe("UDP transport", () => {
  it("sends one datagram per message and receives the target's reply", async () => {
    const target = await startTarget({ port: 0, udp: { port: 0 } });
    try {
      const reply = await roundTrip(
        udpTransport({ protocol: "udp", host: "127.0.0.1", port: target.udpPort! }),
        '{"type":"ping","seq":3}',
      );
      expect(JSON.parse(reply.toString())).toMatchObject({ type: "pong", seq: 3 });
    } finally {
      await target.close();
    }
  });

  it("keeps each message a separate datagram", async () => {
    const server = createSocket("udp4");
    const datagrams: string[] = [];
    const got = new Promise<void>((resolve) =>
      server.on("message", (m) => datagrams.push(m.toString()) === 3 && resolve()),
    );
    await new Promise<void>((resolve) => server.bind(0, "127.0.0.1", resolve));
    const transport = udpTransport({ protocol: "udp", host: "127.0.0.1", port: server.address().port });
    const connection = transport.open({
      onOpen: () => {
        for (const m of ["a", "bb", "ccc"]) connection.send(m);
      },
      onMessage() {},
      onEnd() {},
    });
    await got;
    expect(datagrams).toEqual(["a", "bb", "ccc"]);
    await connection.close();
    server.close();
  });
});
