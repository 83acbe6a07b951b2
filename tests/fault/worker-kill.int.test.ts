import { describe, it } from "vitest";
import { expectRunHeals, untilAgentsMeasured } from "./support/assertions";
import { faultClusterPerFile } from "./support/cluster-per-file";

const cluster = faultClusterPerFile({ agents: 2 });

describe("fault: the workers process is killed with SIGKILL mid-run and a new one started", () => {
  it("the run ends finished (its finish job waits in Redis for the new worker) with the series the agents measured", async () => {
    await expectRunHeals(cluster(), { durationSec: 14, faultAfterSeconds: 3 }, async (runId) => {
      await cluster().killWorkers(); // the planned-end finish-run job is delayed in Redis, owned by no process
      await untilAgentsMeasured(cluster(), runId, 6); // ingest does not need a worker: the series keeps growing
      await cluster().startWorkers();
    });
  }, 150_000);
});
