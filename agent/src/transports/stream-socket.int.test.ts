import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listenNative, nativeIo, openNativeSocket } from "./native-io";
import {
  listenNode,
  openNodeSocket,
  openStreamSocket,
  type ListenEndpoint,
  type OnStreamConnection,
  type StreamEndpoint,
  type StreamServer,
  type StreamSocket,
} from "./stream-socket";

/**
 * One contract, two implementations: the native I/O path (dist/throng-io.node) and Node's net.Socket must behave
 * alike to the TCP and lean ws:// transports above them. Real sockets on loopback, no mocks.
 */

type Open = typeof openNodeSocket;

interface Recorded {
  socket: StreamSocket;
  connected: Promise<void>;
  closed: Promise<Error | undefined>;
  received: () => Buffer;
  closes: () => number;
}

function record(
  open: Open,
  endpoint: StreamEndpoint,
  onData?: (socket: StreamSocket, chunk: Buffer) => void,
): Recorded {
  const chunks: Buffer[] = [];
  let closes = 0;
  let connected!: () => void;
  let closed!: (error: Error | undefined) => void;
  const result: Recorded = {
    socket: undefined as unknown as StreamSocket,
    connected: new Promise<void>((resolve) => (connected = resolve)),
    closed: new Promise<Error | undefined>((resolve) => (closed = resolve)),
    received: () => Buffer.concat(chunks),
    closes: () => closes,
  };
  result.socket = open(endpoint, {
    onConnect: () => connected(),
    onData(chunk) {
      // The chunk is a view of a reused buffer: copy it to keep it.
      chunks.push(Buffer.from(chunk));
      onData?.(result.socket, chunk);
    },
    onClose(error) {
      closes += 1;
      closed(error);
    },
  });
  return result;
}

async function listen(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

async function echoServer(): Promise<number> {
  const { server, port } = await listen((socket) =>
    socket.on("data", (data) => socket.write(data)).on("error", () => {}),
  );
  servers.push(server);
  return port;
}

describe("the native I/O path", () => {
  it("is built and loaded on Linux (else `node agent/build.mjs` says why it could not be built)", () => {
    expect(process.platform).toBe("linux");
    expect(nativeIo()).toEqual({ kind: "native" });
  });

  it("times a client's read by when its bytes arrived (the kernel's stamp), not when a busy process read them", async () => {
    expect(nativeIo().kind).toBe("native");
    const BUSY_MS = 50;
    let writtenAt = 0;
    let accepted = 0;
    const { server, port } = await listen((socket) => {
      socket.on("error", () => {});
      accepted += 1;
      if (accepted === 1) return;
      socket.write("tick");
      writtenAt = performance.now();
      // The process is busy (as an agent sending a slot's pings is) while the bytes wait in the client's socket.
      while (performance.now() - writtenAt < BUSY_MS);
    });
    servers.push(server);
    const handlers = { onConnect() {}, onData() {}, onClose() {} };
    // The kernel turns its packet stamps on a moment after the first socket asks for them (deferred work): a
    // first connection asks, and stays open so they stay on.
    const first = openNativeSocket({ host: "127.0.0.1", port }, handlers);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stamp = await new Promise<{ receivedAt: number; calledAt: number }>((resolve) => {
      const socket = openNativeSocket(
        { host: "127.0.0.1", port },
        {
          ...handlers,
          onData(_chunk, receivedAt) {
            resolve({ receivedAt, calledAt: performance.now() });
            socket.destroy();
          },
        },
      );
    });
    first.destroy();
    // Arrived during the server's write; read at least BUSY_MS later.
    expect(stamp.calledAt - writtenAt).toBeGreaterThanOrEqual(BUSY_MS);
    expect(stamp.receivedAt).toBeLessThanOrEqual(writtenAt + 1);
    expect(stamp.receivedAt).toBeGreaterThan(writtenAt - BUSY_MS);
  });
});

describe.each<[string, Open]>([
  [
    "native",
    (endpoint, handlers) =>
      nativeIo().kind === "native" ? openStreamSocket(endpoint, handlers) : openNativeSocket(endpoint, handlers),
  ],
  ["node", openNodeSocket],
])("stream socket (%s)", (_name, open) => {
  it("connects, echoes, and a FIN after end() closes it without an error, once", async () => {
    const port = await echoServer();
    const client = record(open, { host: "127.0.0.1", port }, (socket, chunk) => {
      if (chunk.includes(0x21)) socket.end();
    });
    await client.connected;
    client.socket.write(Buffer.from("hello"));
    client.socket.write(Buffer.from(" world!"));
    expect(await client.closed).toBeUndefined();
    expect(client.received().toString()).toBe("hello world!");
    expect(client.closes()).toBe(1);
    expect(client.socket.destroyed).toBe(true);
  });

  it("stamps each read with when it was made, on performance.now()'s clock", async () => {
    const port = await echoServer();
    const stamps: { receivedAt: number; calledAt: number }[] = [];
    let sentAt = 0;
    const done = new Promise<void>((resolve) => {
      const socket = open(
        { host: "127.0.0.1", port },
        {
          onConnect() {
            sentAt = performance.now();
            socket.write(Buffer.from("tick"));
          },
          onData(_chunk, receivedAt) {
            stamps.push({ receivedAt, calledAt: performance.now() });
            socket.end();
          },
          onClose: () => resolve(),
        },
      );
    });
    await done;
    expect(stamps).toHaveLength(1);
    // Read after the send, and no later than the callback that hands the bytes over.
    expect(stamps[0]!.receivedAt).toBeGreaterThan(sentAt);
    expect(stamps[0]!.receivedAt).toBeLessThanOrEqual(stamps[0]!.calledAt);
  });

  it("reports a refused connect as ECONNREFUSED from connect", async () => {
    const { server, port } = await listen(() => {});
    await new Promise((resolve) => server.close(resolve));
    const client = record(open, { host: "127.0.0.1", port });
    const error = (await client.closed) as NodeJS.ErrnoException;
    expect(error.code).toBe("ECONNREFUSED");
    expect(error.syscall).toBe("connect");
  });

  it("closes without an error when the peer ends the connection", async () => {
    const { server, port } = await listen((socket) => socket.end("bye"));
    servers.push(server);
    const client = record(open, { host: "127.0.0.1", port });
    expect(await client.closed).toBeUndefined();
    expect(client.received().toString()).toBe("bye");
  });

  it("reports a reset by the peer as ECONNRESET", async () => {
    const { server, port } = await listen((socket) => socket.once("data", () => socket.resetAndDestroy()));
    servers.push(server);
    const client = record(open, { host: "127.0.0.1", port });
    await client.connected;
    client.socket.write(Buffer.from("x"));
    expect(((await client.closed) as NodeJS.ErrnoException).code).toBe("ECONNRESET");
  });

  it("destroy(error) closes at once and passes the error on; later writes do nothing", async () => {
    const port = await echoServer();
    const client = record(open, { host: "127.0.0.1", port });
    await client.connected;
    const cause = new Error("stop");
    client.socket.destroy(cause);
    client.socket.write(Buffer.from("after"));
    expect(await client.closed).toBe(cause);
    expect(client.closes()).toBe(1);
  });

  it("delivers a write larger than the socket buffers to a slow reader, in order, before its FIN", async () => {
    const size = 8 * 1024 * 1024;
    const payload = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4) payload.writeUInt32LE(i, i);
    const done = new Promise<Buffer>((resolve) => {
      void listen((socket) => {
        socket.pause();
        // Read slowly at first, so the client's writes find the kernel's buffers full.
        setTimeout(() => socket.resume(), 200);
        const parts: Buffer[] = [];
        socket.on("data", (data) => parts.push(data)).on("end", () => resolve(Buffer.concat(parts)));
      }).then(({ server, port }) => {
        servers.push(server);
        const client = record(open, { host: "127.0.0.1", port });
        void client.connected.then(() => {
          client.socket.write(payload.subarray(0, size / 2));
          client.socket.write(payload.subarray(size / 2));
          client.socket.end();
        });
      });
    });
    const got = await done;
    expect(got.length).toBe(size);
    expect(got.equals(payload)).toBe(true);
  });

  it("resolves a host name (localhost) and connects to the address it names", async () => {
    const server = createServer((socket) => socket.end("by name"));
    await new Promise<void>((resolve) => server.listen(0, "localhost", resolve));
    servers.push(server);
    const client = record(open, { host: "localhost", port: (server.address() as { port: number }).port });
    expect(await client.closed).toBeUndefined();
    expect(client.received().toString()).toBe("by name");
  });

  it("closes with the lookup's error when a host name does not resolve", async () => {
    const client = record(open, { host: "no-such-host.invalid", port: 80 });
    expect(((await client.closed) as NodeJS.ErrnoException).code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });

  it("reads everything a fast peer sends in one go, many times the size of one read, then its FIN", async () => {
    const size = 4 * 1024 * 1024 + 17;
    const payload = Buffer.alloc(size);
    for (let i = 0; i < size; i += 1) payload[i] = (i * 7) & 0xff;
    const { server, port } = await listen((socket) => socket.end(payload));
    servers.push(server);
    const client = record(open, { host: "127.0.0.1", port });
    expect(await client.closed).toBeUndefined();
    expect(client.received().equals(payload)).toBe(true);
  });

  it("binds the local address and port it is given, and names a port in use EADDRINUSE", async () => {
    let seen: { address: string; port: number } | undefined;
    const { server, port } = await listen((socket) => {
      seen = { address: socket.remoteAddress!, port: socket.remotePort! };
      socket.end();
    });
    servers.push(server);
    const holder = await listen(() => {});
    servers.push(holder.server);
    const first = record(open, { host: "127.0.0.1", port, localAddress: "127.0.0.2", localPort: 0 });
    expect(await first.closed).toBeUndefined();
    expect(seen?.address).toBe("127.0.0.2");
    // A listening socket holds holder.port on 127.0.0.1: binding it must fail as a port in use.
    const taken = record(open, { host: "127.0.0.1", port, localAddress: "127.0.0.1", localPort: holder.port });
    expect(((await taken.closed) as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
  });

  it("a connection opened while a batch is handled never receives another's end from that batch", async () => {
    // The server writes to A and resets B in one tick, so the client reads both in one batch, A first. A's
    // handler opens C; C must not be handed B's reset (an id freed when B failed, reused by C).
    const peers: Socket[] = [];
    let bothIn!: () => void;
    const both = new Promise<void>((resolve) => (bothIn = resolve));
    const { server, port } = await listen((socket) => {
      socket.on("error", () => {});
      if (peers.push(socket) === 2) bothIn();
    });
    servers.push(server);
    const echoPort = await echoServer();
    let third: Recorded | undefined;
    const a = record(open, { host: "127.0.0.1", port }, () => {
      third ??= record(open, { host: "127.0.0.1", port: echoPort }, (socket) => socket.end());
    });
    const b = record(open, { host: "127.0.0.1", port });
    await Promise.all([a.connected, b.connected, both]);
    peers[0]!.write("to a");
    peers[1]!.resetAndDestroy();
    expect(((await b.closed) as NodeJS.ErrnoException).code).toBe("ECONNRESET");
    await waitFor(() => third !== undefined);
    await third!.connected;
    third!.socket.write(Buffer.from("c"));
    expect(await third!.closed).toBeUndefined();
    expect(third!.received().toString()).toBe("c");
    a.socket.destroy();
  });

  it("keeps 500 connections apart: each gets only its own bytes back", async () => {
    const port = await echoServer();
    const clients = Array.from({ length: 500 }, () =>
      record(open, { host: "127.0.0.1", port }, (socket, chunk) => {
        if (chunk.includes(0x0a)) socket.end();
      }),
    );
    await Promise.all(clients.map((client) => client.connected));
    for (const [i, client] of clients.entries()) client.socket.write(Buffer.from(`client ${i}\n`));
    await Promise.all(clients.map((client) => client.closed));
    for (const [i, client] of clients.entries()) expect(client.received().toString()).toBe(`client ${i}\n`);
  });
});

type Listen = (endpoint: ListenEndpoint, onConnection: OnStreamConnection) => Promise<StreamServer>;

/** A plain net.Socket client: what it read, and how it closed. */
function client(
  port: number,
  send?: string,
): { socket: Socket; received: () => string; closed: Promise<string | undefined> } {
  const chunks: Buffer[] = [];
  const socket = connect({ host: "127.0.0.1", port }, () => send !== undefined && socket.write(send));
  socket.on("data", (chunk) => chunks.push(chunk));
  let error: string | undefined;
  socket.on("error", (cause: NodeJS.ErrnoException) => (error = cause.code));
  return {
    socket,
    received: () => Buffer.concat(chunks).toString(),
    closed: new Promise((resolve) => socket.once("close", () => resolve(error))),
  };
}

describe("native stream server", () => {
  it("closes the connections accepted in the same batch as the one whose handler closed the listener", async () => {
    expect(nativeIo()).toEqual({ kind: "native" });
    let server: StreamServer | undefined;
    let served = 0;
    server = listenNative({ host: "127.0.0.1", port: 0, backlog: 511 }, (socket) => {
      served += 1;
      server?.close();
      socket.end();
      return { onData() {}, onClose() {} };
    });
    const clients = Array.from({ length: 5 }, () => client(server!.port));
    // Let the connects go out, then hold the event loop while the kernel completes every handshake: all five are
    // accepted in one pass and handed over in one batch.
    await new Promise((resolve) => setImmediate(resolve));
    const until = performance.now() + 100;
    while (performance.now() < until) {
      // Busy on purpose: the handshakes complete meanwhile.
    }
    await Promise.all(clients.map((each) => each.closed));
    expect(served).toBe(1);
  });
});

describe.each<[string, Listen]>([
  // nativeIo() loads the addon (once per process), as listenStream does before it listens natively.
  [
    "native",
    async (endpoint, onConnection) => {
      nativeIo();
      return listenNative(endpoint, onConnection);
    },
  ],
  ["node", listenNode],
])("stream server (%s)", (_name, listen) => {
  const open: StreamServer[] = [];
  afterEach(() => {
    for (const server of open.splice(0)) server.close();
  });
  const echo = async (onClose?: (error: Error | undefined) => void) => {
    const server = await listen({ host: "127.0.0.1", port: 0, backlog: 511 }, (socket) => ({
      onData: (chunk) => socket.write(Buffer.from(chunk)),
      onClose: (error) => onClose?.(error),
    }));
    open.push(server);
    return server;
  };

  it("listens on a free port, echoes each accepted connection's own bytes, and a client's FIN closes it without an error", async () => {
    const closes: (Error | undefined)[] = [];
    const server = await echo((error) => closes.push(error));
    expect(server.port).toBeGreaterThan(0);
    const clients = Array.from({ length: 200 }, (_, i) => client(server.port, `client ${i}\n`));
    await waitFor(() => clients.every((each, i) => each.received() === `client ${i}\n`));
    for (const each of clients) each.socket.end();
    await Promise.all(clients.map((each) => each.closed));
    await waitFor(() => closes.length === 200);
    expect(closes.every((error) => error === undefined)).toBe(true);
  });

  it("reads bytes that come with the client's FIN, then closes (one edge for both on the native path)", async () => {
    const received: string[] = [];
    let closed!: () => void;
    const done = new Promise<void>((resolve) => (closed = resolve));
    const server = await listen({ host: "127.0.0.1", port: 0, backlog: 511 }, () => ({
      onData: (chunk) => received.push(chunk.toString()),
      onClose: () => closed(),
    }));
    open.push(server);
    const socket = connect({ host: "127.0.0.1", port: server.port }, () => socket.end("last words"));
    await done;
    expect(received.join("")).toBe("last words");
  });

  it("names a port in use EADDRINUSE", async () => {
    const server = await echo();
    await expect(
      listen({ host: "127.0.0.1", port: server.port, backlog: 511 }, () => ({ onData() {}, onClose() {} })),
    ).rejects.toMatchObject({ code: "EADDRINUSE" });
  });

  it("reset() refuses an accepted connection with a TCP reset", async () => {
    const server = await listen({ host: "127.0.0.1", port: 0, backlog: 511 }, (socket) => {
      socket.reset();
      return { onData() {}, onClose() {} };
    });
    open.push(server);
    const refused = client(server.port, "hello");
    expect(await refused.closed).toBe("ECONNRESET");
  });

  it("close() stops accepting, and connections already accepted stay open", async () => {
    const server = await echo();
    const first = client(server.port, "before\n");
    await waitFor(() => first.received() === "before\n");
    server.close();
    expect(await client(server.port).closed).toBe("ECONNREFUSED");
    first.socket.write("after\n");
    await waitFor(() => first.received() === "before\nafter\n");
    first.socket.end();
    await first.closed;
  });
});
