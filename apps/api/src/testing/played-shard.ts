import { expect } from "vitest";
import { RunView } from "@throng/protocol/run";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { ApiWithAgent } from "./api-with-agent";

/**
 * Plays the run's one shard to its end as its agent would: the snapshot `second(seq)` gives for each second from 0 to
 * `seconds` − 1, each acknowledged before the next, then the shard's "finished" with its last seq; then finishes the
 * run as the worker's job does until `user` reads it finished. Call it inside a test (expect.poll waits there).
 */
export async function playShardToTheEnd(
  { api, user, agent, orgId }: ApiWithAgent,
  runId: string,
  seconds: number,
  second: (seq: number) => MetricSnapshot,
): Promise<void> {
  for (let seq = 0; seq < seconds; seq++) {
    agent.send({ type: "snapshot", payload: second(seq) });
    await agent.next("snapshot-ack");
  }
  agent.send({ type: "shard-status", payload: { runId, state: "finished", lastSeq: seconds - 1 } });
  await expect
    .poll(async () => {
      await api.deps.orchestrator.finish(orgId, runId);
      const answer = await user.request("GET", `/api/runs/${runId}`);
      if (answer.status !== 200) throw new Error(JSON.stringify(answer.json));
      return RunView.parse(answer.json).status;
    })
    .toBe("finished");
}
