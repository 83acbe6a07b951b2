import { describe, expect, it } from "vitest";
import { startTarget } from "../target/target-server";
import type { TransportEnd } from "./transport";
import { webSocketTransport } from "./websocket";

function ended(url: string): Promise<TransportEnd> {
  return new Promise((resolve) => {
    webSocketTransport.open(url, { onOpen() {}, onMessage() {}, onEnd: resolve });
  });
}

describe("WebSocket transport", () => {
  it("reports a URL that ws rejects as a failed connection instead of throwing", async () => {
    const end = await ended("ws://127.0.0.1:notaport/ws");
    expect(end.opened).toBe(false);
    expect(end.error).toBeInstanceOf(Error);
  });

  it("echoes a binary frame through the reference target and closes gracefully", async () => {
    const target = await startTarget({ port: 0 });
    try {
      const received = await new Promise<Buffer>((resolve) => {
        const connection = webSocketTransport.open(target.url, {
          onOpen: () => connection.send(new Uint8Array([1, 2, 3])),
          onMessage: (data) => {
            resolve(data);
            void connection.close();
          },
          onEnd() {},
        });
      });
      expect([...received]).toEqual([1, 2, 3]);
    } finally {
      await target.close();
    }
  });
});
