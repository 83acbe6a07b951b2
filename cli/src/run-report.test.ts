import { describe, expect, it } from "vitest";
import type { RunSummary } from "@throng/protocol/run";
import { summaryLines } from "./run-report";

const summary: RunSummary = {
  agents: 1,
  peakClients: 10,
  peakConnections: 10,
  durationSec: 30,
  messagesSent: 3_000,
  messagesReceived: 3_000,
  messagesPerSec: 100,
  connectionsFailed: 0,
  errors: 0,
  rttP50Ms: 41,
  rttP99Ms: 340,
  rttMaxMs: 700,
};

describe("the CLI's run summary", () => {
  it("prints a KCP run's retransmissions and wire bytes against payload bytes, and no KCP line for other runs", () => {
    const kcp = {
      ...summary,
      kcpRetransmits: 160,
      kcpFastRetransmits: 10,
      kcpRtoExpiries: 150,
      kcpDatagramsSent: 4_000,
      kcpDatagramsReceived: 3_900,
      kcpWireBytesSent: 290_000,
      kcpWireBytesReceived: 250_000,
      kcpPayloadBytesSent: 192_000,
      kcpPayloadBytesReceived: 192_000,
    };
    expect(summaryLines(kcp)).toContain(
      "  kcp           retransmits 160 (fast 10, RTO expiries 150); wire sent 290000 B in 4000 datagrams for 192000 B of payload (+51.0%), received 250000 B in 3900 datagrams for 192000 B (+30.2%)",
    );
    expect(summaryLines(summary).join("\n")).not.toContain("kcp");
  });
});
