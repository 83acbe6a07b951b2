/** What every reference-target endpoint (WebSocket, TCP, UDP) does with a message, whatever carried it. */

import { ReplyQueue } from "./reply-queue";

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
  /** Drops every `every`-th delivery of a broadcast in room `room`: one room made worse on purpose (tests, demos). */
  dropBroadcasts?: { room: number; every: number };
}

export interface TargetBehaviour {
  /** `data` may be a view of a reused read buffer, valid during the call only. */
  handle(peer: Peer, data: Buffer): void;
  leave(peer: Peer): void;
  /** Holds every reply until `ms` from now (also triggered by a {"type":"stall","ms":N} message). */
  stall(ms: number): void;
  messages(): number;
  close(): void;
}

const PAD = "x".repeat(65_536);

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

const bytesOf = (text: string) => Buffer.from(text, "latin1");
const PING_HEAD = bytesOf('{"type":"ping","seq":');
const CLIENT_FIELD = bytesOf(',"client":');
const RB_FIELD = bytesOf(',"rb":');
const PAD_FIELD = bytesOf(',"pad":"');

/**
 * The agent's own ping (`{"type":"ping","seq":N,"client":C[,"rb":R],"pad":"xx…"}`, see pingFrame) read
 * byte by byte: a JSON.parse of every 164-byte ping was most of the target's CPU per message. Anything else, even
 * valid JSON in another shape, returns undefined and goes the JSON.parse way.
 */
export function agentPing(data: Buffer): Command | undefined {
  let at = 0;
  const field = (bytes: Buffer) => {
    if (data.length - at < bytes.length) return false;
    for (let i = 0; i < bytes.length; i += 1) if (data[at + i] !== bytes[i]) return false;
    at += bytes.length;
    return true;
  };
  const number = () => {
    const start = at;
    let value = 0;
    for (let byte = data[at]; byte !== undefined && byte >= 0x30 && byte <= 0x39; byte = data[++at])
      value = value * 10 + (byte - 0x30);
    // JSON numbers have no leading zeros; at least one digit.
    if (at === start || (data[start] === 0x30 && at - start > 1)) return undefined;
    return value;
  };
  if (!field(PING_HEAD)) return undefined;
  const seq = number();
  if (seq === undefined || !field(CLIENT_FIELD) || number() === undefined) return undefined;
  const hasRb = field(RB_FIELD);
  const rb = hasRb ? number() : undefined;
  if (hasRb && rb === undefined) return undefined;
  if (!field(PAD_FIELD)) return undefined;
  while (data[at] === 0x78 /* x */) at += 1;
  if (data.length !== at + 2 || data[at] !== 0x22 || data[at + 1] !== 0x7d) return undefined;
  return rb === undefined ? { type: "ping", seq } : { type: "ping", seq, rb };
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
  const queue = new ReplyQueue();
  let stallUntil = 0;
  let messages = 0;
  /** Deliveries counted in the room of options.dropBroadcasts. */
  let delivered = 0;
  let stallTimer: NodeJS.Timeout | undefined;
  if (options.stallEveryMs && options.stallMs) {
    const stallMs = options.stallMs;
    stallTimer = setInterval(() => (stallUntil = performance.now() + stallMs), options.stallEveryMs);
  }

  const dueAtFor = (receivedAt: number) => Math.max(receivedAt + delayMs, stallUntil);
  // A reply waits when it is not due yet, or when earlier ones still wait: replies never overtake each other.
  const waits = (receivedAt: number) => dueAtFor(receivedAt) > receivedAt || !queue.empty;
  const reply = (receivedAt: number, send: () => void) =>
    waits(receivedAt) ? queue.push(dueAtFor(receivedAt), send) : send();
  /** `data` as a reply may send it: a view of a reused read buffer is copied when the reply waits (delay, stall). */
  const kept = (receivedAt: number, data: Buffer) => (waits(receivedAt) ? Buffer.from(data) : data);

  return {
    handle(peer, data) {
      const receivedAt = performance.now();
      messages += 1;
      if (options.cpuUsPerMessage) burn(options.cpuUsPerMessage);
      const command = agentPing(data) ?? commandOf(data);
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
          const room = Number(command.room);
          const members = rooms.get(room);
          if (!members) return;
          // The update goes unchanged to every other member: the sender's timestamp travels with it.
          const update = kept(receivedAt, data);
          const dropping = options.dropBroadcasts?.room === room ? options.dropBroadcasts.every : 0;
          return reply(receivedAt, () => {
            for (const member of members) {
              if (member === peer) continue;
              if (dropping > 0 && ++delivered % dropping === 0) continue;
              member.send(update);
            }
          });
        }
        case "stall":
          stallUntil = performance.now() + Math.max(0, Number(command.ms) || 0);
          return;
        default: {
          const echo = kept(receivedAt, data);
          return reply(receivedAt, () => peer.send(echo));
        }
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
      queue.clear();
    },
  };
}
