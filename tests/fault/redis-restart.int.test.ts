import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured, untilAgentsMeasured } from "./support/assertions";
import { startFaultCluster, type FaultCluster } from "./support/fault-cluster";

const durationSec = 14;
let cluster: FaultCluster;

beforeAll(async () => {
  // Its own Redis, append-only like `npm start`'s, so restarting it disturbs no other test file.
  cluster = await startFaultCluster({ agents: 2, privateRedis: true });
}, 120_000);
afterAll(async () => cluster?.close(), 60_000);

describe("fault: Redis is restarted mid-run (SIGTERM, then a new server on the same port and data)", () => {
  it("the run ends finished and the stored series equals what both agents measured", async () => {
    const runId = await cluster.startRun(durationSec);
    await untilAgentsMeasured(cluster, runId, 4);

    // While Redis is away the API cannot publish live points and the workers cannot take jobs;
    // the delayed finish-run job and the live sequence survive in the append-only file.
    await cluster.restartRedis();

    const { run } = await waitForStatus(cluster.browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    expect(run.status).toBe("finished");
    expect(run.error).toBeNull();
    await expectSeriesEqualsMeasured(cluster, runId, { durationSec, complete: cluster.agents.map((a) => a.id) });
  }, 150_000);
});
