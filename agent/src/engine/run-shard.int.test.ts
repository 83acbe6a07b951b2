import { describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { decodeHistogram } from "../metrics/histogram";
import { useReferenceTarget } from "../testing/reference-target.test-support";
import { startTarget } from "../target/target-server";
import { runShard } from "./run-shard";

const startTestTarget = useReferenceTarget();

function assignment(url: string, clients: number, durationSec: number): RunAssignment {
  return {
    runId: "9b1e7c2d-3f4a-4b5c-8d6e-7f8a9b0c1d2e",
    shardIndex: 0,
    shardCount: 1,
    clients,
    startAt: Date.now(),
    plan: {
      name: "engine integration",
      target: { protocol: "websocket", url },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
      load: { clients, durationSec, rampUpSec: 0 },
    },
  };
}

async function run(url: string, clients: number, durationSec: number): Promise<MetricSnapshot[]> {
  const snapshots: MetricSnapshot[] = [];
  await runShard(assignment(url, clients, durationSec), { onSnapshot: (s) => snapshots.push(s) });
  return snapshots;
}

/** Merges every snapshot's RTT histogram, as the server does across seconds. */
function mergedRtt(snapshots: MetricSnapshot[]) {
  const [first, ...rest] = snapshots.map((s) => decodeHistogram(s.histograms.rttUs));
  for (const histogram of rest) first!.add(histogram);
  return first!;
}

describe("engine against the reference target", () => {
  it("runs 20 ping-pong clients for 3 s and measures real round trips", async () => {
    const target = await startTestTarget({ port: 0 });
    const snapshots = await run(target.url, 20, 3);

    expect(snapshots.map((s) => s.seq)).toEqual([0, 1, 2]);
    expect(snapshots[0]!.counters.connectionsOpened).toBe(20);
    for (const snapshot of snapshots) {
      expect(snapshot.counters.messagesReceived).toBeGreaterThan(0);
      expect(snapshot.counters.bytesSent).toBe(snapshot.counters.messagesSent * 64);
      expect(decodeHistogram(snapshot.histograms.rttUs).totalCount).toBeGreaterThan(0);
    }
    expect(snapshots.reduce((sum, s) => sum + s.counters.errors + s.counters.connectionsFailed, 0)).toBe(0);
  });

  it("measures the target's 20 ms delay: p50 at least 20 ms and under 40 ms", async () => {
    const target = await startTestTarget({ port: 0, delayMs: 20 });
    const rtt = mergedRtt(await run(target.url, 20, 2));

    expect(rtt.totalCount).toBeGreaterThan(100);
    expect(rtt.getValueAtPercentile(50) / 1000).toBeGreaterThanOrEqual(20);
    expect(rtt.getValueAtPercentile(50) / 1000).toBeLessThan(40);
  });

  it("counts refused connections instead of throwing", async () => {
    const closed = await startTarget({ port: 0 });
    const url = closed.url;
    await closed.close();
    const snapshots = await run(url, 5, 1);
    expect(snapshots[0]!.counters).toMatchObject({ connectionsFailed: 5, connectionsOpen: 0 });
  });
});
