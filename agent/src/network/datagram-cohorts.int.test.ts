import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget, type RunningTarget } from "../target/target-server";
import { total } from "../testing/assignment";
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
    console.log(`UDP cohort: rtt p50 ${figures.cohortRtt(50)} ms, p99 ${figures.cohortRtt(99)} ms; run p50 ${figures.runRtt(50)} ms; packets ${figures.count("networkPackets")}, dropped ${figures.count("networkDropped")}, lost ${figures.count("lost")}`);
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
    console.log(`KCP cohort: rtt p50 ${figures.cohortRtt(50)} ms, p99 ${figures.cohortRtt(99)} ms; retransmits cohort ${figures.count("kcpRetransmits")} vs rig ${figures.rigCount("kcpRetransmits")}; dropped ${figures.count("networkDropped")} of ${figures.count("networkPackets")}`);
    expect(figures.count("networkDropped")).toBeGreaterThan(0);
    expect(figures.count("kcpRetransmits")).toBeGreaterThan(figures.rigCount("kcpRetransmits"));
    expect(figures.count("kcpRetransmits")).toBeGreaterThan(0);
    expect(figures.count("lost")).toBe(0);
    expect(figures.count("errors")).toBe(0);
    // Every ping the cohort sent was answered, but for those still in flight at the end.
    expect(figures.count("messagesReceived") + figures.count("inFlightAtEnd")).toBe(figures.count("messagesSent"));
    expect(figures.cohortRtt(50)).toBeGreaterThanOrEqual(40);
  });
});
