import { Channel } from "@throng/protocol/jobs";
import type { LiveEnvelope, LiveMessage } from "@throng/protocol/run";
import type { Bus } from "../ports";

/** Publishes one live message for a run, numbered so browsers can tell when they missed one. */
export async function publishLive(bus: Bus, runId: string, message: LiveMessage): Promise<void> {
  const seq = await bus.sequence(Channel.runSeqKey(runId));
  await bus.publish(Channel.run(runId), { seq, message } satisfies LiveEnvelope);
}
