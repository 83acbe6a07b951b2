import type { SessionStep } from "@throng/protocol/plan";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { TransportConnection } from "../transports/transport";
import {
  prepareTemplate,
  type MessageBuilder,
  type MessageFields,
  type PreparedTemplate,
  type SessionVars,
} from "@throng/wire/message-template";
import type { WireFormat } from "@throng/wire/wire-format";

// Movement-sync's `leave` steps: what a client sends as it stops (a ramp-down or the run's end), before its
// connection closes. The plan schema allows send and wait only: the client is stopping and reads no reply.

type LeaveStep<T> = { kind: "send"; message: T } | { kind: "wait"; ms: number };

/** The steps with their templates parsed once per shard. */
export interface CompiledLeave {
  readonly steps: readonly LeaveStep<PreparedTemplate>[];
  /** Binds each template to a client's session variables (once per client, when its session is done). */
  bind(vars?: SessionVars): BoundLeave;
}

export type BoundLeave = readonly LeaveStep<MessageBuilder>[];

/** Undefined when there are no steps; an expect step (which the schema refuses) is skipped. */
export function compileLeave(steps: readonly SessionStep[] | undefined, wire?: WireFormat): CompiledLeave | undefined {
  if (!steps?.length) return undefined;
  const compiled: LeaveStep<PreparedTemplate>[] = [];
  for (const step of steps) {
    if (step.kind === "send") compiled.push({ kind: "send", message: prepareTemplate(step.message, wire) });
    else if (step.kind === "wait") compiled.push({ kind: "wait", ms: step.ms });
  }
  const shared = compiled.some((step) => step.kind === "send" && step.message.usesVars) ? undefined : bindAll(compiled);
  return { steps: compiled, bind: (vars) => shared ?? bindAll(compiled, vars) };
}

function bindAll(steps: readonly LeaveStep<PreparedTemplate>[], vars?: SessionVars): BoundLeave {
  return steps.map((step) => (step.kind === "send" ? { kind: "send", message: step.message.bind(vars) } : step));
}

/**
 * Sends the steps in order; the sends before the first wait go out before this returns its promise (at the run's
 * end, in time for its last second). Stops at a send the connection refuses (it is closing).
 */
export async function runLeave(
  steps: BoundLeave,
  connection: TransportConnection,
  fields: () => MessageFields,
  metrics: ScenarioMetrics,
): Promise<void> {
  for (const step of steps) {
    if (step.kind === "wait") {
      await new Promise((resolve) => setTimeout(resolve, step.ms));
      continue;
    }
    const message = step.message(fields());
    if (!connection.send(message)) return;
    metrics.messageSent(message.length);
  }
}
