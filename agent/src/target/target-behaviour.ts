/** What every reference-target endpoint (WebSocket, TCP, UDP) does with a message, whatever carried it. */

/** One connected client (or, for UDP, one remote address). */
export interface Peer {
  send(data: Buffer | string): void;
  /** The rooms this peer joined, for broadcast. */
  rooms: Set<number>;
}

export interface BehaviourOptions {
  /** Minimum time before each reply. */
  delayMs?: number;
  /** Busy CPU time spent per message, so a test can give the target a known capacity. */
  cpuUsPerMessage?: number;
  /** Every this many ms, hold all replies for `stallMs`. */
  stallEveryMs?: number;
  stallMs?: number;
}

export interface TargetBehaviour {
  handle(peer: Peer, data: Buffer): void;
  leave(peer: Peer): void;
  /** Holds every reply until `ms` from now (also triggered by a {"type":"stall","ms":N} message). */
  stall(ms: number): void;
  messages(): number;
  close(): void;
}

const PAD = "x".repeat(65_536);
/** A reply timer this close to its due time finishes with setImmediate, so a delay is exact to ~0.1 ms. */
const SPIN_MS = 2;

interface Command {
  type?: unknown;
  seq?: unknown;
  rb?: unknown;
  room?: unknown;
  ms?: unknown;
}

/** The JSON command in a text message, or undefined for anything else (which is echoed). */
function commandOf(data: Buffer): Command | undefined {
  if (data[0] !== 0x7b /* { */ || data.indexOf('"type"') === -1) return undefined;
  try {
    const value = JSON.parse(data.toString("utf8")) as unknown;
    return value !== null && typeof value === "object" ? (value as Command) : undefined;
  } catch {
    return undefined;
  }
}

/** A pong of the ping's seq, padded to `bytes` when the ping asked for a size. */
export function pongFor(seq: unknown, bytes: unknown): string {
  if (typeof bytes !== "number") return `{"type":"pong","seq":${Number(seq)}}`;
  const head = `{"type":"pong","seq":${Number(seq)},"pad":"`;
  const padLength = Math.max(0, bytes - head.length - 2);
  return `${head}${PAD.slice(0, padLength)}"}`;
}

function burn(micros: number): void {
  const until = performance.now() + micros / 1000;
  while (performance.now() < until) {
    // Spinning on purpose: this is the simulated per-message server cost.
  }
}

export function createTargetBehaviour(options: BehaviourOptions = {}): TargetBehaviour {
  const delayMs = Math.max(0, options.delayMs ?? 0);
  const rooms = new Map<number, Set<Peer>>();
  const timers = new Set<NodeJS.Timeout>();
  let stallUntil = 0;
  let messages = 0;
  let stallTimer: NodeJS.Timeout | undefined;
  if (options.stallEveryMs && options.stallMs) {
    const stallMs = options.stallMs;
    stallTimer = setInterval(() => (stallUntil = performance.now() + stallMs), options.stallEveryMs);
  }

  const sendAt = (dueAt: number, send: () => void) => {
    const remaining = dueAt - performance.now();
    if (remaining <= 0) return send();
    if (remaining <= SPIN_MS) return void setImmediate(() => sendAt(dueAt, send));
    const timer = setTimeout(() => {
      timers.delete(timer);
      sendAt(dueAt, send);
    }, remaining - SPIN_MS);
    timers.add(timer);
  };
  const reply = (receivedAt: number, send: () => void) => {
    const dueAt = Math.max(receivedAt + delayMs, stallUntil);
    if (dueAt <= receivedAt) send();
    else sendAt(dueAt, send);
  };

  return {
    handle(peer, data) {
      const receivedAt = performance.now();
      messages += 1;
      if (options.cpuUsPerMessage) burn(options.cpuUsPerMessage);
      const command = commandOf(data);
      switch (command?.type) {
        case "ping":
          return reply(receivedAt, () => peer.send(pongFor(command.seq, command.rb)));
        case "login":
          return reply(receivedAt, () => peer.send(`{"type":"login-ok","seq":${Number(command.seq ?? 0)}}`));
        case "join": {
          const room = Number(command.room);
          peer.rooms.add(room);
          const members = rooms.get(room) ?? new Set<Peer>();
          members.add(peer);
          rooms.set(room, members);
          return reply(receivedAt, () => peer.send(`{"type":"joined","room":${room}}`));
        }
        case "move": {
          const members = rooms.get(Number(command.room));
          if (!members) return;
          // The update goes unchanged to every other member: the sender's timestamp travels with it.
          return reply(receivedAt, () => {
            for (const member of members) if (member !== peer) member.send(data);
          });
        }
        case "stall":
          stallUntil = performance.now() + Math.max(0, Number(command.ms) || 0);
          return;
        default:
          return reply(receivedAt, () => peer.send(data));
      }
    },
    leave(peer) {
      for (const room of peer.rooms) {
        const members = rooms.get(room);
        members?.delete(peer);
        if (members?.size === 0) rooms.delete(room);
      }
      peer.rooms.clear();
    },
    stall(ms) {
      stallUntil = performance.now() + ms;
    },
    messages: () => messages,
    close() {
      clearInterval(stallTimer);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
