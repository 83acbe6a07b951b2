import type { MetricSnapshot, SnapshotCounters } from "@throng/protocol/snapshot";

type Traffic = Pick<SnapshotCounters, "messagesSent" | "messagesReceived" | "bytesSent" | "bytesReceived">;

/**
 * Second `seq` of a shard's snapshots as its agent sends them: `clients` connections held open (all opened in
 * second 0), none failed or closed, no errors; `figures` gives the traffic, the histograms and anything else the
 * test reads.
 */
export function heldSnapshot(
  shard: { runId: string; startAt: number },
  seq: number,
  clients: number,
  {
    counters,
    ...figures
  }: { counters: Traffic & Partial<SnapshotCounters> } & Pick<MetricSnapshot, "histograms"> &
    Partial<Omit<MetricSnapshot, "counters">>,
): MetricSnapshot {
  return {
    runId: shard.runId,
    seq,
    intervalStart: shard.startAt + seq * 1000,
    intervalMs: 1000,
    clients,
    counters: {
      connectionsOpen: clients,
      connectionsOpened: seq ? 0 : clients,
      connectionsFailed: 0,
      connectionsClosed: 0,
      errors: 0,
      ...counters,
    },
    health: { cpuPercent: 3, eventLoopP99Ms: 1, rssBytes: 1 },
    ...figures,
  };
}
