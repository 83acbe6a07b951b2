import { describe, expect, it } from "vitest";
import { MetricSnapshot } from "@throng/protocol/snapshot";
import type { HealthSampler } from "./health";
import { mergeSnapshots } from "./merge-snapshots";
import { cohortSummaryText, summaryText } from "../cli/progress";
import { judgeSlos, measuredOfSummary } from "@throng/protocol/slo-judge";
import type { Slo } from "@throng/protocol/plan";
import { measureStep } from "@throng/wire/capacity-step";
import { localFigures, localRecords, localRun, summariseSteps } from "./run-summary";
import { createSnapshotBuilder } from "./snapshot-builder";
import { KcpStats } from "../transports/kcp";
import { takeKcpCounters } from "../transports/kcp-transport";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
const health = (cpuPercent: number): HealthSampler => ({
  sample: () => ({ cpuPercent, eventLoopP99Ms: 1, rssBytes: 100, openFds: 10, fdLimit: 20_000, saturated: false }),
  stop() {},
});

function second(seq: number, rttMs: number[], cpu = 10) {
  const builder = createSnapshotBuilder({ runId, health: health(cpu) });
  for (const ms of rttMs) {
    builder.metrics.messageSent(10);
    builder.metrics.messageReceived(10);
    builder.metrics.roundTripMicros(ms * 1000);
  }
  return builder.take({ seq, intervalStart: seq * 1000, intervalMs: 1000, clients: 5 });
}

describe("run summary and SLOs", () => {
  it("merges histograms across seconds (p99 of the whole run, not an average of p99s)", () => {
    const fast = Array.from({ length: 99 }, () => 1);
    const summary = localRun([second(0, fast), second(1, [...fast.slice(0, 97), 100, 100, 100])]).summary!;
    expect(summary.roundTrips).toBe(199);
    expect(summary.rttP50Ms).toBeCloseTo(1, 1);
    expect(summary.rttMaxMs).toBeCloseTo(100, 0);
    expect(summary.messagesSent).toBe(199);
  });

  it("adds up reconnects by cause over the run and prints them in the summary; a run without any prints no line", () => {
    const dropped = (seq: number, causes: string[]) => {
      const builder = createSnapshotBuilder({ runId, health: health(10) });
      for (const cause of causes) builder.metrics.reconnecting(cause);
      return builder.take({ seq, intervalStart: seq * 1000, intervalMs: 1000, clients: 5 });
    };
    const seconds = [dropped(0, ["server", "storm"]), dropped(1, ["storm", "storm"])];
    const summary = localRun(seconds).summary!;
    expect(summary.reconnectsByCause).toEqual({ server: 1, storm: 3 });
    expect(summaryText(summary, localFigures(seconds), [])).toContain(
      'reconnects             4 by cause of the drop {"server":1,"storm":3}',
    );
    expect(summaryText(localRun([second(0, [1])]).summary!, localFigures([second(0, [1])]), [])).not.toContain(
      "reconnects",
    );
  });

  it("carries a KCP transport's counters: in every second from the builder, summed across engines and seconds, one line of the summary", () => {
    const stats = new KcpStats();
    const kcpSecond = (seq: number, retransmits: number) => {
      const builder = createSnapshotBuilder({
        runId,
        health: health(10),
        transportCounters: (counters) => takeKcpCounters(stats, counters),
      });
      Object.assign(stats, {
        retransmits,
        fastRetransmits: retransmits - 1,
        rtoExpiries: 1,
        datagramsSent: 10,
        datagramsReceived: 10,
        wireBytesSent: 1_180,
        wireBytesReceived: 1_090,
        payloadBytesSent: 1_000,
        payloadBytesReceived: 1_000,
      });
      return builder.take({ seq, intervalStart: seq * 1000, intervalMs: 1000, clients: 5 });
    };
    const first = kcpSecond(0, 3);
    expect(MetricSnapshot.parse(first).counters).toMatchObject({
      kcpRetransmits: 3,
      kcpWireBytesSent: 1_180,
      kcpPayloadBytesSent: 1_000,
    });
    // Taken into the second, the tally starts again.
    expect(stats.retransmits).toBe(0);
    const seconds = [mergeSnapshots([first, kcpSecond(0, 2)]), kcpSecond(1, 5)];
    const summary = localRun(seconds).summary!;
    expect(summary).toMatchObject({
      kcpRetransmits: 10,
      kcpFastRetransmits: 7,
      kcpRtoExpiries: 3,
      kcpWireBytesSent: 3_540,
    });
    expect(summaryText(summary, localFigures(seconds), [])).toContain(
      "kcp                    retransmits 10 (fast 7, RTO expiries 3); wire sent 3540 B in 30 datagrams for 3000 B of payload (+18.0%), received 3270 B in 30 datagrams for 3000 B (+9.0%)",
    );
    expect(summaryText(localRun([second(0, [1])]).summary!, localFigures([second(0, [1])]), [])).not.toContain("kcp");
  });

  it("judges an SLO scoped to a network cohort on the cohort's own seconds: in a step's hold and in the shared verdict", () => {
    // The run's clients answer in 5 ms, the mobile cohort's in 400 ms.
    const withMobile = (seq: number) => {
      const mobile = second(seq, [400, 400]);
      return {
        ...second(seq, [5, 5, 5]),
        cohorts: {
          mobile: {
            clients: 2,
            counters: mobile.counters,
            histograms: mobile.histograms,
            applied: "datagram" as const,
          },
        },
      };
    };
    const seconds = [withMobile(0), withMobile(1)];
    const slos: Slo[] = [
      { metric: "rtt-p99-ms", below: 50 },
      { metric: "rtt-p99-ms", below: 300, cohort: "mobile" },
    ];
    expect(measureStep(0, localRecords(seconds), slos).slos.map((r) => r.passed)).toEqual([true, false]);
    const run = localRun(seconds);
    const summary = run.summary!;
    expect(summary.cohorts?.mobile?.applied).toBe("datagram");
    expect(summary.cohorts?.mobile?.rttP99Ms).toBeCloseTo(400, -1);
    expect(run.seconds[0]!.cohorts?.mobile?.rttP99Ms).toBeCloseTo(400, -1);
    const [whole, cohort] = judgeSlos(slos, measuredOfSummary(summary), run.seconds, run.seconds);
    expect(whole).toMatchObject({ status: "met", breachedSeconds: 0 });
    expect(cohort).toMatchObject({ cohort: "mobile", status: "breached", breachedSeconds: 2, measuredSeconds: 2 });
    expect(summaryText(summary, localFigures(seconds), [cohort!])).toContain("SLO rtt-p99-ms (cohort mobile) < 300 ms");
    expect(cohortSummaryText("mobile", summary.cohorts!.mobile!)).toContain(
      "cohort mobile (each datagram): peak 2 clients",
    );
  });

  it("passes an SLO only when measured below its threshold, fails one it could not measure, and prints each in its unit", () => {
    const seconds = [second(0, [5, 5, 5])];
    const summary = localRun(seconds).summary!;
    const verdicts = judgeSlos(
      [
        { metric: "rtt-p99-ms", below: 10 },
        { metric: "rtt-p50-ms", below: 5 },
        { metric: "error-rate", below: 0.01 },
        { metric: "login-p99-ms", below: 100 },
      ],
      measuredOfSummary(summary),
      localRun(seconds).seconds,
    );
    expect(verdicts.map((r) => r.passed)).toEqual([true, false, true, false]);
    const text = summaryText(summary, localFigures(seconds), verdicts);
    expect(text).toContain("SLO rtt-p99-ms < 10 ms: 5.003 ms → pass");
    expect(text).toContain("SLO error-rate < 1%: 0% → pass");
    expect(text).toContain("SLO login-p99-ms < 100 ms: no data → NO DATA (no login was answered)");
  });

  it("merges the same second of several engines: counters summed, histograms merged, CPU added, schema-valid", () => {
    const merged = mergeSnapshots([second(3, [1, 2], 40), second(3, [3], 30)]);
    expect(merged.counters.messagesSent).toBe(3);
    expect(merged.clients).toBe(10);
    expect(merged.health).toMatchObject({ cpuPercent: 70, engines: 2, openFds: 20, rssBytes: 200 });
    expect(localRun([merged]).summary!.roundTrips).toBe(3);
    expect(MetricSnapshot.safeParse(merged).success).toBe(true);
  });

  it("groups a step-up run's seconds by step", () => {
    const tagged = [second(0, [1]), second(1, [2]), second(2, [50, 50])].map((s, i) => ({ ...s, step: i < 2 ? 0 : 1 }));
    const steps = summariseSteps(tagged);
    expect(steps.map((s) => [s.step, s.seconds, s.receivedPerSec])).toEqual([
      [0, 2, 1],
      [1, 1, 2],
    ]);
    expect(steps[1]!.rttP99Ms).toBeCloseTo(50, 0);
  });
});
