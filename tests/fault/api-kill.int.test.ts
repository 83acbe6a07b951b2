import { describe, it } from "vitest";
import { expectFinishedAsMeasured, untilAgentsMeasured } from "./support/assertions";
import { faultClusterPerFile } from "./support/cluster-per-file";

const durationSec = 16;

const cluster = faultClusterPerFile({ agents: 2 });

describe("fault: the API process is killed with SIGKILL mid-run and started again", () => {
  it("the run ends finished and the stored series equals what both agents measured", async () => {
    const runId = await cluster().startRun(durationSec);
    await untilAgentsMeasured(cluster(), runId, 4);

    await cluster().killApi(); // no shutdown handler: agents see their sockets reset, nothing is flushed
    await cluster().startApi();

    // Agents reconnect (backoff ≤ 15 s), resend what was not acked, and report their shards' ends.
    await expectFinishedAsMeasured(cluster(), runId, durationSec);
  }, 150_000);
});
