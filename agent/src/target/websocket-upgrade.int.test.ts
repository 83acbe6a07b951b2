import { connect as connectTcp } from "node:net";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { useReferenceTarget } from "../testing/reference-target.test-support";

const startTestTarget = useReferenceTarget();

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
    const target = await startTestTarget({ port: 0 });
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
  });

  it("refuses an upgrade past the client limit with 503, and serves /stats over plain HTTP", async () => {
    const target = await startTestTarget({ port: 0, maxClients: 1 });
    const first = await connect(target.url);
    await expect(connect(target.url)).rejects.toThrow(/503/);
    const stats = (await (await fetch(`http://127.0.0.1:${target.port}/stats`)).json()) as { clients: number };
    expect(stats.clients).toBe(1);
    first.terminate();
  });
});

/** Sends raw bytes over TCP and collects everything until the target closes the connection. */
function rawExchange(port: number, bytes: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connectTcp({ host: "127.0.0.1", port }, () => socket.write(bytes));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });
}

describe("reference target's HTTP front (its own request parsing, on the native path when loaded)", () => {
  it("answers a plain GET with 426, a bad upgrade with 400, non-HTTP bytes with 400 at once, and an endless head with 431", async () => {
    const target = await startTestTarget({ port: 0 });
    expect(await rawExchange(target.port, "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(
      /^HTTP\/1\.1 426 [\s\S]*connect to ws:\/\/host:port\/ws/,
    );
    expect(
      await rawExchange(
        target.port,
        "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n",
      ),
    ).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rawExchange(target.port, Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05]))).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rawExchange(target.port, `GET /ws HTTP/1.1\r\nX-Long: ${"a".repeat(20_000)}`)).toMatch(
      /^HTTP\/1\.1 431 /,
    );
    expect(target.stats().accepted).toBe(0);
  });

  it("handles frames that arrive in the same read as the upgrade request", async () => {
    const target = await startTestTarget({ port: 0 });
    const request =
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    const ping = Buffer.from('{"type":"ping","seq":7}');
    // A masked text frame with a zero key, then a close frame: the answer and the close handshake follow.
    const frame = Buffer.concat([
      Buffer.from([0x81, 0x80 | ping.length, 0, 0, 0, 0]),
      ping,
      Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]),
    ]);
    const reply = await rawExchange(target.port, Buffer.concat([Buffer.from(request), frame]));
    expect(reply).toMatch(/^HTTP\/1\.1 101 [\s\S]*Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/);
    expect(reply).toContain('{"type":"pong","seq":7}');
  });

  it("delayed echoes go out in order with the bytes they were given, though the reads they came in are reused meanwhile", async () => {
    const target = await startTestTarget({ port: 0, delayMs: 30 });
    const socket = await connect(target.url);
    const echoes: string[] = [];
    socket.on("message", (data) => echoes.push(String(data)));
    const sent = Array.from({ length: 50 }, (_, i) => `message ${i} ${"z".repeat(i)}`);
    for (const message of sent) {
      socket.send(message);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 200 && echoes.length < sent.length; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // Intact, and in order: replies wait in one queue, so two due microseconds apart cannot swap.
    expect(echoes).toEqual(sent);
    socket.terminate();
  });
});
