import { describe, expect, it } from "vitest";
import { hasKcp, kcpSentence, KCP_OVERHEAD_LINES, KCP_RETRANSMIT_LINES } from "./kcp-series";
import { seriesPoint } from "../shared/series-point.test-support";

const kcp = {
  kcpRetransmits: 30,
  kcpFastRetransmits: 20,
  kcpRtoExpiries: 10,
  kcpWireBytesSent: 1_150_000,
  kcpWireBytesReceived: 1_100_000,
  kcpPayloadBytesSent: 1_000_000,
  kcpPayloadBytesReceived: 1_000_000,
};

describe("a KCP run's section", () => {
  it("is there only when the seconds carry KCP's counters", () => {
    expect(hasKcp([seriesPoint()])).toBe(false);
    expect(hasKcp([seriesPoint(), seriesPoint(kcp)])).toBe(true);
  });

  it("charts retransmissions by cause and the overhead in percent each second, nothing for a second without KCP", () => {
    expect(KCP_RETRANSMIT_LINES.map((line) => line.value(seriesPoint(kcp)))).toEqual([30, 20, 10]);
    expect(KCP_OVERHEAD_LINES.map((line) => line.value(seriesPoint(kcp)))).toEqual([12.5, 15, 10]);
    expect(KCP_OVERHEAD_LINES[0]!.value(seriesPoint())).toBeNull();
  });

  it("says the run's figures in one sentence", () => {
    expect(kcpSentence(kcp)).toBe(
      "30 retransmissions (20 fast, 10 RTO expiries); 2.25 MB on the wire for 2 MB of payload: +12.5 % overhead (sent +15 %, received +10 %).",
    );
    expect(kcpSentence({})).toBeUndefined();
  });
});
