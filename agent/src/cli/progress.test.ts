import { describe, expect, it } from "vitest";
import type { HealthSampler } from "../metrics/health";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { progressLine, progressTableRows, serverSummaryText } from "./progress";

const health: HealthSampler = {
  sample: () => ({
    cpuPercent: 97,
    eventLoopP99Ms: 3,
    rssBytes: 1,
    saturated: true,
    saturatedReason: "agent CPU at 97%",
  }),
  stop() {},
};

function snapshot() {
  const builder = createSnapshotBuilder({ runId: "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e", health });
  builder.metrics.connectionOpened(1_000);
  builder.metrics.messageSent(10);
  builder.metrics.roundTripMicros(2_500);
  return builder.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 });
}

describe("live progress", () => {
  it("one line per second names rates, latency and an agent that is the bottleneck", () => {
    const line = progressLine(snapshot());
    expect(line).toMatch(/clients 1 open 1/);
    expect(line).toMatch(/rtt p50 2\.50/);
    expect(line).toMatch(/AGENT SATURATED: agent CPU at 97%/);
  });

  it("names the host's CPU steal once it is more than noise", () => {
    const withSteal = (stealPercent: number) => {
      const s = snapshot();
      return progressLine({ ...s, health: { ...s.health, stealPercent } });
    };
    expect(withSteal(14.4)).toMatch(/steal 14%/);
    expect(withSteal(0.3)).not.toMatch(/steal/);
  });

  it("on a terminal, a table with a header on the first row and every 20th", () => {
    expect(progressTableRows(snapshot(), 0)).toHaveLength(2);
    expect(progressTableRows(snapshot(), 1)).toHaveLength(1);
    expect(progressTableRows(snapshot(), 20)[0]).toMatch(/sec\s+clients/);
  });
});

describe("live progress with a watched server", () => {
  const server = {
    seq: 0,
    intervalStart: 0,
    intervalMs: 1000,
    pid: 7,
    cpuPercent: 42.4,
    rssBytes: 50 * 1_048_576,
    network: { packetsInPerSec: 12_000, packetsOutPerSec: 11_000, bytesInPerSec: 1, bytesOutPerSec: 1 },
  };

  it("the line and the table carry the server's CPU, RSS and packets in the same second", () => {
    expect(progressLine({ ...snapshot(), server })).toMatch(/server cpu 42% rss 50\.0 MiB pkt\/s in 12k out 11k/);
    const [header, row] = progressTableRows({ ...snapshot(), server }, 0, true);
    expect(header).toMatch(/srv cpu%\s+srv MiB\s+pkt\/s in$/);
    expect(row).toMatch(/\s42\s+50\.0\s+12k SATURATED/);
    expect(progressTableRows(snapshot(), 1, true)[0]).toMatch(/\s-\s+-\s+- SATURATED/);
  });

  it("the summary says plainly when the server exited during the run", () => {
    expect(serverSummaryText(7, undefined, -1)).toMatch(
      /server \(pid 7\)\s+EXITED during the run: before the load started/,
    );
    expect(serverSummaryText(7, undefined, 4)).toMatch(/last seen in second 5/);
  });
});
