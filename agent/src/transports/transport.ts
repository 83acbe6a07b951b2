import { PortLease, type LocalPorts } from "./local-ports";
import type { KcpStats } from "./kcp";
import type { DatagramStage } from "./udp";

/**
 * The one interface every load transport implements: WebSocket, TCP (framed) and UDP.
 * Transports only move whole messages: they know nothing of scenarios, metrics or the control plane.
 */

/** How a connection ended; `opened` tells a failed connect from a close after success. */
export interface TransportEnd {
  opened: boolean;
  error?: Error;
  /** The peer ended it (a close frame, FIN or reset) rather than us. */
  byPeer?: boolean;
}

/**
 * Callbacks a scenario gives when it opens a connection. Called as methods: the events may be a class instance (the
 * engine's own clients are, scenario.ts), whose methods a spread `{ ...events }` would drop.
 */
export interface TransportEvents {
  onOpen(): void;
  /**
   * One whole message: a WebSocket message, one framed TCP message or one datagram. `data` may be a view of a
   * read buffer the transport reuses: it is valid during this call only; copy it to keep it. `receivedAt`
   * (performance.now() time) is when the bytes that completed it arrived (see StreamSocketHandlers.onData), the
   * receive time every latency uses.
   */
  onMessage(data: Buffer, receivedAt: number): void;
  /** Called exactly once, whether the connection failed, was closed by the peer or by us. */
  onEnd(end: TransportEnd): void;
}

/**
 * A message sent many times unchanged (echo-flood's default payload). A stream transport frames it once and writes
 * the same bytes on every send, instead of a new frame buffer and a copy of the payload per send (per-echo garbage
 * in an echo flood). The bytes are only ever read, so one buffer can be in flight on many sockets at once; never
 * change `payload` after creating the message.
 */
export class FixedMessage {
  private framing: unknown;
  private wire: Buffer | undefined;

  constructor(readonly payload: Buffer) {}

  /** The framed bytes for the framing `framing` names (built on first use; another framing builds them anew). */
  framed(framing: unknown, encode: (payload: Buffer) => Buffer): Buffer {
    if (this.wire === undefined || this.framing !== framing) {
      this.wire = encode(this.payload);
      this.framing = framing;
    }
    return this.wire;
  }
}

/** What a connection sends: text, bytes, or a fixed message framed once. */
export type OutgoingMessage = string | Uint8Array | FixedMessage;

export interface TransportConnection {
  /** Sends one message in one send call; false when the connection is not open (nothing was sent). */
  send(data: OutgoingMessage): boolean;
  /** Closes gracefully, forcing it after `timeoutMs`; resolves once the connection has ended. */
  close(timeoutMs?: number): Promise<void>;
}

export interface OpenOptions {
  /** Local IP to bind, to spread connections over several loopback addresses' ephemeral ports. */
  localAddress?: string;
  /** With localAddress: bind a port from the engine's own allocator too, so connect() does no port search. */
  localPorts?: LocalPorts;
  /** Datagram transports (UDP, KCP): the client's datagrams pass this stage (its cohort's network). */
  datagramStage?: DatagramStage;
  /** KCP: count this connection's figures here rather than in the transport's (its cohort's own). */
  kcpStats?: KcpStats;
}

/** The local end a transport binds, attempt by attempt: the lease is undefined when the kernel picks the port. */
export function localEnd(options: OpenOptions): {
  lease?: PortLease;
  next(): { localAddress?: string; localPort?: number } | Error;
} {
  const { localAddress, localPorts } = options;
  if (localAddress && localPorts) {
    const lease = new PortLease(localPorts, localAddress);
    return { lease, next: () => lease.next() };
  }
  return { next: () => (localAddress ? { localAddress } : {}) };
}

export interface Transport {
  /** Starts connecting at once to the transport's target; failures arrive through `events.onEnd`, never as a throw. */
  open(events: TransportEvents, options?: OpenOptions): TransportConnection;
}

/** Why a connection failed or ended badly, in the words a report uses. */
export type EndCause =
  | "refused"
  | "timeout"
  | "reset"
  | "handshake"
  | "unreachable"
  | "limit"
  | "no-local-port"
  | "protocol"
  | "error";

/** Classifies an error from any transport (Node's errno codes, ws handshake errors). */
export function causeOf(error: Error): EndCause {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  if (code === "ECONNREFUSED") return "refused";
  if (code === "ETIMEDOUT" || /timed? ?out/i.test(error.message)) return "timeout";
  if (code === "ECONNRESET" || code === "EPIPE" || /socket hang up/i.test(error.message)) return "reset";
  if (code === "EADDRNOTAVAIL" || code === "ENETUNREACH" || code === "EHOSTUNREACH") return "unreachable";
  if (code === "EMFILE" || code === "ENFILE") return "limit";
  // The peer broke the stream's framing (framing.ts's FramingError).
  if (code === "ERR_FRAMING") return "protocol";
  // Every port tried was taken, or the engine's slice is full (local-ports.ts).
  if (code === "ENOLOCALPORT" || code === "EADDRINUSE") return "no-local-port";
  if (/unexpected server response|invalid|handshake|sec-websocket/i.test(error.message)) return "handshake";
  // wss:// certificate failures (DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID, ...) fail the TLS handshake.
  if (/CERT|TLS|SSL/.test(code) || /certificate/i.test(error.message)) return "handshake";
  return "error";
}

/** A connection that failed before it existed (a bad address), reported like any failure. */
export function failedConnection(events: TransportEvents, error: Error): TransportConnection {
  const ended = new Promise<void>((resolve) => setImmediate(resolve));
  setImmediate(() => events.onEnd({ opened: false, error }));
  return { send: () => false, close: () => ended };
}
