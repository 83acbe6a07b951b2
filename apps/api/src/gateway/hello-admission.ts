/** Caps on gateway connections that have not yet said hello (docs/fault-tests.md, "Connection flood"). */
export interface HelloLimits {
  /** Connections waiting for hello, all sources together; past it an upgrade is refused with 503. */
  maxPending: number;
  /** Connections waiting for hello from one source address; past it an upgrade is refused with 429. */
  maxPendingPerAddress: number;
  /** Beyond this many waiting connections a new one gets `busyHelloTimeoutMs` to say hello instead of `helloTimeoutMs`. */
  softPending: number;
  helloTimeoutMs: number;
  busyHelloTimeoutMs: number;
  /** Extra slots above `maxPending` for upgrades that prove an agent credential, so enrolled agents get in during a flood. */
  reservedForCredentials: number;
}

export type Admission =
  | { admitted: true; helloTimeoutMs: number; release(): void }
  | { admitted: false; status: 429 | 503; reason: string; retryAfterSec: number };

/**
 * Counts connections between upgrade and hello, overall and per source address. A slot is held from the upgrade
 * until the hello is accepted or the socket closes, whichever comes first (`release` is idempotent).
 */
export function createHelloAdmission(limits: HelloLimits) {
  let pending = 0;
  let reserved = 0;
  const byAddress = new Map<string, number>();

  function hold(address: string, fromReserve: boolean): Admission {
    pending += 1;
    if (fromReserve) reserved += 1;
    byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
    let held = true;
    return {
      admitted: true,
      helloTimeoutMs: pending > limits.softPending ? limits.busyHelloTimeoutMs : limits.helloTimeoutMs,
      release() {
        if (!held) return;
        held = false;
        pending -= 1;
        if (fromReserve) reserved -= 1;
        const left = (byAddress.get(address) ?? 1) - 1;
        if (left > 0) byAddress.set(address, left);
        else byAddress.delete(address);
      },
    };
  }

  const retryAfterSec = () => Math.max(1, Math.ceil(limits.busyHelloTimeoutMs / 1000));

  return {
    /** Whether an anonymous upgrade may wait for its hello; `proven` says the upgrade proved an agent credential. */
    admit(address: string, proven = false): Admission {
      // A proven credential is not held to its address's cap: rigs share NAT addresses with whatever floods.
      if (proven) {
        if (pending - reserved < limits.maxPending) return hold(address, false);
        if (reserved < limits.reservedForCredentials) return hold(address, true);
      }
      if ((byAddress.get(address) ?? 0) >= limits.maxPendingPerAddress) {
        return {
          admitted: false,
          status: 429,
          retryAfterSec: retryAfterSec(),
          reason: `too many connections from ${address} waiting for hello (at most ${limits.maxPendingPerAddress}); retry later`,
        };
      }
      if (pending - reserved < limits.maxPending) return hold(address, false);
      return {
        admitted: false,
        status: 503,
        retryAfterSec: retryAfterSec(),
        reason: `the agent gateway has ${pending} connections waiting for hello (at most ${limits.maxPending}); retry later`,
      };
    },
    pending: () => pending,
  };
}
export type HelloAdmission = ReturnType<typeof createHelloAdmission>;

/** Loopback and private-network peers (RFC 1918, IPv6 unique-local), where a load balancer would sit. */
function isPrivatePeer(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(v4) || address === "::1" || /^f[cd]/i.test(address);
}

/**
 * The address a connection's hello caps count against. X-Forwarded-For is believed only from a private-network peer
 * (a load balancer in front of the API): from anyone else it costs nothing to forge, and a flooder could give every
 * connection its own "address".
 */
export function admissionAddress(peer: string | undefined, forwardedFor: string | undefined): string {
  if (!peer) return "unknown";
  const forwarded = forwardedFor?.split(",")[0]?.trim();
  return forwarded && isPrivatePeer(peer) ? forwarded : peer;
}
