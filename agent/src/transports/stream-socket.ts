import { lookup } from "node:dns";
import { lookup as lookupAddress } from "node:dns/promises";
import { connect, createServer, isIP, type AddressInfo, type Socket } from "node:net";
import { listenNative, openNativeSocket, nativeIo } from "./native-io";
import { sharedRead } from "./read-buffer";

/**
 * The byte stream under the TCP and lean ws:// transports: one TCP connection, either on the native I/O path
 * (native-io.ts: one epoll set, reads handed over in batches) or on Node's net.Socket. Both behave alike: events
 * after the call that caused them, one `onClose` per socket, and a peer's FIN closes the connection.
 */

export interface StreamEndpoint {
  host: string;
  port: number;
  localAddress?: string;
  localPort?: number;
}

export interface StreamSocketHandlers {
  onConnect(): void;
  /**
   * Bytes read; a view of a reused buffer, valid during this call only. `receivedAt` (performance.now() time) is
   * when they arrived: on the native path the kernel's stamp of the newest packet read (a client socket; else the
   * read itself), which may be well before this call; on Node's sockets, this call.
   */
  onData(chunk: Buffer, receivedAt: number): void;
  /** Exactly once: the socket is gone (closed by either side, or never connected); `error` says why it failed. */
  onClose(error: Error | undefined): void;
}

export interface StreamSocket {
  /** Destroyed, or closed by the peer: writes now do nothing. */
  readonly destroyed: boolean;
  write(data: Uint8Array): void;
  /** Half-closes our side once everything written has gone; the close follows the peer's FIN. */
  end(): void;
  /** Closes at once, dropping anything unsent; `error` is passed to onClose. */
  destroy(error?: Error): void;
  /** Closes at once with a TCP reset (RST), as a server refusing a connection past its limit does. */
  reset(): void;
}

export interface ListenEndpoint {
  /** An IP address, or a host name (resolved once, as net.Server.listen does). */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Connections the kernel queues before they are accepted (capped by net.core.somaxconn). */
  backlog: number;
  /** SO_REUSEPORT: other processes may listen on the same port (native path only; Node 20's net cannot). */
  reusePort?: boolean;
}

/** An accepted connection's handlers: it is connected already. */
export type AcceptedHandlers = Pick<StreamSocketHandlers, "onData" | "onClose">;
export type OnStreamConnection = (socket: StreamSocket) => AcceptedHandlers;
/**
 * Accepting failed for want of file descriptors (EMFILE, ENFILE); the listener keeps trying. On the native path
 * that is every 100 ms, connections waiting in the backlog meanwhile. On Node's net, libuv accepts and drops them
 * (its spare-descriptor trick) without a word, and only a failure of that trick gets here.
 */
export type OnAcceptError = (error: NodeJS.ErrnoException) => void;

export interface StreamServer {
  readonly port: number;
  /** Stops listening; connections already accepted stay open. */
  close(): void;
}

/** Opens one connection on the native path when it is loaded (a host name resolved first, as net does); else on net. */
export function openStreamSocket(endpoint: StreamEndpoint, handlers: StreamSocketHandlers): StreamSocket {
  if (nativeIo().kind !== "native") return openNodeSocket(endpoint, handlers);
  if (isIP(endpoint.host)) return openNativeSocket(endpoint, handlers);
  return openNativeByName(endpoint, handlers);
}

/**
 * A native connection to a host name: resolved per connection with dns.lookup, as net.connect does (the first
 * address, in the family of the local address when one is bound), then opened on the native path. A failed
 * lookup closes it with the lookup's error (ENOTFOUND, …), as on net.
 */
function openNativeByName(endpoint: StreamEndpoint, handlers: StreamSocketHandlers): StreamSocket {
  let socket: StreamSocket | undefined;
  let closed = false;
  const close = (error: Error | undefined) => {
    if (closed) return;
    closed = true;
    process.nextTick(() => handlers.onClose(error));
  };
  const family = endpoint.localAddress ? isIP(endpoint.localAddress) : 0;
  lookup(endpoint.host, { family }, (error, address) => {
    if (closed) return;
    if (error) return close(error);
    socket = openNativeSocket({ ...endpoint, host: address }, handlers);
  });
  return {
    get destroyed() {
      return closed || (socket?.destroyed ?? false);
    },
    write: (data) => socket?.write(data),
    end: () => (socket ? socket.end() : close(undefined)),
    destroy: (error) => (socket ? socket.destroy(error) : close(error)),
    reset: () => (socket ? socket.reset() : close(undefined)),
  };
}

export function openNodeSocket(endpoint: StreamEndpoint, handlers: StreamSocketHandlers): StreamSocket {
  let error: Error | undefined;
  const { host, port, localAddress, localPort } = endpoint;
  const socket = connect({
    host,
    port,
    noDelay: true,
    ...(localAddress ? { localAddress } : {}),
    ...(localPort ? { localPort } : {}),
    onread: sharedRead((chunk) => handlers.onData(chunk, performance.now())),
  });
  socket.once("connect", () => handlers.onConnect());
  socket.on("error", (cause) => {
    error ??= cause;
  });
  socket.once("close", () => handlers.onClose(error));
  return nodeStreamSocket(socket);
}

function nodeStreamSocket(socket: Socket): StreamSocket {
  return {
    get destroyed() {
      return socket.destroyed;
    },
    write: (data) => void socket.write(data),
    end: () => void socket.end(),
    destroy: (cause) => void socket.destroy(cause),
    reset: () => void socket.resetAndDestroy(),
  };
}

/** Listens for TCP connections on the native path when it is loaded, else on net; each is handed to `onConnection`. */
export async function listenStream(
  endpoint: ListenEndpoint,
  onConnection: OnStreamConnection,
  onAcceptError?: OnAcceptError,
): Promise<StreamServer> {
  if (nativeIo().kind !== "native") return listenNode(endpoint, onConnection, onAcceptError);
  // A host name is resolved once, as net.Server.listen does; the native path binds addresses only.
  const host = isIP(endpoint.host) ? endpoint.host : (await lookupAddress(endpoint.host)).address;
  return listenNative({ ...endpoint, host }, onConnection, onAcceptError);
}

export function listenNode(
  endpoint: ListenEndpoint,
  onConnection: OnStreamConnection,
  onAcceptError?: OnAcceptError,
): Promise<StreamServer> {
  if (endpoint.reusePort)
    return Promise.reject(
      new Error(
        "several processes on one port need the native I/O path (SO_REUSEPORT); it is not loaded here (THRONG_IO)",
      ),
    );
  // A peer's FIN closes the connection (allowHalfOpen false), as on the native path.
  const server = createServer({ noDelay: true }, (socket) => {
    let error: Error | undefined;
    const handlers = onConnection(nodeStreamSocket(socket));
    socket.on("data", (chunk) => handlers.onData(chunk, performance.now()));
    socket.on("error", (cause) => {
      error ??= cause;
    });
    socket.once("close", () => handlers.onClose(error));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: endpoint.host, port: endpoint.port, backlog: endpoint.backlog }, () => {
      server.off("error", reject);
      // Once listening, net reports a failed accept as an error event: it goes to onAcceptError when there is
      // one (with none it crashes the process, as any unhandled error does, rather than vanish).
      if (onAcceptError) server.on("error", onAcceptError);
      resolve({ port: (server.address() as AddressInfo).port, close: () => void server.close() });
    });
  });
}
