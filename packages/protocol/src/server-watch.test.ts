import { describe, expect, it } from "vitest";
import { MEMORY_CLIMB, serverWatchText, summariseServerWatch, type ServerSampleFigures } from "./server-watch";

const MiB = 1_048_576;

function samples(
  rssAt: (second: number) => number,
  count: number,
  cpuAt: (second: number) => number = () => 50,
): ServerSampleFigures[] {
  return Array.from({ length: count }, (_, i) => ({
    intervalStart: 1_700_000_000_000 + i * 1000,
    cpuPercent: cpuAt(i),
    rssBytes: Math.round(rssAt(i)),
    network: { packetsInPerSec: 100 + i, packetsOutPerSec: 100 + i },
  }));
}

describe("summarising the server under test", () => {
  it("gives CPU peak and mean, RSS start → end and packets/s over the run", () => {
    const summary = summariseServerWatch(
      samples(
        () => 40 * MiB,
        4,
        (i) => [10, 20, 90, 40][i]!,
      ),
    )!;
    expect(summary).toMatchObject({
      seconds: 4,
      cpuPeakPercent: 90,
      cpuMeanPercent: 40,
      rssStartBytes: 40 * MiB,
      rssEndBytes: 40 * MiB,
      rssGrowthBytesPerMin: 0,
      memoryClimb: false,
    });
    expect(summary.packetsPeakPerSec).toBe(206);
    expect(summary.packetsMeanPerSec).toBe(203);
  });

  it("measures a steady climb as growth per minute (least squares, not the noisy end points) and flags it", () => {
    // 2 MiB/min = 1/30 MiB per second, with ±0.3 MiB of noise alternating second by second.
    const summary = summariseServerWatch(samples((i) => 100 * MiB + (i * MiB) / 30 + (i % 2 ? 0.3 : -0.3) * MiB, 60))!;
    expect(summary.rssGrowthBytesPerMin / MiB).toBeCloseTo(2, 1);
    expect(summary.memoryClimb).toBe(true);
    expect(serverWatchText(summary)).toMatch(/RSS 99\.7 → 102\.3 MiB .*\+2\.0 MiB\/min.*MEMORY CLIMBING/);
  });

  it("does not flag a flat or short series, nor growth under the relative threshold", () => {
    expect(summariseServerWatch(samples((i) => 100 * MiB + (i % 2) * 4 * MiB, 60))!.memoryClimb).toBe(false);
    expect(summariseServerWatch(samples((i) => 100 * MiB + i * MiB, MEMORY_CLIMB.minSamples - 1))!.memoryClimb).toBe(
      false,
    );
    // 1.2 MiB/min on 1 GiB for 30 s: +0.06%, a climb by slope but not a meaningful one.
    expect(summariseServerWatch(samples((i) => 1024 * MiB + (i * 1.2 * MiB) / 60, 30))!.memoryClimb).toBe(false);
  });

  it("has nothing to say without samples", () => {
    expect(summariseServerWatch([])).toBeUndefined();
  });
});
