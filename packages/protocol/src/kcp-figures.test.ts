import { describe, expect, it } from "vitest";
import { kcpFigures, kcpOverheadPercent, kcpSummaryText } from "./kcp-figures";
import { seriesPoint } from "./series-point.test-support";
import { quietSnapshot } from "./metric-snapshot.test-support";
import { MetricSnapshot, SeriesPoint } from "./snapshot";

// agent/PROTOCOL.md §5: a KCP target's snapshot carries the kcp* counters; the control plane keeps them in each
// series point and reads their overhead one way (kcp-figures.ts).

const kcpCounters = {
  kcpRetransmits: 12,
  kcpFastRetransmits: 9,
  kcpRtoExpiries: 3,
  kcpDatagramsSent: 400,
  kcpDatagramsReceived: 390,
  kcpWireBytesSent: 11_800,
  kcpWireBytesReceived: 11_000,
  kcpPayloadBytesSent: 10_000,
  kcpPayloadBytesReceived: 10_000,
};

function snapshot(counters: object) {
  return quietSnapshot({
    runId: "00000000-0000-4000-8000-000000000001",
    intervalStart: 1_700_000_000_000,
    clients: 10,
    counters: {
      connectionsOpen: 10,
      connectionsOpened: 10,
      messagesSent: 100,
      messagesReceived: 100,
      bytesSent: 6400,
      bytesReceived: 6400,
      ...counters,
    },
    health: { cpuPercent: 5, eventLoopP99Ms: 1, rssBytes: 1 },
  });
}

describe("§5 a snapshot's KCP counters", () => {
  it("are carried as sent, in the run's and a cohort's counters", () => {
    const parsed = MetricSnapshot.parse({
      ...snapshot(kcpCounters),
      cohorts: {
        lossy: { clients: 5, counters: snapshot(kcpCounters).counters, histograms: { rttUs: "" }, applied: "datagram" },
      },
    });
    expect(parsed.counters).toMatchObject(kcpCounters);
    expect(parsed.cohorts?.lossy?.counters).toMatchObject(kcpCounters);
  });

  it("are optional: a TCP target's snapshot has none", () => {
    expect(MetricSnapshot.parse(snapshot({})).counters.kcpRetransmits).toBeUndefined();
  });

  it("refuse negative and fractional counts, naming the counter", () => {
    const issues = (counters: object) =>
      (MetricSnapshot.safeParse(snapshot(counters)).error?.issues ?? []).map((issue) => issue.path.join("."));
    expect(issues({ kcpRetransmits: -1 })).toEqual(["counters.kcpRetransmits"]);
    expect(issues({ kcpWireBytesSent: 1.5 })).toEqual(["counters.kcpWireBytesSent"]);
  });

  it("stay in a series point, so the stored series and the exports carry them", () => {
    const point = SeriesPoint.parse(seriesPoint(kcpCounters));
    expect(point).toMatchObject(kcpCounters);
  });
});

describe("KCP's overhead", () => {
  it("is wire bytes over payload bytes, less one, in percent; none without payload", () => {
    expect(kcpOverheadPercent(1_180, 1_000)).toBeCloseTo(18);
    expect(kcpOverheadPercent(0, 0)).toBeNull();
  });

  it("is read both ways together and each way, with the retransmissions by cause", () => {
    const figures = kcpFigures(kcpCounters)!;
    expect(figures).toMatchObject({
      retransmits: 12,
      fastRetransmits: 9,
      rtoExpiries: 3,
      wireBytes: 22_800,
      payloadBytes: 20_000,
    });
    expect(figures.overheadPercent).toBeCloseTo(14);
    expect(figures.overheadSentPercent).toBeCloseTo(18);
    expect(figures.overheadReceivedPercent).toBeCloseTo(10);
  });

  it("is nothing for figures without KCP counters", () => {
    expect(kcpFigures({})).toBeNull();
    expect(kcpSummaryText({})).toBeUndefined();
  });

  it("reads the same in the command lines' summary line", () => {
    expect(kcpSummaryText(kcpCounters)).toBe(
      "retransmits 12 (fast 9, RTO expiries 3); wire sent 11800 B in 400 datagrams for 10000 B of payload (+18.0%), received 11000 B in 390 datagrams for 10000 B (+10.0%)",
    );
  });
});
