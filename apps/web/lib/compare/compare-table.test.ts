import { describe, expect, it } from "vitest";
import type { RunComparison, SloVerdict } from "@throng/protocol/report";
import { compareHref, compareRows, deltaTone, formatDelta, parseCompareIds, sloRows } from "./compare-table";

type Compared = RunComparison["runs"][number];
const run = (
  id: string,
  summary: Record<string, number | null>,
  deltaPercent: Record<string, number | null>,
  more: Partial<Compared> = {},
): Compared => ({
  id,
  planName: "p",
  createdAt: "2026-01-01T00:00:00Z",
  status: "finished",
  summary,
  deltaPercent,
  spread: {},
  withinNoise: {},
  outcome: null,
  slos: [],
  ...more,
});
const slo = (metric: string, below: number, value: number | null, status: SloVerdict["status"]): SloVerdict => ({
  metric,
  below,
  value,
  status,
  passed: status === "met",
  breachedSeconds: 0,
  measuredSeconds: 10,
  firstBreachAt: null,
});

describe("sloRows", () => {
  it("gives each run's verdict, then one row per SLO any run was judged on, with each run's status and value", () => {
    const rows = sloRows({
      runs: [
        run("a", {}, {}, { outcome: "passed", slos: [slo("rtt-p99-ms", 50, 12, "met")] }),
        run(
          "b",
          {},
          {},
          {
            outcome: "breached",
            slos: [slo("rtt-p99-ms", 50, 240, "breached"), slo("error-rate", 0.01, null, "no-data")],
          },
        ),
        run("c", {}, {}),
      ],
    });
    expect(rows.map((row) => row.label)).toEqual(["Verdict", "Round trip p99 < 50 ms", "Error rate < 1 %"]);
    expect(rows[0]!.cells.map((cell) => cell.text)).toEqual(["passed", "SLO failed", "—"]);
    expect(rows[1]!.cells.map((cell) => cell.status)).toEqual(["met", "breached", "none"]);
    expect(rows[1]!.cells[1]!.text).toBe("breached · 240 ms");
    expect(rows[2]!.cells.map((cell) => cell.text)).toEqual(["—", "no data", "—"]);
  });
});

describe("compareRows", () => {
  it("words each run's figure and its change against the first run, coloured by whether it is better", () => {
    const rows = compareRows({
      runs: [
        run(
          "a",
          { messagesPerSec: 1000, rttP99Ms: 10, errors: null },
          { messagesPerSec: 0, rttP99Ms: 0, errors: null },
        ),
        run("b", { messagesPerSec: 1200, rttP99Ms: 12, errors: 3 }, { messagesPerSec: 20, rttP99Ms: 20, errors: null }),
      ],
    });
    const throughput = rows.find((row) => row.key === "messagesPerSec")!;
    expect(throughput.cells[0]).toEqual({ runId: "a", value: "1,000", delta: "", tone: "none" });
    expect(throughput.cells[1]).toEqual({ runId: "b", value: "1,200", delta: "+20 %", tone: "better" });
    expect(rows.find((row) => row.key === "rttP99Ms")!.cells[1]!.tone).toBe("worse");
    expect(rows.find((row) => row.key === "errors")!.cells[0]!.value).toBe("—");
    // Figures no run carries are left out.
    expect(rows.map((row) => row.key)).not.toContain("peakClients");
  });
});

describe("a change within noise", () => {
  it("is neither better nor worse when the API says it is inside the runs' own spread, and says by how much they varied", () => {
    const rows = compareRows({
      runs: [
        run("a", { messagesPerSec: 1000, rttP99Ms: 10 }, {}, { spread: { messagesPerSec: 4, rttP99Ms: 0.5 } }),
        run(
          "b",
          { messagesPerSec: 998, rttP99Ms: 14 },
          { messagesPerSec: -0.2, rttP99Ms: 40 },
          { spread: { messagesPerSec: 3, rttP99Ms: 0.4 }, withinNoise: { messagesPerSec: true, rttP99Ms: false } },
        ),
      ],
    });
    const throughput = rows.find((row) => row.key === "messagesPerSec")!.cells[1]!;
    expect(throughput).toMatchObject({ delta: "−0.2 %", tone: "noise", note: "the runs' own seconds varied by ± 4" });
    expect(rows.find((row) => row.key === "rttP99Ms")!.cells[1]!.tone).toBe("worse");
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

describe("compareRows, TCP beside KCP", () => {
  it("adds KCP's retransmissions and wire overhead when the API gives them, the TCP run's shown as not measured", () => {
    const rows = compareRows({
      runs: [
        run(
          "tcp",
          { rttP99Ms: 240, kcpRetransmits: null, kcpOverheadPercent: null },
          { rttP99Ms: null },
          { protocol: "tcp" },
        ),
        run(
          "kcp",
          { rttP99Ms: 80, kcpRetransmits: 1_204, kcpOverheadPercent: 14.2 },
          { rttP99Ms: -66.7, kcpRetransmits: null, kcpOverheadPercent: null },
          { protocol: "kcp" },
        ),
      ],
    });
    expect(rows.find((row) => row.key === "rttP99Ms")!.cells[1]).toMatchObject({ delta: "−66.7 %", tone: "better" });
    expect(rows.find((row) => row.key === "kcpRetransmits")!.cells.map((cell) => cell.value)).toEqual(["—", "1,204"]);
    expect(rows.find((row) => row.key === "kcpOverheadPercent")!.cells.map((cell) => cell.value)).toEqual([
      "—",
      "+14.2 %",
    ]);
  });

  it("has no KCP rows when no compared run used KCP", () => {
    const rows = compareRows({ runs: [run("a", { rttP99Ms: 10 }, {}), run("b", { rttP99Ms: 12 }, { rttP99Ms: 20 })] });
    expect(rows.map((row) => row.key)).not.toContain("kcpOverheadPercent");
  });
});
