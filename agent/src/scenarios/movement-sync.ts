import type { MovementSyncScenario } from "@throng/protocol/plan";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { TransportConnection } from "../transports/transport";
import { clientSet, nowMicros, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";
import { compileSession } from "./session";

const PAD = "x".repeat(65_536);
/** As fast as possible: the next update goes when every room member got the last one, or after this long. */
const FAST_RESEND_MS = 1_000;

/** One room member's view of one sender's stream: the last seq and when it arrived, for loss and jitter. */
interface StreamState {
  seq: number;
  arrivedUs: number;
  sentUs: number;
}

interface Player {
  index: number;
  joined: boolean;
  /** Other members still to receive this player's latest update (as-fast-as-possible mode). */
  awaiting: number;
  sendNext?: () => void;
}

/** The update: `{"type":"move","room":R,"client":C,"seq":N,"t":µs,"x":..,"y":..,"pad":"…"}`. */
export function moveFrame(room: number, client: number, seq: number, sentUs: number, bytes: number): string {
  const angle = seq / 10;
  const head = `{"type":"move","room":${room},"client":${client},"seq":${seq},"t":${sentUs},"x":${(Math.cos(angle) * 100).toFixed(2)},"y":${(Math.sin(angle) * 100).toFixed(2)},"pad":"`;
  return head + PAD.slice(0, Math.max(0, bytes - head.length - 2)) + `"}`;
}

/** Records one received broadcast: latency from the sender's send (same clock: the room is on this agent), loss, order, jitter. */
export function recordBroadcast(metrics: ScenarioMetrics, streams: Map<number, StreamState>, sender: number, seq: number, sentUs: number, arrivedUs: number): void {
  const last = streams.get(sender);
  if (last && seq === last.seq) return metrics.duplicate();
  if (last && seq < last.seq) {
    metrics.outOfOrder();
    return metrics.broadcastMicros(arrivedUs - sentUs);
  }
  metrics.broadcastMicros(arrivedUs - sentUs);
  if (last) {
    if (seq > last.seq + 1) metrics.lost(seq - last.seq - 1);
    metrics.jitterMicros(Math.abs(arrivedUs - last.arrivedUs - (sentUs - last.sentUs)));
  }
  streams.set(sender, { seq, arrivedUs, sentUs });
}

/**
 * Rooms of `roomSize` players: clients i·K … i·K+K−1 of this shard form room i, so a room's players share one
 * clock. Each joins its room (the plan's session, with {{room}}, or the built-in join/joined exchange), then sends
 * updates at updateHz (or as fast as the room receives them).
 */
export function createMovementSync(scenario: MovementSyncScenario, context: ScenarioContext): ScenarioRunner {
  const { metrics } = context;
  const bytes = scenario.messageBytes ?? 64;
  const rooms = new Map<number, Map<number, Player>>();
  const roomOf = (index: number) => (context.shardIndex ?? 0) * 1_000_000 + Math.floor(index / scenario.roomSize);
  const joinSteps = scenario.session?.length ? compileSession(scenario.session, { ...(context.wire ? { wire: context.wire } : {}) }) : undefined;

  return clientSet((index) => {
    const room = roomOf(index);
    const members = rooms.get(room) ?? new Map<number, Player>();
    rooms.set(room, members);
    const player: Player = { index, joined: false, awaiting: 0 };
    members.set(index, player);
    const streams = new Map<number, StreamState>();
    let connection: TransportConnection | undefined;
    let timer: NodeJS.Timeout | undefined;
    let seq = 0;
    let scheduled = false;

    const sendUpdate = () => {
      const others = [...members.values()].filter((member) => member.joined && member !== player).length;
      const frame = moveFrame(room, index, seq, nowMicros(), bytes);
      if (!connection?.send(frame)) return;
      seq += 1;
      metrics.messageSent(frame.length);
      metrics.broadcastsExpected(others);
      player.awaiting = others;
    };
    const start = () => {
      if (scenario.updateHz) {
        // The updates are scheduled while the player is in its room, whether or not its timer keeps up.
        metrics.sendRate(scenario.updateHz);
        scheduled = true;
        const intervalMs = 1000 / scenario.updateHz;
        let dueAt = performance.now() + Math.random() * intervalMs;
        const tick = () => {
          sendUpdate();
          dueAt += intervalMs;
          timer = setTimeout(tick, Math.max(0, dueAt - performance.now()));
        };
        timer = setTimeout(tick, dueAt - performance.now());
        return;
      }
      player.sendNext = () => {
        clearTimeout(timer);
        sendUpdate();
        timer = setTimeout(() => player.sendNext?.(), FAST_RESEND_MS);
      };
      player.sendNext();
    };

    return openClient(context, index, {
      ...(joinSteps ? { session: { steps: joinSteps, room } } : {}),
      onOpen(opened, joined) {
        connection = opened;
        if (joined) {
          // The session joined the room.
          player.joined = true;
          return start();
        }
        const join = `{"type":"join","room":${room},"client":${index}}`;
        if (opened.send(join)) metrics.messageSent(join.length);
      },
      onMessage(data, receivedAt) {
        const arrivedUs = nowMicros(receivedAt);
        let message: { type?: string; client?: number; seq?: number; t?: number };
        try {
          message = JSON.parse(data.toString("utf8")) as typeof message;
        } catch {
          return metrics.error("protocol");
        }
        if (message.type === "joined") {
          // A second "joined" must not start a second send loop.
          if (player.joined) return;
          player.joined = true;
          return start();
        }
        if (message.type !== "move" || typeof message.client !== "number") return;
        recordBroadcast(metrics, streams, message.client, message.seq ?? 0, message.t ?? arrivedUs, arrivedUs);
        const sender = members.get(message.client);
        if (sender && sender.awaiting > 0 && (sender.awaiting -= 1) === 0) setImmediate(() => sender.sendNext?.());
      },
      onEnd() {
        clearTimeout(timer);
        if (scheduled && scenario.updateHz) metrics.sendRate(-scenario.updateHz);
        scheduled = false;
        player.joined = false;
        player.sendNext = undefined;
        members.delete(index);
      },
    });
  });
}
