import { zeroCounters, type MetricSnapshot, type SnapshotCounters } from "./snapshot";

/**
 * A quiet second of a run for unit tests (the agent's and the api's): one client, no connection, no traffic, no
 * error, an empty RTT histogram; `more` overrides the rest and merges into the counters.
 */
export function quietSnapshot(
  more: Partial<Omit<MetricSnapshot, "counters">> & { counters?: Partial<SnapshotCounters> } = {},
): MetricSnapshot {
  const { counters, ...rest } = more;
  return {
    runId: "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e",
    seq: 0,
    intervalStart: 0,
    intervalMs: 1_000,
    clients: 1,
    counters: { ...zeroCounters(), ...counters },
    histograms: { rttUs: "" },
    health: { cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 },
    ...rest,
  };
}
