import { describe, expect, it } from "vitest";
import type { EstimateView } from "@throng/protocol/report";
import { historyBars, latestChange } from "./capacity-history";

const estimate = (build: string, clients: number | null, change: string | null = null): EstimateView => ({
  id: `id-${build}`,
  targetName: "lobby",
  build,
  runId: "r",
  clients,
  valid: true,
  sentence: "",
  createdAt: "2026-01-01T00:00:00Z",
  changePercent: null,
  change,
});

describe("historyBars", () => {
  it("draws one bar per build, taller for more clients, on a round axis", () => {
    const { bars, yMax } = historyBars([estimate("1.3", 400), estimate("1.4", 350)]);
    expect(yMax).toBe(500);
    expect(bars.map((bar) => bar.build)).toEqual(["1.3", "1.4"]);
    expect(bars[0]!.height).toBeGreaterThan(bars[1]!.height);
    expect(bars[1]!.x).toBeGreaterThan(bars[0]!.x);
  });
  it("gives an estimate without capacity no height", () => {
    expect(historyBars([estimate("1.0", null)]).bars[0]!.height).toBe(0);
  });
});

describe("latestChange", () => {
  it("uses the API's words for the newest change", () => {
    expect(latestChange([estimate("1.3", 400), estimate("1.4", 352, "−12% since build 1.3")])).toBe(
      "−12% since build 1.3",
    );
  });
  it("says what to do when there is nothing to compare yet", () => {
    expect(latestChange([estimate("1.3", 400)])).toMatch(/^First estimate/);
    expect(latestChange([])).toBe("No estimates saved yet.");
  });
});
