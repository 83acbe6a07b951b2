import { describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitUntil } from "../../infra/local/wait";
import { waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured, untilAgentsMeasured } from "./support/assertions";
import type { FaultAgent } from "./support/fault-cluster";
import { faultClusterPerFile } from "./support/cluster-per-file";

const durationSec = 40;
const cutMs = 30_000;

// With the default 5 s heartbeats the gateway notices a dead link after 15–20 s and the worker calls the agent
// lost 10 s later: 25–30 s, too close to a 30 s cut to tell apart. 3 s heartbeats put it at 19–22 s. The agent
// notices at 9–12 s and stops its own load 30 s later (orphan grace) unless its reconnect backoff (≤ 15 s) brings
// it back first: either way, everything it measured must arrive once it is back.
const heartbeatMs = 3_000;

const cluster = faultClusterPerFile({ agents: 2, heartbeatMs }, "agent-cut");

describe("fault: one agent is cut off from the network for 30 s mid-run (its namespace's link goes down)", () => {
  it("the run goes degraded, names the lost agent, ends finished, and every second either agent measured is stored once", async () => {
    const [kept, cut] = cluster().agents as [FaultAgent, FaultAgent];
    const runId = await cluster().startRun(durationSec);
    await untilAgentsMeasured(cluster(), runId, 3);

    const cutAt = Date.now();
    await cut.cut();
    // The gateway notices after three silent heartbeats, the worker calls it lost agentLostGraceMs (10 s) later.
    await waitForStatus(cluster().browser, runId, ["degraded"], cutMs); // from running, while the agent is still away
    // The outage itself is the thing under test: it lasts its 30 s whatever happens meanwhile.
    await new Promise((resolve) => setTimeout(resolve, cutAt + cutMs - Date.now()));
    await cut.restore();

    const { run } = await waitForStatus(cluster().browser, runId, [...TERMINAL_RUN_STATUSES], 60_000);
    expect(run.status).toBe("finished");
    const lost = run.events.filter((e) => e.kind === "agent-lost");
    expect(lost.map((e) => e.agentId)).toEqual([cut.id]);
    expect(run.error).toMatch(new RegExp(`agent \\S+ \\(${cut.id.slice(0, 8)}\\) was lost mid-run`));

    // Back on the network, the cut agent resends what it buffered (its shard ends at the planned end, or
    // earlier by itself after orphanGraceMs without the server); wait for its last status to arrive.
    await waitUntil(async () => cut.tap.record.statuses.get(runId)?.lastSeq !== undefined, {
      what: "the cut agent's final shard-status",
      timeoutMs: 45_000,
    });
    const settled = async () => {
      const { expected, stored } = await cluster().compare(runId);
      return JSON.stringify(expected) === JSON.stringify(stored);
    };
    // Its resends are acked one by one; the assertions below show the difference if they never all land.
    await waitUntil(settled, {
      what: "the cut agent's resent snapshots in the series",
      timeoutMs: 15_000,
      intervalMs: 500,
    }).catch(() => undefined);
    await expectSeriesEqualsMeasured(cluster(), runId, { durationSec, complete: [kept.id] });
  }, 180_000);
});
