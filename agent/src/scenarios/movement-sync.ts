import type { MovementSyncScenario, SessionStep } from "@throng/protocol/plan";
import { scheduledSendsPerClient } from "@throng/protocol/planned-load";
import { compileBroadcastRule } from "./broadcast-rule";
import { compileLeave } from "./leave-steps";
import { prepareTemplate } from "@throng/wire/message-template";
import { MovementPlayer, type MovementShard } from "./movement-player";
import { clientSet, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";
import { compileResponders } from "./respond-rules";
import { sendTimeDepth } from "./send-times";
import { compileSession } from "./session";

/**
 * The built-in join/joined exchange (what onOpen and builtIn below do on the hot path) written as session steps, for a
 * trial (engine/session-trial.ts) of a plan that gives no session of its own.
 */
export const BUILT_IN_JOIN: readonly SessionStep[] = [
  { kind: "send", message: { format: "json", body: '{"type":"join","room":{{room}},"client":{{client}}}' } },
  { kind: "expect", reply: { json: { field: "type", equals: "joined" } } },
];

/**
 * Rooms of `roomSize` players: clients i·K … i·K+K−1 of the run form room i ({{room}}), all on this engine, so a
 * room's players share one clock. Each joins its room (the plan's session, with {{room}}, or the built-in join/joined exchange), then sends
 * updates at updateHz (or as fast as the room receives them): the plan's `update` template or the built-in move.
 * Broadcasts are read by the plan's `broadcast` rule, or in the reference target's own format.
 * The plan is compiled here once per shard (a MovementShard); each client is a MovementPlayer (movement-player.ts).
 */
export function createMovementSync(scenario: MovementSyncScenario, context: ScenarioContext): ScenarioRunner {
  const wire = context.wire ? { wire: context.wire } : {};
  // Compiled once per shard; a template with {{vars.*}} is bound once per client when its session is done.
  const update = scenario.update ? prepareTemplate(scenario.update, context.wire) : undefined;
  const heartbeatMessage = scenario.heartbeat?.message
    ? prepareTemplate(scenario.heartbeat.message, context.wire)
    : undefined;
  const shard: MovementShard = {
    scenario,
    context,
    bytes: scenario.messageBytes ?? 64,
    rooms: new Map(),
    joinSteps: scenario.session?.length ? compileSession(scenario.session, wire) : undefined,
    update,
    sharedUpdate: update?.usesVars ? undefined : update?.bind(),
    readBroadcast: scenario.broadcast ? compileBroadcastRule(scenario.broadcast, context.wire?.decodeReply) : undefined,
    timesOwnSends: scenario.broadcast !== undefined && scenario.broadcast.sentAtUs === undefined,
    depth: sendTimeDepth(scenario.updateHz),
    leave: compileLeave(scenario.leave, context.wire),
    respond: compileResponders(scenario.respond, context.wire),
    heartbeatMessage,
    sharedHeartbeat: heartbeatMessage?.usesVars ? undefined : heartbeatMessage?.bind(),
    // With updateHz, a joined player's schedule: its updates and its heartbeats (the rate the verdict holds the run to).
    scheduledPerSecond: scheduledSendsPerClient(scenario) ?? 0,
    leaving: new Set(),
    received: { sender: 0, seq: 0, sentAtUs: 0 },
    nextSeq: new Map(),
  };
  const clients = clientSet((index) => openClient(context, index, new MovementPlayer(shard, index)));
  return {
    ...clients,
    async close() {
      await clients.close();
      await Promise.all(shard.leaving);
    },
  };
}
