import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured, untilAgentsMeasured } from "./support/assertions";
import { startFaultCluster, type FaultCluster } from "./support/fault-cluster";

const durationSec = 14;
let cluster: FaultCluster;

beforeAll(async () => {
  cluster = await startFaultCluster({ agents: 2 });
}, 120_000);
afterAll(async () => cluster?.close(), 60_000);

describe("fault: the workers process is killed with SIGKILL mid-run and a new one started", () => {
  it("the run ends finished (its finish job waits in Redis for the new worker) with the series the agents measured", async () => {
    const runId = await cluster.startRun(durationSec);
    await untilAgentsMeasured(cluster, runId, 3);

    await cluster.killWorkers(); // the planned-end finish-run job is delayed in Redis, owned by no process
    await untilAgentsMeasured(cluster, runId, 6); // ingest does not need a worker: the series keeps growing
    await cluster.startWorkers();

    const { run } = await waitForStatus(cluster.browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    expect(run.status).toBe("finished");
    expect(run.error).toBeNull();
    await expectSeriesEqualsMeasured(cluster, runId, { durationSec, complete: cluster.agents.map((a) => a.id) });
  }, 150_000);
});
