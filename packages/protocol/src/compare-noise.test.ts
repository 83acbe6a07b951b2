import { describe, expect, it } from "vitest";
import { secondSpread, steadySeconds, withinNoise } from "./compare-noise";
import type { SeriesPoint } from "./snapshot";

const second = (t: number, received: number, clients = 10): SeriesPoint => ({
  t,
  agents: 1,
  clients,
  connections: clients,
  messagesSentPerSec: received,
  messagesReceivedPerSec: received,
  bytesSentPerSec: 0,
  bytesReceivedPerSec: 0,
  errors: 0,
  rttP50Ms: 1,
  rttP99Ms: received / 10,
  rttMaxMs: null,
});

describe("a change inside the runs' own second-to-second spread is noise", () => {
  it("reads the spread from the seconds at the run's most clients, not its ramp", () => {
    const run = [second(0, 10, 2), second(1, 50, 6), second(2, 98), second(3, 102), second(4, 100)];
    expect(steadySeconds(run).map((point) => point.t)).toEqual([2, 3, 4]);
    expect(secondSpread(run, "messagesPerSec")).toBeCloseTo(2, 5);
    expect(secondSpread(run, "rttMaxMs")).toBeNull(); // no second measured it
    expect(secondSpread([second(0, 100)], "messagesPerSec")).toBeNull(); // one second has no spread
    expect(secondSpread(run, "errors")).toBeNull(); // a count, not a per-second figure
  });

  it("calls a −0.2 % change in messages/s noise when the seconds moved by more, and a real drop a change", () => {
    // Runs whose seconds move by ±2 messages/s around 1,000: a 2 messages/s (−0.2 %) change is inside that.
    expect(withinNoise(1_000, 998, [2, 1.5])).toBe(true);
    expect(withinNoise(1_000, 900, [2, 1.5])).toBe(false);
    // Either run's spread counts: the noisier run's seconds say how far apart two runs can fall by chance.
    expect(withinNoise(1_000, 995, [1, 6])).toBe(true);
  });

  it("does not judge without a spread or a figure", () => {
    expect(withinNoise(1_000, 998, [null, null])).toBeNull();
    expect(withinNoise(null, 998, [2, 2])).toBeNull();
  });
});
