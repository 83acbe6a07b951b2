import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured, untilAgentsMeasured } from "./support/assertions";
import { startFaultCluster, type FaultCluster } from "./support/fault-cluster";

const durationSec = 16;
let cluster: FaultCluster;

beforeAll(async () => {
  cluster = await startFaultCluster({ agents: 2 });
}, 120_000);
afterAll(async () => cluster?.close(), 60_000);

describe("fault: the API process is killed with SIGKILL mid-run and started again", () => {
  it("the run ends finished and the stored series equals what both agents measured", async () => {
    const runId = await cluster.startRun(durationSec);
    await untilAgentsMeasured(cluster, runId, 4);

    await cluster.killApi(); // no shutdown handler: agents see their sockets reset, nothing is flushed
    await cluster.startApi();

    // Agents reconnect (backoff ≤ 15 s), resend what was not acked, and report their shards' ends.
    const { run } = await waitForStatus(cluster.browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    expect(run.status).toBe("finished");
    expect(run.error).toBeNull();
    await expectSeriesEqualsMeasured(cluster, runId, { durationSec, complete: cluster.agents.map((a) => a.id) });
  }, 150_000);
});
