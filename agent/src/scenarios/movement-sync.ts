import type { MovementSyncScenario, SessionStep } from "@throng/protocol/plan";
import { scheduledSendsPerClient } from "@throng/protocol/planned-load";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { TransportConnection } from "../transports/transport";
import { compileBroadcastRule, type Broadcast } from "./broadcast-rule";
import { compileLeave, runLeave, type BoundLeave } from "./leave-steps";
import { prepareTemplate, type MessageBuilder, type MessageFields } from "@throng/wire/message-template";
import { clientMetrics, clientSet, nowMicros, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";
import { compileResponders } from "./respond-rules";
import { RoomSendTimes, sendTimeDepth } from "./send-times";
import { compileSession } from "./session";

const PAD = "x".repeat(65_536);

/**
 * The built-in join/joined exchange (what onOpen and builtIn below do on the hot path) written as session steps, for a
 * trial (engine/session-trial.ts) of a plan that gives no session of its own.
 */
export const BUILT_IN_JOIN: readonly SessionStep[] = [
  { kind: "send", message: { format: "json", body: '{"type":"join","room":{{room}},"client":{{client}}}' } },
  { kind: "expect", reply: { json: { field: "type", equals: "joined" } } },
];
/** As fast as possible: the next update goes when every room member got the last one, or after this long. */
const FAST_RESEND_MS = 1_000;

/** One room member's view of one sender's stream: the last seq and when it arrived, for loss and jitter. */
interface StreamState {
  seq: number;
  arrivedUs: number;
  sentUs: number;
}

interface Room {
  members: Map<number, Player>;
  /** With a broadcast rule that reads no send time: when each member sent its recent updates. */
  sendTimes?: RoomSendTimes;
}

interface Player {
  index: number;
  joined: boolean;
  /** Other members still to receive this player's latest update (as-fast-as-possible mode). */
  awaiting: number;
  sendNext?: () => void;
  /** Its cohort's own figures (plan.network), when it is in one. */
  cohort: ScenarioMetrics | undefined;
}

/** The update: `{"type":"move","room":R,"client":C,"seq":N,"t":µs,"x":..,"y":..,"pad":"…"}`. */
export function moveFrame(room: number, client: number, seq: number, sentUs: number, bytes: number): string {
  const head = `{"type":"move","room":${room},"client":${client},"seq":${seq},"t":${sentUs},"x":${positionX(seq).toFixed(2)},"y":${positionY(seq).toFixed(2)},"pad":"`;
  return `${head}${PAD.slice(0, Math.max(0, bytes - head.length - 2))}"}`;
}

/** A player walks a circle of radius 100, a tenth of a radian per update. */
const positionX = (seq: number) => Math.cos(seq / 10) * 100;
const positionY = (seq: number) => Math.sin(seq / 10) * 100;

/**
 * Records one received broadcast: latency from the sender's send (same clock: the room is on this agent), loss, order,
 * jitter. False for a duplicate, which is not a broadcast received.
 */
export function recordBroadcast(
  metrics: ScenarioMetrics,
  streams: Map<number, StreamState>,
  sender: number,
  seq: number,
  sentUs: number,
  arrivedUs: number,
): boolean {
  const last = streams.get(sender);
  if (last && seq === last.seq) {
    metrics.duplicate();
    return false;
  }
  if (last && seq < last.seq) {
    metrics.outOfOrder();
    metrics.broadcastMicros(arrivedUs - sentUs);
    return true;
  }
  metrics.broadcastMicros(arrivedUs - sentUs);
  if (last) {
    if (seq > last.seq + 1) metrics.lost(seq - last.seq - 1);
    metrics.jitterMicros(Math.abs(arrivedUs - last.arrivedUs - (sentUs - last.sentUs)));
  }
  // In place: a new object per broadcast lived until the sender's next update and was promoted by the scavenges.
  if (last) {
    last.seq = seq;
    last.arrivedUs = arrivedUs;
    last.sentUs = sentUs;
  } else streams.set(sender, { seq, arrivedUs, sentUs });
  return true;
}

/**
 * Rooms of `roomSize` players: clients i·K … i·K+K−1 of the run form room i ({{room}}), all on this engine, so a
 * room's players share one clock. Each joins its room (the plan's session, with {{room}}, or the built-in join/joined exchange), then sends
 * updates at updateHz (or as fast as the room receives them): the plan's `update` template or the built-in move.
 * Broadcasts are read by the plan's `broadcast` rule, or in the reference target's own format.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one closure over a run's clients and their timers, on the hot path; a split is an issue 29 follow-up with the agent bench.
export function createMovementSync(scenario: MovementSyncScenario, context: ScenarioContext): ScenarioRunner {
  const bytes = scenario.messageBytes ?? 64;
  const rooms = new Map<number, Room>();
  // Shards and engines start on room boundaries (core's shards.ts, engines.ts), so a run-wide room is on one agent.
  const roomOf = (client: number) => Math.floor(client / scenario.roomSize);
  const wire = context.wire ? { wire: context.wire } : {};
  const joinSteps = scenario.session?.length ? compileSession(scenario.session, wire) : undefined;
  // Compiled once per shard; a template with {{vars.*}} is bound once per client when its session is done.
  const update = scenario.update ? prepareTemplate(scenario.update, context.wire) : undefined;
  const sharedUpdate = update?.usesVars ? undefined : update?.bind();
  const readBroadcast = scenario.broadcast
    ? compileBroadcastRule(scenario.broadcast, context.wire?.decodeReply)
    : undefined;
  const timesOwnSends = scenario.broadcast !== undefined && scenario.broadcast.sentAtUs === undefined;
  const depth = sendTimeDepth(scenario.updateHz);
  const leave = compileLeave(scenario.leave, context.wire);
  const respond = compileResponders(scenario.respond, context.wire);
  const heartbeatMessage = scenario.heartbeat?.message
    ? prepareTemplate(scenario.heartbeat.message, context.wire)
    : undefined;
  const sharedHeartbeat = heartbeatMessage?.usesVars ? undefined : heartbeatMessage?.bind();
  // With updateHz, a joined player's schedule: its updates and its heartbeats (the rate the verdict holds the run to).
  const scheduledPerSecond = scheduledSendsPerClient(scenario) ?? 0;
  // Clients stopped by a ramp-down still sending their leave steps: the run's end waits for them too.
  const leaving = new Set<Promise<void>>();
  // One broadcast is read at a time: its fields go into this one object.
  const received: Broadcast = { sender: 0, seq: 0, sentAtUs: 0 };
  // A client the engine starts again (a reconnect) goes on from its last seq: the room's streams and the send-time
  // ring would otherwise see its updates out of order, or two sends under one (sender, seq).
  const nextSeq = new Map<number, number>();

  const clients = clientSet((index) => {
    const room = roomOf(index);
    let roomState = rooms.get(room);
    if (!roomState) {
      const firstClient = Math.floor(index / scenario.roomSize) * scenario.roomSize;
      roomState = {
        members: new Map(),
        ...(timesOwnSends ? { sendTimes: new RoomSendTimes(firstClient, scenario.roomSize, depth) } : {}),
      };
      rooms.set(room, roomState);
    }
    const { members, sendTimes } = roomState;
    const metrics = clientMetrics(context, index);
    const player: Player = { index, joined: false, awaiting: 0, cohort: context.network?.cohortMetricsOf(index) };
    members.set(index, player);
    const streams = new Map<number, StreamState>();
    let connection: TransportConnection | undefined;
    let timer: NodeJS.Timeout | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let buildHeartbeat: MessageBuilder | undefined = sharedHeartbeat;
    let seq = nextSeq.get(index) ?? 0;
    let scheduled = false;
    let inRoom = false;
    let buildUpdate: MessageBuilder | undefined = sharedUpdate;
    let leaveSteps: BoundLeave | undefined;
    const fields = (): MessageFields => ({
      seq,
      sentAtUs: nowMicros(),
      client: index,
      room,
      x: positionX(seq),
      y: positionY(seq),
      z: 0,
    });

    const sendUpdate = () => {
      let others = 0;
      for (const member of members.values()) if (member.joined && member !== player) others += 1;
      const sentAtUs = nowMicros();
      const frame = buildUpdate
        ? buildUpdate({ seq, sentAtUs, client: index, room, x: positionX(seq), y: positionY(seq), z: 0 })
        : moveFrame(room, index, seq, sentAtUs, bytes);
      if (!connection?.send(frame)) return;
      sendTimes?.record(index, seq, sentAtUs);
      seq += 1;
      metrics.messageSent(frame.length);
      // The run expects one broadcast per other member; a cohort, those its own players should receive (where they are measured).
      context.metrics.broadcastsExpected(others);
      context.rooms?.expected(room, others, player.joined ? others + 1 : others);
      if (context.network)
        for (const member of members.values())
          if (member.joined && member !== player) member.cohort?.broadcastsExpected(1);
      player.awaiting = others;
    };
    const start = () => {
      player.joined = true;
      inRoom = true;
      if (scenario.heartbeat) {
        heartbeat = setInterval(() => {
          const frame = buildHeartbeat
            ? buildHeartbeat({ seq: 0, sentAtUs: nowMicros(), client: index, room })
            : `{"type":"heartbeat","client":${index}}`;
          if (connection?.send(frame)) metrics.messageSent(frame.length);
        }, scenario.heartbeat.intervalMs);
      }
      if (scenario.updateHz) {
        // The updates (and heartbeats) are scheduled while the player is in its room, whether or not its timers keep up.
        metrics.sendRate(scheduledPerSecond);
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
    /** One broadcast from `sender`: latency, loss, order and jitter; as fast as possible, the sender's next update once all got it. */
    const onBroadcast = (sender: number, broadcastSeq: number, sentUs: number, arrivedUs: number) => {
      if (recordBroadcast(metrics, streams, sender, broadcastSeq, sentUs, arrivedUs))
        context.rooms?.received(room, arrivedUs - sentUs);
      const from = members.get(sender);
      if (!from || from.awaiting === 0) return;
      from.awaiting -= 1;
      if (from.awaiting === 0) setImmediate(() => from.sendNext?.());
    };
    /** The built-in join/joined exchange and the reference target's own broadcast: `{"type":"move","client":C,"seq":N,"t":µs}`. */
    const builtIn = (data: Buffer, arrivedUs: number) => {
      let message: { type?: string; client?: number; seq?: number; t?: number };
      try {
        message = JSON.parse(data.toString("utf8")) as typeof message;
      } catch {
        return metrics.error("protocol", index, "a message that is not the built-in join/move JSON", data);
      }
      if (message?.type === "joined") {
        // A second "joined" must not start a second send loop.
        if (!player.joined) start();
        return;
      }
      if (readBroadcast || message?.type !== "move" || typeof message.client !== "number") return;
      onBroadcast(message.client, message.seq ?? 0, message.t ?? arrivedUs, arrivedUs);
    };

    return openClient(context, index, {
      ...(joinSteps ? { session: { steps: joinSteps, room } } : {}),
      ...(respond ? { respond, room } : {}),
      onOpen(opened, joined) {
        connection = opened;
        if (update?.usesVars) buildUpdate = update.bind(joined?.vars);
        if (heartbeatMessage?.usesVars) buildHeartbeat = heartbeatMessage.bind(joined?.vars);
        if (leave) leaveSteps = leave.bind(joined?.vars);
        // The session joined the room.
        if (joined) return start();
        const join = `{"type":"join","room":${room},"client":${index}}`;
        if (opened.send(join)) metrics.messageSent(join.length);
      },
      onMessage(data, receivedAt) {
        const arrivedUs = nowMicros(receivedAt);
        // Until the built-in join is answered, and always without a broadcast rule.
        if (!readBroadcast || !player.joined) return builtIn(data, arrivedUs);
        const read = readBroadcast(data, received);
        if (read === "not-broadcast") return;
        if (read === "incomplete")
          return metrics.error(
            "bad-broadcast",
            index,
            "a broadcast the plan's broadcast rule could not read whole",
            data,
          );
        // A player's own update echoed back is not one the room should have had.
        if (received.sender === index) return;
        let sentUs = received.sentAtUs;
        if (sendTimes) {
          const sentAt = sendTimes.sentAt(received.sender, received.seq);
          if (sentAt === undefined) {
            // Not an update of this room the ring still holds: untimed, and its sender's stream starts afresh.
            streams.delete(received.sender);
            return metrics.error(
              "unknown-broadcast",
              index,
              "a broadcast of no update this room sent that the agent still holds",
              data,
            );
          }
          sentUs = sentAt;
        }
        onBroadcast(received.sender, received.seq, sentUs, arrivedUs);
      },
      onEnd() {
        nextSeq.set(index, seq);
        clearTimeout(timer);
        clearInterval(heartbeat);
        if (scheduled && scenario.updateHz) metrics.sendRate(-scheduledPerSecond);
        scheduled = false;
        player.joined = false;
        player.sendNext = undefined;
        members.delete(index);
      },
      leave(opened) {
        if (!inRoom || !leaveSteps) return undefined;
        const done = runLeave(leaveSteps, opened, fields, metrics);
        leaving.add(done);
        void done.finally(() => leaving.delete(done));
        return done;
      },
    });
  });
  return {
    ...clients,
    async close() {
      await clients.close();
      await Promise.all(leaving);
    },
  };
}
