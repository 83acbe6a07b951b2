import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { startTarget } from "../target/target-server";
import { causeOf, type TransportConnection, type TransportEnd } from "./transport";
import { webSocketTransport } from "./websocket";

/** A plain ws server (the library the lean client must interoperate with), closed after each test. */
let open: { http: Server; wss: WebSocketServer } | undefined;
async function wsServer(onConnection: (socket: WebSocket) => void): Promise<string> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on("connection", onConnection);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  open = { http, wss };
  return `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
}
afterEach(async () => {
  if (!open) return;
  for (const client of open.wss.clients) client.terminate();
  open.wss.close();
  open.http.closeAllConnections();
  await new Promise<void>((resolve) => open!.http.close(() => resolve()));
  open = undefined;
});

interface Session {
  connection: TransportConnection;
  opened: Promise<void>;
  messages: Buffer[];
  nextMessage(): Promise<Buffer>;
  ended: Promise<TransportEnd>;
}

/** Opens a lean connection that copies every message (they are views of a reused buffer). */
function session(url: string, extra: { frames?: "text" | "binary" } = {}): Session {
  const messages: Buffer[] = [];
  const waiters: ((data: Buffer) => void)[] = [];
  let resolveOpen!: () => void;
  let resolveEnd!: (end: TransportEnd) => void;
  const opened = new Promise<void>((resolve) => (resolveOpen = resolve));
  const ended = new Promise<TransportEnd>((resolve) => (resolveEnd = resolve));
  const connection = webSocketTransport({ protocol: "websocket", url, client: "lean", ...extra }).open({
    onOpen: resolveOpen,
    onMessage(data) {
      const copy = Buffer.from(data);
      const waiter = waiters.shift();
      if (waiter) waiter(copy);
      else messages.push(copy);
    },
    onEnd: resolveEnd,
  });
  const nextMessage = () =>
    messages.length ? Promise.resolve(messages.shift()!) : new Promise<Buffer>((resolve) => waiters.push(resolve));
  return { connection, opened, messages, nextMessage, ended };
}

describe("lean WebSocket client against a plain ws server", () => {
  it("sends text and binary frames the server reads as such", async () => {
    const seen: { text: string; binary: boolean }[] = [];
    const url = await wsServer((socket) =>
      socket.on("message", (data, binary) => seen.push({ text: String(data), binary })),
    );
    const text = session(url);
    const binary = session(url, { frames: "binary" });
    await Promise.all([text.opened, binary.opened]);
    expect(text.connection.send("héllo")).toBe(true);
    expect(binary.connection.send(new Uint8Array([104, 105]))).toBe(true);
    await Promise.all([text.connection.close(), binary.connection.close()]);
    expect(seen.sort((a, b) => a.text.length - b.text.length)).toEqual([
      { text: "hi", binary: true },
      { text: "héllo", binary: false },
    ]);
  });

  it("sends and receives messages of every length encoding (7-bit, 16-bit, 64-bit) split across many reads", async () => {
    const url = await wsServer((socket) => socket.on("message", (data) => socket.send(data as Buffer)));
    const client = session(url, { frames: "binary" });
    await client.opened;
    for (const size of [0, 125, 126, 65_535, 65_536, 3 * 1024 * 1024 + 7]) {
      const payload = Buffer.alloc(size);
      for (let i = 0; i < size; i += 1) payload[i] = (i * 31 + size) & 0xff;
      client.connection.send(payload);
      const echoed = await client.nextMessage();
      expect(echoed.length).toBe(size);
      expect(echoed.equals(payload)).toBe(true);
    }
    await client.connection.close();
  });

  it("reassembles a fragmented message, answers pings with pongs, and ignores unsolicited pongs", async () => {
    let pongPayload: Promise<string> | undefined;
    const url = await wsServer((socket) => {
      pongPayload = new Promise((resolve) => socket.once("pong", (data) => resolve(String(data))));
      socket.ping("are-you-there");
      socket.pong("unasked");
      socket.send("frag-", { fin: false });
      socket.send("men-", { fin: false });
      socket.send("ted", { fin: true });
      socket.send("whole");
    });
    const client = session(url);
    await client.opened;
    expect(String(await client.nextMessage())).toBe("frag-men-ted");
    expect(String(await client.nextMessage())).toBe("whole");
    expect(await pongPayload).toBe("are-you-there");
    await client.connection.close();
  });

  it("reports a close frame from the server as a clean close by the peer, and answers it", async () => {
    let serverSawCode: Promise<number> | undefined;
    const url = await wsServer((socket) => {
      serverSawCode = new Promise((resolve) => socket.on("close", (code) => resolve(code)));
      socket.close(4001, "bye");
    });
    const client = session(url);
    const end = await client.ended;
    expect(end).toEqual({ opened: true, byPeer: true });
    expect(await serverSawCode).toBe(4001);
  });

  it("closes with code 1000 when asked, and the end is not the peer's", async () => {
    let serverSawCode: Promise<number> | undefined;
    const url = await wsServer((socket) => {
      serverSawCode = new Promise((resolve) => socket.on("close", (code) => resolve(code)));
    });
    const client = session(url);
    await client.opened;
    await client.connection.close();
    expect(await client.ended).toEqual({ opened: true });
    expect(await serverSawCode).toBe(1000);
    expect(client.connection.send("late")).toBe(false);
  });

  it("fails the connection on a frame a server must not send (reserved bits set)", async () => {
    const url = await wsServer((socket) => {
      const raw = (socket as unknown as { _socket: Socket })._socket;
      raw.write(Buffer.from([0xc1, 0x01, 0x78]));
    });
    const client = session(url);
    const end = await client.ended;
    expect(end.opened).toBe(true);
    expect(end.error?.message).toMatch(/reserved bits/);
  });

  it("refuses a handshake answer with the wrong subprotocol, and reports a refused port as refused", async () => {
    const http = createServer();
    http.on("upgrade", (_request, socket) => {
      socket.end(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: nope\r\n\r\n",
      );
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const port = (http.address() as AddressInfo).port;
    try {
      const bad = session(`ws://127.0.0.1:${port}/`);
      const end = await bad.ended;
      expect(end.opened).toBe(false);
      expect(causeOf(end.error!)).toBe("handshake");
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
    const refused = await session(`ws://127.0.0.1:${port}/`).ended;
    expect(refused.opened).toBe(false);
    expect(causeOf(refused.error!)).toBe("refused");
  });
});

describe("lean WebSocket client against the reference target", () => {
  it("plays ping-pong with the target's JSON pongs over both clients alike", async () => {
    const target = await startTarget({ port: 0 });
    try {
      for (const client of ["lean", "ws"] as const) {
        const answers: string[] = [];
        await new Promise<void>((resolve, reject) => {
          const connection = webSocketTransport({ protocol: "websocket", url: target.url, client }).open({
            onOpen: () => connection.send('{"type":"ping","seq":7,"rb":40}'),
            onMessage(data) {
              answers.push(data.toString());
              void connection.close().then(resolve);
            },
            onEnd: (end) => end.opened || reject(end.error),
          });
        });
        expect(answers).toEqual([`{"type":"pong","seq":7,"pad":"${"x".repeat(40 - 32)}"}`]);
      }
    } finally {
      await target.close();
    }
  });
});
