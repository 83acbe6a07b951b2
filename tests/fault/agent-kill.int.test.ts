import { describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { readMeasurementBuffer } from "../../agent/src/connection/measurement-buffer";
import { waitUntil } from "../../infra/local/wait";
import { getSeries, waitForStatus } from "./support/api-client";
import { untilAgentsMeasured } from "./support/assertions";
import type { FaultAgent } from "./support/fault-cluster";
import { faultClusterPerFile } from "./support/cluster-per-file";
import { holes } from "./support/series-check";

const durationSec = 24;
// 2 s heartbeats: the gateway notices the dead agent's link after 6–8 s and the worker calls it lost 10 s later,
// well before the run's planned end.
const heartbeatMs = 2_000;

const cluster = faultClusterPerFile({ agents: 3, heartbeatMs }, "agent-kill");

/** The seqs of `runId` the agent has on disk, unacknowledged (read without touching its files). */
async function onDisk(agent: FaultAgent, runId: string): Promise<number[]> {
  const runs = await readMeasurementBuffer(agent.configPath, agent.server);
  return (runs.find((r) => r.runId === runId)?.entries ?? []).map((e) => e.seq);
}

describe("fault: agents killed with SIGKILL mid-run while seconds they measured were unacknowledged", () => {
  it("a restarted agent delivers every second it kept on disk exactly once and does not resume its load; one never restarted has its lost seconds named in an event and the verdict", async () => {
    const [, restarted, gone] = cluster().agents as [FaultAgent, FaultAgent, FaultAgent];
    const runId = await cluster().startRun(durationSec);
    await untilAgentsMeasured(cluster(), runId, 3);

    // Cut off first, so the seconds they measure next cannot reach the server: unacknowledged, only on disk.
    await Promise.all([restarted.cut(), gone.cut()]);
    await waitUntil(
      async () => (await onDisk(restarted, runId)).length >= 3 && (await onDisk(gone, runId)).length >= 3,
      {
        what: "3 unacknowledged seconds on each cut agent's disk",
        timeoutMs: 15_000,
        intervalMs: 200,
      },
    );
    await Promise.all([restarted.kill(), gone.kill()]);
    const keptOnDisk = await onDisk(restarted, runId);
    const goneOnDisk = await onDisk(gone, runId);
    await Promise.all([restarted.restore(), gone.restore()]);
    const restartedAt = Date.now();
    await restarted.restart();
    const reconnectMs = Date.now() - restartedAt;

    const { run } = await waitForStatus(cluster().browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    expect(run.status).toBe("finished");

    // (a) The restarted agent re-sent what it had kept, then reported the shard failed at its last kept second.
    const restartedSeqs = [...(restarted.tap.record.snapshots.get(runId)?.keys() ?? [])].sort((a, b) => a - b);
    expect(restartedSeqs).toEqual(expect.arrayContaining(keptOnDisk));
    expect(restartedSeqs.at(-1), "no second after the kill: its load was not resumed").toBe(keptOnDisk.at(-1));
    expect(restarted.tap.record.statuses.get(runId)).toEqual({ state: "failed", lastSeq: keptOnDisk.at(-1) });
    // Named by its host, with its id's first block as its fellow agents share this machine's host name.
    expect(run.error).toMatch(
      new RegExp(`agent \\S+ \\(${restarted.id.slice(0, 8)}\\): the agent's process was restarted during the run`),
    );
    await waitUntil(async () => (await onDisk(restarted, runId)).length === 0, {
      what: "the restarted agent's buffer to be acknowledged",
      timeoutMs: 15_000,
    });

    // Every second stored exactly once: the series equals the merge of what each agent sent (resends overwrite an
    // identical copy in the relay's record), so a lost or double-counted second fails here.
    const { expected, stored } = await cluster().compare(runId);
    expect(stored).toEqual(expected);
    expect(holes(stored)).toEqual([]);
    const secondsWith = (agentId: string) => new Set(stored.filter((s) => s.agents.includes(agentId)).map((s) => s.t));
    const startSecond = Math.min(...stored.map((s) => s.t));
    expect([...secondsWith(restarted.id)].map((t) => t - startSecond)).toEqual(restartedSeqs);
    const points = await getSeries(cluster().browser, runId);
    expect(points.length).toBe(new Set(points.map((p) => p.t)).size);

    // (b) The agent never restarted: the seconds it measured and never delivered, and the rest of its shard, named.
    const goneSeqs = [...(gone.tap.record.snapshots.get(runId)?.keys() ?? [])].sort((a, b) => a - b);
    const firstLost = goneSeqs.at(-1)! + 1;
    expect(goneOnDisk, "its first lost second was measured (it was on its disk)").toContain(firstLost);
    const lostEvents = run.events.filter((e) => e.kind === "seconds-lost");
    expect(lostEvents.map((e) => e.agentId)).toEqual([gone.id]);
    const message = lostEvents[0]!.message;
    expect(message).toMatch(
      new RegExp(
        `^agent .*${gone.id}.* lost seconds ${firstLost}–${durationSec - 1} \\(${durationSec - firstLost} s\\): none of them arrived before its agent was lost`,
      ),
    );
    expect(run.verdict?.passed).toBe(false);
    expect(run.verdict?.outcome).toBe("incomplete");
    expect(run.verdict?.reasons).toContain(message);
    // Connections are held against the plan's 4 clients, not those of the agents still reporting (issue 27).
    expect(run.verdict?.reasons.join("\n")).toMatch(
      /only \d of 4 clients were connected at .* \(the agents that reported that second held \d\)/,
    );
    expect(run.events.filter((e) => e.kind === "agent-lost").map((e) => e.agentId)).toEqual([gone.id]);
    console.log(
      `agent-kill: restarted agent connected ${reconnectMs} ms after its start, re-sent ${keptOnDisk.length} kept second(s) (seq ${keptOnDisk[0]}–${keptOnDisk.at(-1)}); ` +
        `the other had ${goneOnDisk.length} measured second(s) on its disk when killed; event: "${message}"; verdict ${run.verdict?.outcome}: ${run.verdict?.reasons.join(" | ")}`,
    );
  }, 180_000);
});
