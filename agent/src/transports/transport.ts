/**
 * The one interface every load transport implements (WebSocket now; TCP and UDP later).
 * Transports only move bytes: they know nothing of scenarios, metrics or the control plane.
 */

/** How a connection ended; `opened` tells a failed connect from a close after success. */
export interface TransportEnd {
  opened: boolean;
  error?: Error;
}

/** Callbacks a scenario gives when it opens a connection. */
export interface TransportEvents {
  onOpen(): void;
  onMessage(data: Buffer): void;
  /** Called exactly once, whether the connection failed, was closed by the peer or by us. */
  onEnd(end: TransportEnd): void;
}

export interface TransportConnection {
  /** Sends one frame; false when the connection is not open (nothing was sent). */
  send(data: string | Uint8Array): boolean;
  /** Closes gracefully, forcing it after `timeoutMs`; resolves once the connection has ended. */
  close(timeoutMs?: number): Promise<void>;
}

export interface Transport {
  /** Starts connecting at once; failures arrive through `events.onEnd`, never as a throw. */
  open(url: string, events: TransportEvents): TransportConnection;
}
