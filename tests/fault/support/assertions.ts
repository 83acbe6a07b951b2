import { expect } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitUntil } from "../../../infra/local/wait";
import { waitForStatus } from "./api-client";
import type { FaultCluster } from "./fault-cluster";
import { holes } from "./series-check";

/** Resolves once every agent (or those listed) has sent at least `seconds` snapshots of the run. */
export async function untilAgentsMeasured(
  cluster: FaultCluster,
  runId: string,
  seconds: number,
  agents = cluster.agents,
): Promise<void> {
  await waitUntil(async () => agents.every((agent) => (agent.tap.record.snapshots.get(runId)?.size ?? 0) >= seconds), {
    what: `${seconds} snapshots from each agent`,
    timeoutMs: 30_000,
    intervalMs: 100,
  });
}

/**
 * The stored series is exactly what the agents measured: each agent sent every second of its shard (seq 0 up to
 * the lastSeq of its final status), and every stored second holds exactly the snapshots sent for that second,
 * once each — no hole, no double count. `complete` lists the agents that must have run the whole plan.
 */
export async function expectSeriesEqualsMeasured(
  cluster: FaultCluster,
  runId: string,
  options: { durationSec: number; complete: string[] },
): Promise<void> {
  const { byAgent, expected, stored } = await cluster.compare(runId);
  for (const [agentId, sent] of byAgent) {
    expect(sent.missingSeqs, `seqs agent ${agentId} never sent`).toEqual([]);
    expect(sent.lastSeq, `agent ${agentId}'s final shard-status`).toBe(sent.snapshots.length - 1);
  }
  for (const agentId of options.complete) {
    expect(byAgent.get(agentId)!.snapshots.length, `seconds agent ${agentId} measured`).toBe(options.durationSec);
  }
  expect(stored).toEqual(expected);
  expect(holes(stored)).toEqual([]);
}

/**
 * The fault healed: the run reaches a terminal status as `finished` with no error, and its stored series equals what
 * every agent measured over the whole `durationSec`.
 */
export async function expectFinishedAsMeasured(
  cluster: FaultCluster,
  runId: string,
  durationSec: number,
): Promise<void> {
  const { run } = await waitForStatus(cluster.browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
  expect(run.status).toBe("finished");
  expect(run.error).toBeNull();
  await expectSeriesEqualsMeasured(cluster, runId, { durationSec, complete: cluster.agents.map((a) => a.id) });
}

/**
 * A fault the run must heal: starts a run of `durationSec`, strikes with `fault` once every agent has measured
 * `faultAfterSeconds` of it, and expects the run finished as measured (expectFinishedAsMeasured).
 */
export async function expectRunHeals(
  cluster: FaultCluster,
  run: { durationSec: number; faultAfterSeconds: number },
  fault: (runId: string) => Promise<void>,
): Promise<void> {
  const runId = await cluster.startRun(run.durationSec);
  await untilAgentsMeasured(cluster, runId, run.faultAfterSeconds);
  await fault(runId);
  await expectFinishedAsMeasured(cluster, runId, run.durationSec);
}
