import type { MovementSyncScenario } from "@throng/protocol/plan";
import type { MessageBuilder, MessageFields, PreparedTemplate } from "@throng/wire/message-template";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { TransportConnection } from "../transports/transport";
import type { Broadcast, BroadcastReader } from "./broadcast-rule";
import { runLeave, type BoundLeave, type CompiledLeave } from "./leave-steps";
import { recordBroadcast, type StreamState } from "./broadcast-streams";
import type { Responders } from "./respond-rules";
import { clientMetrics, nowMicros, type ClientHandlers, type ScenarioContext } from "./scenario";
import { RoomSendTimes } from "./send-times";
import type { CompiledSession, SessionDone } from "./session";

const PAD = "x".repeat(65_536);

/** The update: `{"type":"move","room":R,"client":C,"seq":N,"t":µs,"x":..,"y":..,"pad":"…"}`. */
export function moveFrame(room: number, client: number, seq: number, sentUs: number, bytes: number): string {
  const head = `{"type":"move","room":${room},"client":${client},"seq":${seq},"t":${sentUs},"x":${positionX(seq).toFixed(2)},"y":${positionY(seq).toFixed(2)},"pad":"`;
  return `${head}${PAD.slice(0, Math.max(0, bytes - head.length - 2))}"}`;
}

/** A player walks a circle of radius 100, a tenth of a radian per update. */
const positionX = (seq: number) => Math.cos(seq / 10) * 100;
const positionY = (seq: number) => Math.sin(seq / 10) * 100;

/** As fast as possible: the next update goes when every room member got the last one, or after this long. */
const FAST_RESEND_MS = 1_000;

export interface Room {
  members: Map<number, MovementPlayer>;
  /** With a broadcast rule that reads no send time: when each member sent its recent updates. */
  sendTimes?: RoomSendTimes;
}

/** A movement-sync plan compiled once per shard, and what its players share (createMovementSync builds it). */
export interface MovementShard {
  readonly scenario: MovementSyncScenario;
  readonly context: ScenarioContext;
  readonly bytes: number;
  /** The shard's rooms by run-wide room index; shards and engines start on room boundaries, so a room is all here. */
  readonly rooms: Map<number, Room>;
  readonly joinSteps: CompiledSession | undefined;
  readonly update: PreparedTemplate | undefined;
  /** The update (and heartbeat) built once here when it uses no {{vars.*}}; otherwise once per player. */
  readonly sharedUpdate: MessageBuilder | undefined;
  readonly readBroadcast: BroadcastReader | undefined;
  /** A broadcast rule that reads no send time: each room remembers when its members sent (RoomSendTimes). */
  readonly timesOwnSends: boolean;
  readonly depth: number;
  readonly leave: CompiledLeave | undefined;
  readonly respond: Responders | undefined;
  readonly heartbeatMessage: PreparedTemplate | undefined;
  readonly sharedHeartbeat: MessageBuilder | undefined;
  readonly scheduledPerSecond: number;
  /** Clients stopped by a ramp-down still sending their leave steps: the run's end waits for them too. */
  readonly leaving: Set<Promise<void>>;
  /** One broadcast is read at a time: its fields go into this one object. */
  readonly received: Broadcast;
  /**
   * A client the engine starts again (a reconnect) goes on from its last seq: the room's streams and the send-time
   * ring would otherwise see its updates out of order, or two sends under one (sender, seq).
   */
  readonly nextSeq: Map<number, number>;
}

/** The room of run-wide client `index`, made when its first member arrives. */
function roomOf(shard: MovementShard, index: number): Room {
  const { roomSize } = shard.scenario;
  const room = Math.floor(index / roomSize);
  let state = shard.rooms.get(room);
  if (!state) {
    state = {
      members: new Map(),
      ...(shard.timesOwnSends ? { sendTimes: new RoomSendTimes(room * roomSize, roomSize, shard.depth) } : {}),
    };
    shard.rooms.set(room, state);
  }
  return state;
}

// Timer callbacks take their player as an argument: no closure per player for its schedule or heartbeat.
function tick(player: MovementPlayer): void {
  player.tick();
}
function beat(player: MovementPlayer): void {
  player.beat();
}
function resend(player: MovementPlayer): void {
  player.sendNext();
}

/**
 * One player of a room: joins (the plan's session or the built-in join/joined exchange), then sends its updates
 * (at updateHz, or as fast as its room receives them) and measures the room-mates' broadcasts it receives. Its state
 * in fields and its behaviour on the prototype, as the ping-pong client (ping-pong.ts says why); it is itself the
 * handlers openClient calls.
 */
export class MovementPlayer implements ClientHandlers {
  joined = false;
  /** Other members still to receive this player's latest update (as-fast-as-possible mode). */
  awaiting = 0;
  /** As fast as possible: its next update goes when the room got this one (sendNext). */
  private fast = false;
  private inRoom = false;
  /** Its updates and heartbeats count toward the scheduled sends (updateHz, in its room). */
  private scheduled = false;
  private seq: number;
  /** When the next update is due (updateHz): performance.now() ms. */
  private dueAt = 0.5;
  /** When this player joined its room as the agent saw it (µs, nowMicros); room-mates expect it from then on. */
  private joinedAtUs = Number.POSITIVE_INFINITY;
  private connection: TransportConnection | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;
  private heartbeat: NodeJS.Timeout | undefined = undefined;
  private buildUpdate: MessageBuilder | undefined;
  private buildHeartbeat: MessageBuilder | undefined;
  private leaveSteps: BoundLeave | undefined = undefined;
  /** Each room-mate's stream as this player received it. */
  private readonly streams = new Map<number, StreamState>();
  /** The run-wide index of the player's room ({{room}}). */
  private readonly ownRoom: number;
  private readonly roomState: Room;
  private readonly metrics: ScenarioMetrics;
  /** Its cohort's own figures (plan.network), when it is in one. */
  readonly cohort: ScenarioMetrics | undefined;
  readonly session: ClientHandlers["session"];
  readonly respond: Responders | undefined;
  /** openClient's `room` ({{room}} in respond answers): given with respond rules only, as before the split. */
  readonly room: number | undefined;

  constructor(
    private readonly shard: MovementShard,
    readonly index: number,
  ) {
    const { context } = shard;
    this.ownRoom = Math.floor(index / shard.scenario.roomSize);
    this.roomState = roomOf(shard, index);
    this.metrics = clientMetrics(context, index);
    this.cohort = context.network?.cohortMetricsOf(index);
    this.roomState.members.set(index, this);
    this.seq = shard.nextSeq.get(index) ?? 0;
    this.buildUpdate = shard.sharedUpdate;
    this.buildHeartbeat = shard.sharedHeartbeat;
    this.session = shard.joinSteps ? { steps: shard.joinSteps, room: this.ownRoom } : undefined;
    this.respond = shard.respond;
    this.room = shard.respond ? this.ownRoom : undefined;
  }

  private fields(): MessageFields {
    const { seq } = this;
    return {
      seq,
      sentAtUs: nowMicros(),
      client: this.index,
      room: this.ownRoom,
      x: positionX(seq),
      y: positionY(seq),
      z: 0,
    };
  }

  private sendUpdate(): void {
    const { shard, index, ownRoom: room, seq } = this;
    const { members, sendTimes } = this.roomState;
    let others = 0;
    for (const member of members.values()) if (member.joined && member !== this) others += 1;
    const sentAtUs = nowMicros();
    const frame = this.buildUpdate
      ? this.buildUpdate({ seq, sentAtUs, client: index, room, x: positionX(seq), y: positionY(seq), z: 0 })
      : moveFrame(room, index, seq, sentAtUs, shard.bytes);
    if (!this.connection?.send(frame)) return;
    sendTimes?.record(index, seq, sentAtUs);
    this.seq = seq + 1;
    this.metrics.messageSent(frame.length);
    // The run expects one broadcast per other member; a cohort, those its own players should receive (where they are measured).
    const { context } = shard;
    context.metrics.broadcastsExpected(others);
    context.rooms?.expected(room, others, this.joined ? others + 1 : others);
    if (context.network)
      for (const member of members.values()) if (member.joined && member !== this) member.cohort?.broadcastsExpected(1);
    this.awaiting = others;
  }

  /** In its room: the heartbeats and the updates start. */
  private start(): void {
    const { scenario } = this.shard;
    this.joined = true;
    this.joinedAtUs = nowMicros();
    this.inRoom = true;
    if (scenario.heartbeat) this.heartbeat = setInterval(beat, scenario.heartbeat.intervalMs, this);
    if (scenario.updateHz) {
      // The updates (and heartbeats) are scheduled while the player is in its room, whether or not its timers keep up.
      this.metrics.sendRate(this.shard.scheduledPerSecond);
      this.scheduled = true;
      const intervalMs = 1000 / scenario.updateHz;
      this.dueAt = performance.now() + Math.random() * intervalMs;
      this.timer = setTimeout(tick, this.dueAt - performance.now(), this);
      return;
    }
    this.fast = true;
    this.sendNext();
  }

  /** updateHz: an update is due; the next is due an interval after this one was (self-correcting). */
  tick(): void {
    this.sendUpdate();
    this.dueAt += 1000 / this.shard.scenario.updateHz!;
    this.timer = setTimeout(tick, Math.max(0, this.dueAt - performance.now()), this);
  }

  beat(): void {
    const frame = this.buildHeartbeat
      ? this.buildHeartbeat({ seq: 0, sentAtUs: nowMicros(), client: this.index, room: this.ownRoom })
      : `{"type":"heartbeat","client":${this.index}}`;
    if (this.connection?.send(frame)) this.metrics.messageSent(frame.length);
  }

  /** As fast as possible: the next update, now (the room got the last one) or FAST_RESEND_MS after the last. */
  sendNext(): void {
    if (!this.fast) return;
    clearTimeout(this.timer);
    this.sendUpdate();
    this.timer = setTimeout(resend, FAST_RESEND_MS, this);
  }

  /** One broadcast from `sender`: latency, loss, order and jitter; as fast as possible, the sender's next update once all got it. */
  private onBroadcast(sender: number, broadcastSeq: number, sentUs: number, arrivedUs: number): void {
    // Sent before this player had joined as the agent saw it: its sender did not count this player among those to
    // receive it (the server had it in the room before its "joined" came back). Counted, it made reach exceed 100%
    // and covered as many lost broadcasts.
    if (sentUs < this.joinedAtUs) return;
    if (recordBroadcast(this.metrics, this.streams, sender, broadcastSeq, sentUs, arrivedUs))
      this.shard.context.rooms?.received(this.ownRoom, arrivedUs - sentUs);
    const from = this.roomState.members.get(sender);
    if (!from || from.awaiting === 0) return;
    from.awaiting -= 1;
    if (from.awaiting === 0) setImmediate(resend, from);
  }

  /** The built-in join/joined exchange and the reference target's own broadcast: `{"type":"move","client":C,"seq":N,"t":µs}`. */
  private builtIn(data: Buffer, arrivedUs: number): void {
    let message: { type?: string; client?: number; seq?: number; t?: number };
    try {
      message = JSON.parse(data.toString("utf8")) as typeof message;
    } catch {
      this.metrics.error("protocol", this.index, "a message that is not the built-in join/move JSON", data);
      return;
    }
    if (message?.type === "joined") {
      // A second "joined" must not start a second send loop.
      if (!this.joined) this.start();
      return;
    }
    if (this.shard.readBroadcast || message?.type !== "move" || typeof message.client !== "number") return;
    this.onBroadcast(message.client, message.seq ?? 0, message.t ?? arrivedUs, arrivedUs);
  }

  onOpen(opened: TransportConnection, joined?: SessionDone): void {
    const { shard } = this;
    this.connection = opened;
    if (shard.update?.usesVars) this.buildUpdate = shard.update.bind(joined?.vars);
    if (shard.heartbeatMessage?.usesVars) this.buildHeartbeat = shard.heartbeatMessage.bind(joined?.vars);
    if (shard.leave) this.leaveSteps = shard.leave.bind(joined?.vars);
    // The session joined the room.
    if (joined) {
      this.start();
      return;
    }
    const join = `{"type":"join","room":${this.ownRoom},"client":${this.index}}`;
    if (opened.send(join)) this.metrics.messageSent(join.length);
  }

  onMessage(data: Buffer, receivedAt: number): void {
    const { readBroadcast, received } = this.shard;
    const arrivedUs = nowMicros(receivedAt);
    // Until the built-in join is answered, and always without a broadcast rule.
    if (!readBroadcast || !this.joined) {
      this.builtIn(data, arrivedUs);
      return;
    }
    const read = readBroadcast(data, received);
    if (read === "not-broadcast") return;
    if (read === "incomplete") {
      this.metrics.error(
        "bad-broadcast",
        this.index,
        "a broadcast the plan's broadcast rule could not read whole",
        data,
      );
      return;
    }
    // A player's own update echoed back is not one the room should have had.
    if (received.sender === this.index) return;
    let sentUs = received.sentAtUs;
    const { sendTimes } = this.roomState;
    if (sendTimes) {
      const sentAt = sendTimes.sentAt(received.sender, received.seq);
      if (sentAt === undefined) {
        // Not an update of this room the ring still holds: untimed, and its sender's stream starts afresh.
        this.streams.delete(received.sender);
        this.metrics.error(
          "unknown-broadcast",
          this.index,
          "a broadcast of no update this room sent that the agent still holds",
          data,
        );
        return;
      }
      sentUs = sentAt;
    }
    this.onBroadcast(received.sender, received.seq, sentUs, arrivedUs);
  }

  onEnd(): void {
    const { shard } = this;
    shard.nextSeq.set(this.index, this.seq);
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    if (this.scheduled && shard.scenario.updateHz) this.metrics.sendRate(-shard.scheduledPerSecond);
    this.scheduled = false;
    this.joined = false;
    this.fast = false;
    this.roomState.members.delete(this.index);
  }

  leave(opened: TransportConnection): Promise<void> | undefined {
    if (!this.inRoom || !this.leaveSteps) return undefined;
    const done = runLeave(this.leaveSteps, opened, () => this.fields(), this.metrics);
    const { leaving } = this.shard;
    leaving.add(done);
    void done.finally(() => leaving.delete(done));
    return done;
  }
}
