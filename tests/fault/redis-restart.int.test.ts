import { describe, it } from "vitest";
import { expectRunHeals } from "./support/assertions";
import { faultClusterPerFile } from "./support/cluster-per-file";

// Its own Redis, append-only like `npm start`'s, so restarting it disturbs no other test file.
const cluster = faultClusterPerFile({ agents: 2, privateRedis: true });

describe("fault: Redis is restarted mid-run (SIGTERM, then a new server on the same port and data)", () => {
  it("the run ends finished and the stored series equals what both agents measured", async () => {
    await expectRunHeals(cluster(), { durationSec: 14, faultAfterSeconds: 4 }, async () => {
      // While Redis is away the API cannot publish live points and the workers cannot take jobs;
      // the delayed finish-run job and the live sequence survive in the append-only file.
      await cluster().restartRedis();
    });
  }, 150_000);
});
