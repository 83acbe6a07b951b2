import { describe, expect, it } from "vitest";
import type { RunSummary, RunView } from "@throng/protocol/run";
import { runSummary } from "@throng/protocol/run-summary.test-support";
import {
  TREND_FIGURES,
  trendBaseline,
  trendChart,
  trendColumns,
  trendRuns,
  trendThreshold,
  trendTickFormat,
  trendTimeRange,
  trendXTicks,
  trendYTicks,
} from "./plan-trend";

const summary = (over: Partial<RunSummary>): RunSummary =>
  runSummary({
    messagesSent: 990,
    messagesReceived: 990,
    messagesPerSec: 99,
    connectionsOpened: 10,
    rttP50Ms: 1,
    rttP99Ms: 5,
    rttMaxMs: 9,
    ...over,
  });

const run = (id: string, startedAt: string, over: Partial<RunView> = {}): RunView =>
  ({
    id,
    planId: "p",
    planName: "Lobby",
    status: "finished",
    spec: {} as RunView["spec"],
    error: null,
    createdAt: startedAt,
    startedAt,
    endedAt: startedAt,
    summary: summary({}),
    events: [],
    verdict: null,
    ...over,
  }) as RunView;

const verdict = (outcome: "passed" | "breached") => ({
  passed: outcome === "passed",
  outcome,
  reasons: [],
  warnings: [],
  slos: [],
});

describe("trendRuns", () => {
  it("gives one point per ended run, oldest first, with its figures and whether its verdict passed", () => {
    const runs = trendRuns([
      run("b", "2026-11-24T10:00:00Z", {
        verdict: verdict("breached"),
        summary: summary({ rttP99Ms: 40, errors: 10 }),
        capacity: { clients: 1200 } as RunView["capacity"],
      }),
      run("live", "2026-11-24T11:00:00Z", { status: "running", endedAt: null, summary: null }),
      run("a", "2026-11-24T09:00:00Z", { verdict: verdict("passed") }),
    ]);
    expect(runs.map((point) => point.runId)).toEqual(["a", "b"]);
    expect(runs[0]).toMatchObject({
      t: Date.parse("2026-11-24T09:00:00Z") / 1000,
      p99Ms: 5,
      errorRate: 0,
      messagesPerSec: 99,
      estimate: null,
      passed: true,
    });
    // Errors over every attempt (messages sent and connections opened), as the error-rate SLO measures them.
    expect(runs[1]).toMatchObject({ p99Ms: 40, errorRate: 0.01, estimate: 1200, passed: false });
  });

  it("leaves the pass mark open for a run without a verdict", () => {
    expect(trendRuns([run("old", "2026-01-01T00:00:00Z")])[0]!.passed).toBeNull();
  });
});

describe("trendColumns", () => {
  it("puts the runs' start times on x and the figure on y, null where a run has none", () => {
    const runs = trendRuns([
      run("a", "2026-11-24T09:00:00Z"),
      run("b", "2026-11-24T10:00:00Z", { summary: summary({ rttP99Ms: null }) }),
    ]);
    const p99 = TREND_FIGURES.find((figure) => figure.key === "p99Ms")!;
    expect(trendColumns(runs, p99)).toEqual([
      [runs[0]!.t, runs[1]!.t],
      [5, null],
    ]);
  });
});

describe("trendTimeRange", () => {
  it("puts a lone run in the middle of two hours, not between 1970 and its date", () => {
    const t = Date.UTC(2026, 10, 26) / 1000;
    expect(trendTimeRange([{ t }])).toEqual([t - 3600, t + 3600]);
  });

  it("keeps a 5 % margin either side of several runs", () => {
    expect(trendTimeRange([{ t: 3000 }, { t: 1000 }, { t: 2000 }])).toEqual([900, 3100]);
  });
});

describe("the trend's axes and SLO", () => {
  it("tops the y axis at a labelled tick above the highest run and the SLO: never stops at 10 ms under a 12.59 ms run", () => {
    expect(trendYTicks([3.2, 12.59, null])).toEqual([0, 5, 10, 15]);
    expect(trendYTicks([3.2, 12.59], 50)).toEqual([0, 20, 40, 60]);
    // An SLO far above the runs is left out of the axis (said at the top instead), as on a run's charts.
    expect(trendYTicks([3.2, 9.18], 2000)).toEqual([0, 2.5, 5, 7.5, 10]);
    expect(trendYTicks([0, 0], 0.5)).toEqual([0, 0.2, 0.4, 0.6]);
    expect(trendYTicks([null])).toEqual([0, 1]);
  });

  it("puts x ticks on the runs themselves, the latest always, as many as their labels fit", () => {
    const times = [100, 200, 300, 400, 500];
    expect(trendXTicks(times, 1000, 170)).toEqual(times);
    expect(trendXTicks(times, 400, 170)).toEqual([200, 500]);
    expect(trendXTicks([100], 400, 170)).toEqual([100]);
    expect(trendXTicks([], 400, 170)).toEqual([]);
  });

  it("draws the plan's SLO on the figure it judges, in the figure's unit", () => {
    const slos = [
      { metric: "rtt-p99-ms", below: 50 },
      { metric: "error-rate", below: 0.01 },
    ] as const;
    const figure = (key: string) => TREND_FIGURES.find((candidate) => candidate.key === key)!;
    expect(trendThreshold(figure("p99Ms"), slos)).toEqual({ value: 50, label: "SLO: Round trip p99 < 50 ms" });
    expect(trendThreshold(figure("errorRate"), slos)?.value).toBe(0.01);
    expect(trendThreshold(figure("messagesPerSec"), slos)).toBeNull();
    expect(trendThreshold(figure("p99Ms"), undefined)).toBeNull();
  });

  it("holds the baseline run's value on the y axis even when the baseline is older than the runs listed", () => {
    expect(trendYTicks([3.2, 4.1], null, 12.59)).toEqual([0, 5, 10, 15]);
    expect(trendYTicks([3.2, 12.59], 50, 2)).toEqual([0, 20, 40, 60]);
  });

  it("draws the pinned baseline run as a labelled line on each figure it has a value for", () => {
    const figure = (key: string) => TREND_FIGURES.find((candidate) => candidate.key === key)!;
    const [baseline] = trendRuns([
      run("1a2b3c4d-0000-4000-8000-000000000000", "2026-11-24T09:00:00Z", { summary: summary({ rttP99Ms: 12.59 }) }),
    ]);
    expect(trendBaseline(figure("p99Ms"), baseline, (value) => `${value} ms`)).toEqual({
      value: 12.59,
      label: "Baseline run 1a2b3c4d…: 12.59 ms",
    });
    expect(trendBaseline(figure("estimate"), baseline, String)).toBeNull();
    expect(trendBaseline(figure("p99Ms"), null, String)).toBeNull();
  });

  it("puts one figure's chart together: its runs, the SLO's and the baseline run's lines, a y axis holding all three", () => {
    const runs = trendRuns([
      run("a", "2026-11-24T09:00:00Z"),
      run("b", "2026-11-24T10:00:00Z", { summary: summary({ rttP99Ms: 12.59 }) }),
    ]);
    const [baseline] = trendRuns([
      run("1a2b3c4d-0000-4000-8000-000000000000", "2026-11-20T09:00:00Z", { summary: summary({ rttP99Ms: 30 }) }),
    ]);
    const p99 = TREND_FIGURES.find((figure) => figure.key === "p99Ms")!;
    const chart = trendChart(runs, p99, [{ metric: "rtt-p99-ms", below: 50 }], baseline!, (value) => `${value} ms`);
    expect(chart.columns).toEqual([
      [runs[0]!.t, runs[1]!.t],
      [5, 12.59],
    ]);
    expect(chart.threshold).toEqual({ value: 50, label: "SLO: Round trip p99 < 50 ms" });
    expect(chart.baseline).toEqual({ value: 30, label: "Baseline run 1a2b3c4d…: 30 ms" });
    expect(chart.yTicks).toEqual([0, 20, 40, 60]);
    expect(chart.tickLabel(runs[1]!.t)).toBe(trendTickFormat(chart.columns[0])(runs[1]!.t));
  });

  it("labels the time axis in the reader's locale and zone, as short as the runs allow, never two ticks alike", () => {
    const t = (iso: string) => Date.parse(iso) / 1000;
    const sameDay = [t("2026-11-26T06:36:40Z"), t("2026-11-26T09:05:00Z")];
    expect(trendTickFormat(sameDay, { locale: "en-US", timeZone: "UTC" })(sameDay[0]!)).toBe("6:36 AM");
    expect(trendTickFormat(sameDay, { locale: "de-DE", timeZone: "Europe/Berlin" })(sameDay[0]!)).toBe("7:36");
    const days = [t("2026-11-24T06:36:40Z"), t("2026-11-26T18:00:00Z")];
    expect(trendTickFormat(days, { locale: "en-US", timeZone: "UTC" })(days[1]!)).toBe("Nov 26, 6:00 PM");
    const close = [t("2026-11-26T06:36:10Z"), t("2026-11-26T06:36:40Z")];
    const label = trendTickFormat(close, { locale: "en-US", timeZone: "UTC" });
    expect(close.map(label)).toEqual(["6:36:10 AM", "6:36:40 AM"]);
    const years = [t("2025-12-30T12:00:00Z"), t("2026-01-02T12:00:00Z")];
    expect(trendTickFormat(years, { locale: "en-US", timeZone: "UTC" })(years[1]!)).toBe("Jan 2, 2026");
  });
});
