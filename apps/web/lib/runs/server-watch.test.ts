import { describe, expect, it } from "vitest";
import type { ServerPoint } from "@throng/protocol/server-watch";
import { mergeServerPoints, serverLines, serverSentence } from "./server-watch";

const A = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
const B = "7f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
function point(agentId: string, seq: number, rssMiB = 10): ServerPoint {
  return {
    agentId,
    seq,
    t: 1000 + seq,
    intervalStart: (1000 + seq) * 1000,
    intervalMs: 1000,
    pid: 7,
    cpuPercent: 20 + seq,
    rssBytes: rssMiB * 1_048_576,
    network: { packetsInPerSec: 5, packetsOutPerSec: 6, bytesInPerSec: 1, bytesOutPerSec: 1 },
  };
}

describe("the server under test in the browser", () => {
  it("merges live and fetched seconds once per watcher and second, in time order", () => {
    const merged = mergeServerPoints([point(A, 1), point(A, 0)], [point(A, 1, 12), point(B, 0)]);
    expect(merged.map((p) => [p.agentId === A ? "A" : "B", p.seq])).toEqual([
      ["A", 0],
      ["B", 0],
      ["A", 1],
    ]);
    expect(merged.find((p) => p.agentId === A && p.seq === 1)?.rssBytes).toBe(12 * 1_048_576);
  });

  it("draws CPU, RSS in MiB and packets, one line per watcher, named by host when there are several", () => {
    const one = serverLines([A], () => "db-1");
    expect(one.cpu.map((l) => l.label)).toEqual(["CPU %"]);
    expect(one.rss[0]!.value(point(A, 0, 64))).toBe(64);
    expect(one.packets.map((l) => l.value(point(A, 0)))).toEqual([5, 6]);
    const two = serverLines([A, B], (id) => (id === A ? "db-1" : "db-2"));
    expect(two.cpu.map((l) => l.label)).toEqual(["db-1 CPU %", "db-2 CPU %"]);
    expect(two.cpu[1]!.value(point(A, 0))).toBeNull();
  });

  it("says plainly when memory climbed", () => {
    const summary = {
      seconds: 60,
      cpuPeakPercent: 90,
      cpuMeanPercent: 40,
      rssStartBytes: 100 * 1_048_576,
      rssEndBytes: 130 * 1_048_576,
      rssPeakBytes: 130 * 1_048_576,
      rssGrowthBytesPerMin: 30 * 1_048_576,
      memoryClimb: true,
      packetsPeakPerSec: 9000,
      packetsMeanPerSec: 7000,
    };
    expect(serverSentence(summary)).toBe(
      "CPU peak 90 % (mean 40 %), memory 100.0 → 130.0 MiB (+30.0 MiB/min), packets peak 9000/s. Memory climbed steadily through the run: look for a leak.",
    );
  });
});
