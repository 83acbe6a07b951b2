import { describe, expect, it } from "vitest";
import { compareHref, compareRows, deltaTone, formatDelta, parseCompareIds } from "./compare-table";

const run = (id: string, summary: Record<string, number | null>, deltaPercent: Record<string, number | null>) =>
  ({ id, planName: "p", createdAt: "2026-01-01T00:00:00Z", status: "finished", summary, deltaPercent });

describe("compareRows", () => {
  it("words each run's figure and its change against the first run, coloured by whether it is better", () => {
    const rows = compareRows({
      runs: [
        run("a", { messagesPerSec: 1000, rttP99Ms: 10, errors: null }, { messagesPerSec: 0, rttP99Ms: 0, errors: null }),
        run("b", { messagesPerSec: 1200, rttP99Ms: 12, errors: 3 }, { messagesPerSec: 20, rttP99Ms: 20, errors: null }),
      ],
    });
    const throughput = rows.find((row) => row.key === "messagesPerSec")!;
    expect(throughput.cells[0]).toEqual({ value: "1,000", delta: "", tone: "none" });
    expect(throughput.cells[1]).toEqual({ value: "1,200", delta: "+20 %", tone: "better" });
    expect(rows.find((row) => row.key === "rttP99Ms")!.cells[1]!.tone).toBe("worse");
    expect(rows.find((row) => row.key === "errors")!.cells[0]!.value).toBe("—");
    // Figures no run carries are left out.
    expect(rows.map((row) => row.key)).not.toContain("peakClients");
  });
});

describe("deltas", () => {
  it("knows lower latency is better and higher throughput is better", () => {
    expect(deltaTone(-5, "lower")).toBe("better");
    expect(deltaTone(-5, "higher")).toBe("worse");
    expect(deltaTone(0, "higher")).toBe("same");
    expect(deltaTone(null, "higher")).toBe("none");
  });
  it("signs the percentage with a real minus", () => {
    expect(formatDelta(-12.34)).toBe("−12.3 %");
    expect(formatDelta(7)).toBe("+7 %");
  });
});

it("reads and writes ?ids= without blanks or repeats", () => {
  expect(parseCompareIds(" a, b,,a ")).toEqual(["a", "b"]);
  expect(parseCompareIds(undefined)).toEqual([]);
  expect(compareHref(["a", "b"])).toBe("/compare?ids=a,b");
});
