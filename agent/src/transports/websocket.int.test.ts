import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { startTarget } from "../target/target-server";
import { roundTrip } from "../testing/round-trip";
import type { Transport, TransportEnd } from "./transport";
import { webSocketTransport } from "./websocket";

function ended(transport: Transport): Promise<TransportEnd> {
  return new Promise((resolve) => {
    transport.open({ onOpen() {}, onMessage() {}, onEnd: resolve });
  });
}

describe("WebSocket transport", () => {
  it("reports a URL that ws rejects as a failed connection instead of throwing", async () => {
    const end = await ended(webSocketTransport({ protocol: "websocket", url: "ws://127.0.0.1:notaport/ws" }));
    expect(end.opened).toBe(false);
    expect(end.error).toBeInstanceOf(Error);
  });

  it("echoes a binary frame through the reference target and closes gracefully", async () => {
    const target = await startTarget({ port: 0 });
    try {
      const received = await roundTrip(
        webSocketTransport({ protocol: "websocket", url: target.url }),
        new Uint8Array([1, 2, 3]),
      );
      expect([...received]).toEqual([1, 2, 3]);
    } finally {
      await target.close();
    }
  });

  it("sends the plan's headers and subprotocols in the handshake, and binary frames when asked", async () => {
    const http = createServer();
    const wss = new WebSocketServer({ server: http, handleProtocols: (protocols) => [...protocols][1] ?? false });
    const seen = new Promise<{ auth: string | undefined; protocol: string; binary: boolean }>((resolve) => {
      wss.on("connection", (socket, request) => {
        socket.on("message", (data, isBinary) => {
          resolve({ auth: request.headers.authorization, protocol: socket.protocol, binary: isBinary });
          socket.send(data);
        });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/game`;
      const transport = webSocketTransport({
        protocol: "websocket",
        url,
        headers: { authorization: "Bearer t0k" },
        subprotocols: ["v1.game", "v2.game"],
        frames: "binary",
      });
      await roundTrip(transport, "hello");
      expect(await seen).toEqual({ auth: "Bearer t0k", protocol: "v2.game", binary: true });
    } finally {
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it("reports a refused handshake (target at its client limit) as a failure with cause handshake", async () => {
    const target = await startTarget({ port: 0, maxClients: 0 });
    try {
      const end = await ended(webSocketTransport({ protocol: "websocket", url: target.url }));
      expect(end.opened).toBe(false);
      const { causeOf } = await import("./transport");
      expect(causeOf(end.error!)).toBe("handshake");
    } finally {
      await target.close();
    }
  });
});
