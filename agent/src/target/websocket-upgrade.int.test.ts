import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTarget } from "./target-server";

/** The ws library as the client: random mask keys, its own fragmentation, pings and close handshake. */
function connect(url: string, protocols: string[] = []): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { perMessageDeflate: false });
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}
function next(socket: WebSocket): Promise<{ data: string; binary: boolean }> {
  return new Promise((resolve) => socket.once("message", (data, binary) => resolve({ data: String(data), binary })));
}

describe("reference target's own WebSocket server, with the ws library as the client", () => {
  it("unmasks random-key frames, answers pings as JSON pongs, echoes binary as binary and joins fragments", async () => {
    const target = await startTarget({ port: 0 });
    try {
      const socket = await connect(target.url, ["game.v1", "game.v2"]);
      expect(socket.protocol).toBe("game.v1");
      let answer = next(socket);
      socket.send('{"type":"ping","seq":41}');
      expect(await answer).toEqual({ data: '{"type":"pong","seq":41}', binary: false });
      answer = next(socket);
      socket.send(Buffer.from("raw bytes"), { binary: true });
      expect(await answer).toEqual({ data: "raw bytes", binary: true });
      answer = next(socket);
      socket.send("frag", { fin: false });
      socket.send("mented", { fin: true });
      expect(await answer).toEqual({ data: "fragmented", binary: false });
      const big = "y".repeat(200_000);
      answer = next(socket);
      socket.send(big);
      expect((await answer).data).toBe(big);
      const pong = new Promise<string>((resolve) => socket.once("pong", (data) => resolve(String(data))));
      socket.ping("hello?");
      expect(await pong).toBe("hello?");
      const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
      socket.close(1000);
      expect(await closed).toBe(1000);
      expect(target.stats().accepted).toBe(1);
    } finally {
      await target.close();
    }
  });

  it("refuses an upgrade past the client limit with 503, and serves /stats over plain HTTP", async () => {
    const target = await startTarget({ port: 0, maxClients: 1 });
    try {
      const first = await connect(target.url);
      await expect(connect(target.url)).rejects.toThrow(/503/);
      const stats = (await (await fetch(`http://127.0.0.1:${target.port}/stats`)).json()) as { clients: number };
      expect(stats.clients).toBe(1);
      first.terminate();
    } finally {
      await target.close();
    }
  });
});
