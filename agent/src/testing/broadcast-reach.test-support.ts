import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { expect } from "vitest";
import { merged, total } from "./assignment";

/**
 * Checks a movement-sync run of 10 players in rooms of 5 at 10 Hz for ~2 s: the broadcasts expected, the share
 * received above `minReach`, one latency per broadcast received and no loss, duplicate or reordering; logs the
 * reach and latency under `server`'s name and returns the broadcasts received.
 */
export function expectTimedBroadcasts(snapshots: MetricSnapshot[], minReach: number, server: string): number {
  const expected = total(snapshots, "broadcastsExpected");
  const received = total(snapshots, "broadcastsReceived");
  // ~2 s of 10 players × 4 others at 10 Hz.
  expect(expected).toBeGreaterThan(10 * 4 * 10 * 1.5);
  expect(received / expected).toBeGreaterThan(minReach);
  const latency = merged(snapshots, "broadcastUs")!;
  expect(latency.totalCount).toBe(received);
  expect(total(snapshots, "lost") + total(snapshots, "duplicates") + total(snapshots, "outOfOrder")).toBe(0);
  console.log(
    `${server}: reach ${(received / expected).toFixed(4)} (${received}/${expected}), broadcast p50 ${latency.getValueAtPercentile(50)} µs p99 ${latency.getValueAtPercentile(99)} µs`,
  );
  return received;
}
