import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget, type RunningTarget } from "../target/target-server";
import { merged, total } from "../testing/assignment";
import { cohortFigures, runCohortPlan } from "../testing/cohort-run";

/**
 * A datagram cohort against the reference target (issue 26 §2): half the clients on a 20 ms each way, 10% loss
 * link, applied per datagram on the agent's datagram path; the other half on the rig's loopback. Latency bounds are
 * the delay asked (a floor nothing can undercut) and, above it, the rig clients' own p99 measured in the same run.
 */

let target: RunningTarget;
beforeAll(async () => {
  target = await startTarget({ port: 0, udp: { port: 0 }, kcp: { port: 0, mode: "fast" }, warn: () => {} });
});
afterAll(() => target.close());

const cohort = { name: "lossy", share: 0.5, delayMs: 20, lossPercent: 10 } as const;
const load = { clients: 20, durationSec: 4, rampUpSec: 0 };

describe("a datagram cohort's network (delay and loss per datagram)", () => {
  it("UDP: the cohort's round trips take the 40 ms asked, a tenth of its datagrams each way are lost, the rig's clients are untouched", async () => {
    const snapshots = await runCohortPlan({
      target: { protocol: "udp", host: "127.0.0.1", port: target.udpPort! },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64, timeoutMs: 300 },
      load,
      network: [cohort],
    });
    const figures = cohortFigures(snapshots, "lossy");
    console.log(
      `UDP cohort: rtt p50 ${figures.cohortRtt(50)} ms, p99 ${figures.cohortRtt(99)} ms; run p50 ${figures.runRtt(50)} ms; packets ${figures.count("networkPackets")}, dropped ${figures.count("networkDropped")}, lost ${figures.count("lost")}`,
    );
    expect(snapshots.every((s) => s.cohorts?.lossy?.applied === "datagram")).toBe(true);
    expect(figures.cohortRtt(50)).toBeGreaterThanOrEqual(40);
    const packets = figures.count("networkPackets");
    const dropped = figures.count("networkDropped");
    expect(packets).toBeGreaterThan(200);
    expect(dropped / packets).toBeGreaterThan(0.04);
    expect(dropped / packets).toBeLessThan(0.18);
    // A dropped ping or pong is a lost round trip, found by the scenario itself; the rig's clients lost none.
    expect(figures.count("lost")).toBeGreaterThan(0);
    expect(figures.rigCount("lost")).toBe(0);
    // Only the cohort's clients pass links: the run's own counters carry no network figures.
    expect(total(snapshots, "networkPackets")).toBe(0);
  });

  it("KCP: the cohort's losses are retransmitted by KCP (retransmissions rise, no message is lost), and its round trips take at least the 40 ms asked", async () => {
    const snapshots = await runCohortPlan({
      target: { protocol: "kcp", host: "127.0.0.1", port: target.kcpPort!, mode: "fast" },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
      load,
      network: [cohort],
    });
    const figures = cohortFigures(snapshots, "lossy");
    console.log(
      `KCP cohort: rtt p50 ${figures.cohortRtt(50)} ms, p99 ${figures.cohortRtt(99)} ms; retransmits cohort ${figures.count("kcpRetransmits")} vs rig ${figures.rigCount("kcpRetransmits")}; dropped ${figures.count("networkDropped")} of ${figures.count("networkPackets")}`,
    );
    expect(figures.count("networkDropped")).toBeGreaterThan(0);
    expect(figures.count("kcpRetransmits")).toBeGreaterThan(figures.rigCount("kcpRetransmits"));
    expect(figures.count("kcpRetransmits")).toBeGreaterThan(0);
    expect(figures.count("lost")).toBe(0);
    expect(figures.count("errors")).toBe(0);
    // Every ping the cohort sent was answered, but for those still in flight at the end.
    expect(figures.count("messagesReceived") + figures.count("inFlightAtEnd")).toBe(figures.count("messagesSent"));
    expect(figures.cohortRtt(50)).toBeGreaterThanOrEqual(40);
  });

  it("KCP rooms mixing cohorts: a 30% cohort at 100 ± 30 ms with 5% loss receives its broadcasts late but all of them, counted against what its own players should receive", async () => {
    const snapshots = await runCohortPlan({
      target: { protocol: "kcp", host: "127.0.0.1", port: target.kcpPort!, mode: "fast" },
      // 5 Hz: 45 broadcasts a second per player stay within what a 32-segment KCP window carries over a 200 ms round trip.
      scenario: { kind: "movement-sync", roomSize: 10, updateHz: 5 },
      load: { clients: 40, durationSec: 4, rampUpSec: 0 },
      network: [{ name: "mobile", share: 0.3, delayMs: 100, jitterMs: 30, lossPercent: 5 }],
    });
    const mobile = cohortFigures(snapshots, "mobile");
    const broadcast = merged(mobile.cohort, "broadcastUs")!;
    const expected = { mobile: mobile.count("broadcastsExpected"), rig: mobile.rigCount("broadcastsExpected") };
    const received = { mobile: mobile.count("broadcastsReceived"), rig: mobile.rigCount("broadcastsReceived") };
    console.log(
      `KCP rooms: mobile broadcast p50 ${broadcast.getValueAtPercentile(50) / 1000} ms p99 ${broadcast.getValueAtPercentile(99) / 1000} ms, reach ${(received.mobile / expected.mobile).toFixed(3)}; ` +
        `rig reach ${(received.rig / expected.rig).toFixed(3)}; mobile kcp retransmits ${mobile.count("kcpRetransmits")}`,
    );
    // 12 of the 40 players, in every room: each room's broadcasts reach both cohorts.
    expect(Math.max(...mobile.cohort.map((s) => s.clients))).toBe(12);
    expect(expected.mobile).toBeGreaterThan(0);
    expect(expected.rig).toBeGreaterThan(expected.mobile);
    // A mobile player's broadcast comes down its own link at least: 100 ms less the 30 ms of jitter.
    expect(broadcast.getValueAtPercentile(50)).toBeGreaterThanOrEqual(70_000);
    // KCP delivers what the link lost; what is still in flight at the end is all that may be missing.
    expect(received.mobile / expected.mobile).toBeGreaterThan(0.8);
    expect(mobile.count("lost")).toBe(0);
    expect(mobile.count("kcpRetransmits")).toBeGreaterThan(0);
  });
});
