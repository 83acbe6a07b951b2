import { readFileSync } from "node:fs";

/**
 * The engine's own local ports. A connect() without a bound port makes Linux search its ephemeral range for a
 * port whose 4-tuple is free (__inet_hash_connect → __inet_check_established), and past ~14,000 connections from
 * one address to one target that search walks thousands of ports per connect: it was 40% of the agent's CPU at
 * 19.5k clients. Binding an explicit address and port first makes connect() O(1). Each engine process walks its own
 * slice of the range with a cursor per source address.
 *
 * Ports come from the kernel's ephemeral range (ip_local_port_range): servers do not listen there, so a bound
 * port never blocks a service from starting; and only from its upper part (agentPortRange), so the kernel keeps
 * ports for every other connection on the host. A port someone else holds fails with EADDRINUSE (bind) or
 * EADDRNOTAVAIL (connect: the same 4-tuple is open or in TIME_WAIT) and the connection tries the next one, at
 * most MAX_PORT_ATTEMPTS times. A closed connection's port goes back to the pool at once and is reached again
 * only after the cursor wraps. TIME_WAIT stays with whichever side sent the first FIN: a WebSocket server closes
 * TCP first after the close handshake (RFC 6455 §7.1.1; the reference target does), so the port is free; a raw
 * TCP client that ends first holds it for 60 s. Binding such a port works (libuv sets SO_REUSEADDR) and connect()
 * then reuses the TIME_WAIT on loopback (net.ipv4.tcp_tw_reuse=2, the default) or fails with EADDRNOTAVAIL
 * toward other hosts, which is skipped like any taken port. Holding ports for 60 s instead would cap connection
 * churn at ~470/s per address, far below what a login storm opens on loopback.
 */

export interface PortRange {
  first: number;
  last: number;
}

/** Linux's default ephemeral range, used when /proc cannot be read. */
const DEFAULT_RANGE: PortRange = { first: 32768, last: 60999 };
/** Tries per connection before it fails as "no-local-port"; each try moves the cursor on. */
export const MAX_PORT_ATTEMPTS = 16;

/** The kernel's ephemeral port range. */
export function kernelPortRange(path = "/proc/sys/net/ipv4/ip_local_port_range"): PortRange {
  try {
    const [first, last] = readFileSync(path, "utf8").trim().split(/\s+/).map(Number);
    if (first && last && first <= last) return { first, last };
  } catch {
    // Not Linux: the default range below.
  }
  return DEFAULT_RANGE;
}

/**
 * Ports of the kernel's range the engine never binds: a port bound explicitly (by us, on any address) is one the
 * kernel's own choice for every other connect() on the host skips (__inet_hash_connect passes over a port whose
 * bind bucket came from bind()), so when an engine's binds covered the whole range, every other process's outgoing
 * connection (the agent's own to its server, a database client) failed with EADDRNOTAVAIL. A quarter of the range,
 * at least 4,096 ports, is left to the kernel.
 */
export const KERNEL_SHARE = 0.25;
const KERNEL_MIN_PORTS = 4_096;

/** The part of the kernel's ephemeral range the engines bind from: its upper part, the lower KERNEL_SHARE left to the kernel. */
export function agentPortRange(kernel: PortRange = kernelPortRange()): PortRange {
  const size = kernel.last - kernel.first + 1;
  const kept = Math.min(size - 1, Math.max(KERNEL_MIN_PORTS, Math.ceil(size * KERNEL_SHARE)));
  return { first: kernel.first + kept, last: kernel.last };
}

/** Part `index` of `count` disjoint, contiguous parts of `range`, so engine processes never pick the same port. */
export function portSlice(range: PortRange, index: number, count: number): PortRange {
  const size = range.last - range.first + 1;
  if (count < 1 || index < 0 || index >= count || count > size)
    throw new Error(`port slice ${index} of ${count} does not fit ${range.first}-${range.last}`);
  return {
    first: range.first + Math.floor((size * index) / count),
    last: range.first + Math.floor((size * (index + 1)) / count) - 1,
  };
}

/** A connection that found no port to bind: the run needs more source addresses (or a wider range). */
export function noLocalPort(address: string, range: PortRange): Error {
  return Object.assign(
    new Error(
      `no free local port on ${address} in ${range.first}-${range.last}: add --source-addresses (e.g. 127.0.0.2,127.0.0.3) to spread the clients`,
    ),
    {
      code: "ENOLOCALPORT",
    },
  );
}

/** A port someone else holds: worth trying the next one. */
export function isPortTaken(error: Error | undefined): boolean {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return code === "EADDRINUSE" || (code === "EADDRNOTAVAIL" && syscall === "connect");
}

/** One engine's ports: per source address a cursor over its slice, skipping ports its own open connections hold. */
export class LocalPorts {
  private readonly cursors = new Map<string, number>();
  private readonly held = new Map<string, Set<number>>();
  private readonly size: number;
  private readonly exhausted = new Set<string>();

  constructor(
    readonly range: PortRange,
    /** Ports never to bind (the target's own, on a loopback target). */
    private readonly excluded: ReadonlySet<number> = new Set(),
    /** Where each address's cursor starts, as a fraction of the slice: a random start keeps back-to-back runs off each other's TIME_WAITs. */
    private readonly random: () => number = Math.random,
    /** Told once per address when its slice is full, with the error's text. */
    private readonly onExhausted?: (message: string) => void,
  ) {
    this.size = range.last - range.first + 1;
  }

  /** The next free port on `address`, or undefined when every port of the slice is held. */
  take(address: string): number | undefined {
    let held = this.held.get(address);
    if (!held) {
      held = new Set();
      this.held.set(address, held);
    }
    let offset = this.cursors.get(address) ?? Math.floor(this.random() * this.size);
    // Bounded: one pass over the slice at most.
    for (let step = 0; step < this.size; step++, offset = (offset + 1) % this.size) {
      const port = this.range.first + offset;
      if (held.has(port) || this.excluded.has(port)) continue;
      held.add(port);
      this.cursors.set(address, (offset + 1) % this.size);
      return port;
    }
    if (!this.exhausted.has(address)) {
      this.exhausted.add(address);
      this.onExhausted?.(noLocalPort(address, this.range).message);
    }
    return undefined;
  }

  /** Gives a port back once its connection has ended. */
  release(address: string, port: number): void {
    this.held.get(address)?.delete(port);
  }

  /** Ports held on `address` now. */
  inUse(address: string): number {
    return this.held.get(address)?.size ?? 0;
  }
}

/** The local end of one connection across its attempts: a new port per attempt, the old one given back. */
export class PortLease {
  private attempts = 0;
  private port: number | undefined;

  constructor(
    private readonly ports: LocalPorts,
    readonly address: string,
  ) {}

  /** Bind options for the next attempt, or the error saying the slice is full. */
  next(): { localAddress: string; localPort: number } | Error {
    this.release();
    this.attempts += 1;
    const port = this.ports.take(this.address);
    if (port === undefined) return noLocalPort(this.address, this.ports.range);
    this.port = port;
    return { localAddress: this.address, localPort: port };
  }

  /** Whether a connect that failed with `error` should try again from another port. */
  retries(error: Error | undefined): boolean {
    return isPortTaken(error) && this.attempts < MAX_PORT_ATTEMPTS;
  }

  release(): void {
    if (this.port !== undefined) this.ports.release(this.address, this.port);
    this.port = undefined;
  }
}
