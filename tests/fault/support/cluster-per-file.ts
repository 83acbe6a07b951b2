import { afterAll, beforeAll } from "vitest";
import { startFaultCluster, type FaultCluster, type FaultClusterOptions } from "./fault-cluster";

/**
 * The test file's fault cluster: started before its tests, closed after them; call the function it returns inside a
 * test for the running cluster. A file that cuts agents off names itself in `cutter`, so that a host without network
 * namespaces says the cuts fall back to the relay's blackhole.
 */
export function faultClusterPerFile(options: FaultClusterOptions, cutter?: string): () => FaultCluster {
  let cluster: FaultCluster | undefined;
  beforeAll(async () => {
    cluster = await startFaultCluster(options);
    if (cutter && cluster.noNamespaces)
      console.warn(
        `${cutter}: no network namespaces (${cluster.noNamespaces}); cutting with the relay's blackhole instead`,
      );
  }, 120_000);
  afterAll(async () => cluster?.close(), 60_000);
  return () => {
    if (!cluster) throw new Error("the fault cluster is not up: call it inside a test, after beforeAll");
    return cluster;
  };
}
