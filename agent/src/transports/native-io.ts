import { constants } from "node:os";
import type { IoPreference } from "../env";
import { requireNativeAddon } from "../native-addon";
import type {
  AcceptedHandlers,
  ListenEndpoint,
  OnAcceptError,
  OnStreamConnection,
  StreamEndpoint,
  StreamServer,
  StreamSocket,
  StreamSocketHandlers,
} from "./stream-socket";

/**
 * The native I/O path (agent/native/throng_io.c, built to dist/throng-io.node). Node's own sockets cost the agent
 * a JavaScript call per read through the stream machinery and a Writable, a WriteWrap and a uv_try_write per
 * write; here every ready socket of one event-loop turn is read into one arena and handed over in one call, each
 * read with the time its bytes arrived (the kernel's stamp on a client socket), and a write is one send(). THRONG_IO=node chooses Node's sockets; THRONG_IO=native makes a missing addon an error
 * (read with the rest of the environment in cli/main.ts, see preferIo).
 */

interface Addon {
  init(
    onBatch: (count: number, hrNowMs: number) => void,
    arena: Buffer,
    records: Int32Array,
    times: Float64Array,
  ): number;
  connect(host: string, port: number, localAddress?: string, localPort?: number): number;
  write(id: number, data: Uint8Array): number;
  end(id: number): number;
  close(id: number, reset?: boolean): number;
  listen(host: string, port: number, backlog: number, reusePort?: boolean): number;
  localPort(id: number): number;
  resumeAccepting(id: number): number;
  raiseNofile(): number;
  readonly BIND_FAILED: number;
  readonly EV_CONNECTED: number;
  readonly EV_DATA: number;
  readonly EV_END: number;
  readonly EV_ERROR: number;
  readonly EV_ACCEPT: number;
  readonly EV_ACCEPT_PAUSED: number;
}

export type IoPath = { kind: "native" } | { kind: "node"; reason: string };

const ADDON_FILE = "throng-io.node";
const ARENA_BYTES = 1024 * 1024;
const MAX_RECORDS = 4096;

let preference: IoPreference = "auto";
let path: IoPath | undefined;
let addon: Addon;
let arena: Buffer;
let records: Int32Array;
/** Per record, when its bytes arrived (the kernel's stamp) or, without one, were read: uv_hrtime() in ms. */
let times: Float64Array;
const sockets: (NativeSocket | undefined)[] = [];
const listeners: (NativeListener | undefined)[] = [];
/** How long a listener out of file descriptors waits before it accepts again (as long as libuv's accept retry). */
const ACCEPT_RETRY_MS = 100;

let loaded: Addon | string | undefined;

/** The addon (loaded once; its socket driver starts only with nativeIo), or why it could not be loaded. */
function loadAddon(): Addon | string {
  loaded ??= requireAddon();
  return loaded;
}

function requireAddon(): Addon | string {
  const found = requireNativeAddon<Addon>(ADDON_FILE);
  if ("addon" in found) return found.addon;
  return `${ADDON_FILE} not loaded (${found.reasons}); build it with \`node agent/build.mjs\` (needs a C compiler and Node's headers)`;
}

/**
 * Raises this process's soft open-file limit to its hard one with setrlimit (agent/native/throng_io.c): the soft
 * limit after it, -errno when the call failed, or why the addon is not there (then engine/open-files.ts uses prlimit).
 */
export function raiseNofileNatively(): number | string {
  if (process.platform !== "linux") return `the native addon is Linux-only (this is ${process.platform})`;
  const addon = loadAddon();
  return typeof addon === "string" ? addon : addon.raiseNofile();
}

/** The environment's choice (THRONG_IO), set once at startup before any connection is opened. */
export function preferIo(wanted: IoPreference): void {
  if (path) throw new Error("the I/O path is chosen already: set the preference before opening connections");
  preference = wanted;
}

/** Which I/O path this process uses, chosen at its first connection. */
export function nativeIo(): IoPath {
  path ??= chooseIoPath();
  return path;
}

function chooseIoPath(): IoPath {
  const wanted = preference;
  if (wanted === "node") return { kind: "node", reason: "THRONG_IO=node" };
  if (process.platform !== "linux")
    return { kind: "node", reason: `the native I/O path is Linux-only (this is ${process.platform})` };
  const loaded = loadAddon();
  if (typeof loaded === "string") {
    if (wanted === "native") throw new Error(`THRONG_IO=native but ${loaded}`);
    return { kind: "node", reason: loaded };
  }
  addon = loaded;
  arena = Buffer.allocUnsafeSlow(ARENA_BYTES);
  records = new Int32Array(MAX_RECORDS * 4);
  times = new Float64Array(MAX_RECORDS);
  const rc = addon.init(onBatch, arena, records, times);
  if (rc < 0) throw errnoError(-rc, "epoll_create");
  return { kind: "native" };
}

/** One line for a run's output: which I/O path TCP and ws:// connections take, and why when not the native one. */
export function ioPathNote(): string {
  const chosen = nativeIo();
  if (chosen.kind === "native")
    return "I/O: native (one epoll set, reads handed over in batches) for TCP and ws://; wss:// and UDP use Node's sockets";
  return `I/O: Node's sockets (${chosen.reason})`;
}

/**
 * One batch of events, in the order the sockets were read: (kind, id, a, b) records. `hrNowMs` is the addon's
 * clock as it called: with performance.now() taken here it turns each read's time into a performance.now() time
 * (off by the microseconds the call took, the same for every record).
 */
function onBatch(count: number, hrNowMs: number): void {
  const clockOffsetMs = hrNowMs - performance.now();
  for (let i = 0; i < count; i += 1) {
    const at = i * 4;
    const socket = sockets[records[at + 1]!];
    const kind = records[at]!;
    if (socket === undefined) {
      // A listener's record; or a socket closed earlier in this batch (its id is not reused before the batch ends).
      if (kind === addon.EV_ACCEPT || kind === addon.EV_ACCEPT_PAUSED) {
        const listener = listeners[records[at + 1]!];
        if (listener) listener.event(kind, records[at + 2]!);
        // Accepted as its listener was closed earlier in this batch: nobody will serve it.
        else if (kind === addon.EV_ACCEPT) addon.close(records[at + 2]!);
      }
      continue;
    }
    if (kind === addon.EV_DATA) {
      const from = records[at + 2]!;
      socket.handlers.onData(arena.subarray(from, from + records[at + 3]!), times[i]! - clockOffsetMs);
    } else if (kind === addon.EV_CONNECTED) {
      socket.connected = true;
      socket.handlers.onConnect();
    } else {
      // EV_END (the peer's FIN) or EV_ERROR: the addon has closed the socket already.
      socket.gone(
        kind === addon.EV_ERROR
          ? errnoError(records[at + 2]!, socket.connected ? "read" : "connect", socket.endpoint)
          : undefined,
      );
    }
  }
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, errno]) => [errno, name]));

/** An error shaped like Node's own socket errors (code, errno, syscall), so causeOf and the port lease read it alike. */
function errnoError(errno: number, syscall: string, endpoint?: StreamEndpoint): NodeJS.ErrnoException {
  const code = ERRNO_NAMES.get(errno) ?? `E${errno}`;
  const where = endpoint ? ` ${endpoint.host}:${endpoint.port}` : "";
  return Object.assign(new Error(`${syscall} ${code}${where}`), { code, errno: -errno, syscall });
}

/** The errno in an addon call's failed result: -errno, offset by BIND_FAILED when bind() was the call that failed. */
const errnoOf = (rc: number) => (-rc >= addon.BIND_FAILED ? -rc - addon.BIND_FAILED : -rc);

/** A failed connect as a Node-style error, naming bind when binding the local end was what failed. */
function connectError(rc: number, endpoint: StreamEndpoint): NodeJS.ErrnoException {
  return errnoError(errnoOf(rc), -rc >= addon.BIND_FAILED ? "bind" : "connect", endpoint);
}

class NativeSocket implements StreamSocket {
  destroyed = false;
  private id = -1;

  /** `id`: the addon's id for the socket, or the -errno its opening failed with. */
  constructor(
    readonly endpoint: StreamEndpoint,
    public handlers: StreamSocketHandlers,
    id: number,
    public connected = false,
  ) {
    if (id < 0) {
      this.gone(connectError(id, endpoint));
      return;
    }
    this.id = id;
    sockets[id] = this;
  }

  write(data: Uint8Array): void {
    if (this.id < 0) return;
    const rc = addon.write(this.id, data);
    if (rc < 0) this.destroy(errnoError(-rc, "write", this.endpoint));
  }

  end(): void {
    if (this.id < 0) return;
    const rc = addon.end(this.id);
    if (rc < 0) this.destroy(errnoError(-rc, "shutdown", this.endpoint));
  }

  destroy(error?: Error): void {
    if (this.id >= 0) addon.close(this.id);
    this.gone(error);
  }

  reset(): void {
    if (this.id >= 0) addon.close(this.id, true);
    this.gone(undefined);
  }

  /** The socket is closed (by us or the addon): forget its id and report the close after the current call, as net does. */
  gone(error: Error | undefined): void {
    if (this.destroyed) return;
    this.destroyed = true;
    if (this.id >= 0) sockets[this.id] = undefined;
    this.id = -1;
    process.nextTick(() => this.handlers.onClose(error));
  }
}

export function openNativeSocket(endpoint: StreamEndpoint, handlers: StreamSocketHandlers): StreamSocket {
  const { host, port, localAddress, localPort } = endpoint;
  return new NativeSocket(endpoint, handlers, addon.connect(host, port, localAddress, localPort));
}

const NO_HANDLERS: StreamSocketHandlers = { onConnect() {}, onData() {}, onClose() {} };

class NativeListener implements StreamServer {
  private closed = false;

  constructor(
    private readonly id: number,
    readonly port: number,
    private readonly endpoint: StreamEndpoint,
    private readonly onConnection: OnStreamConnection,
    private readonly onAcceptError: OnAcceptError | undefined,
  ) {
    listeners[id] = this;
  }

  event(kind: number, value: number): void {
    if (kind === addon.EV_ACCEPT) {
      // Its data records can only come in a later batch: the new socket is in the epoll set from the next pass.
      const socket = new NativeSocket(this.endpoint, NO_HANDLERS, value, true);
      const handlers: AcceptedHandlers = this.onConnection(socket);
      socket.handlers = { onConnect() {}, onData: handlers.onData, onClose: handlers.onClose };
    } else {
      // Out of file descriptors: connections wait in the backlog meanwhile.
      this.onAcceptError?.(errnoError(value, "accept", this.endpoint));
      setTimeout(() => this.closed || addon.resumeAccepting(this.id), ACCEPT_RETRY_MS);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    listeners[this.id] = undefined;
    addon.close(this.id);
  }
}

/** Listens on the native path: each accepted connection is handed to `onConnection`, which returns its handlers. */
export function listenNative(
  endpoint: ListenEndpoint,
  onConnection: OnStreamConnection,
  onAcceptError?: OnAcceptError,
): StreamServer {
  const id = addon.listen(endpoint.host, endpoint.port, endpoint.backlog, endpoint.reusePort === true);
  // Named as Node names a failed listen (a port in use: "listen EADDRINUSE"), whichever call it was.
  if (id < 0) throw errnoError(errnoOf(id), "listen", endpoint);
  const port = addon.localPort(id);
  if (port < 0) {
    addon.close(id);
    throw errnoError(-port, "getsockname", endpoint);
  }
  return new NativeListener(id, port, { host: endpoint.host, port }, onConnection, onAcceptError);
}
