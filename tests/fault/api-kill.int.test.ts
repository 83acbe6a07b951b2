import { describe, it } from "vitest";
import { expectRunHeals } from "./support/assertions";
import { faultClusterPerFile } from "./support/cluster-per-file";

const cluster = faultClusterPerFile({ agents: 2 });

describe("fault: the API process is killed with SIGKILL mid-run and started again", () => {
  it("the run ends finished and the stored series equals what both agents measured", async () => {
    await expectRunHeals(cluster(), { durationSec: 16, faultAfterSeconds: 4 }, async () => {
      await cluster().killApi(); // no shutdown handler: agents see their sockets reset, nothing is flushed
      await cluster().startApi();
      // Agents reconnect (backoff ≤ 15 s), resend what was not acked, and report their shards' ends.
    });
  }, 150_000);
});
