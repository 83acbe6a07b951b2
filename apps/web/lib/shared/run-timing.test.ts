import { describe, expect, it } from "vitest";
import type { RunView } from "@throng/protocol/run";
import { chartSpan, elapsedSeconds, remainingSeconds, runChartInputs } from "./run-timing";
import { runView } from "./run-view.test-support";

const run = (patch: Partial<RunView>): RunView =>
  runView({ status: "running", startedAt: "2026-01-01T00:00:00.000Z", ...patch });

const at = (seconds: number) => Date.parse("2026-01-01T00:00:00.000Z") + seconds * 1000;

describe("run timing", () => {
  it("counts elapsed and remaining seconds while the run is live", () => {
    expect(elapsedSeconds(run({}), at(12))).toBe(12);
    expect(remainingSeconds(run({}), at(12))).toBe(18);
  });

  it("stops the clock at the end and shows no remaining time once terminal", () => {
    const ended = run({ status: "finished", endedAt: "2026-01-01T00:00:31.000Z" });
    expect(elapsedSeconds(ended, at(90))).toBe(31);
    expect(remainingSeconds(ended, at(90))).toBeNull();
  });

  it("shows no remaining time once a capacity search ended early, while the run is still stopping", () => {
    const searched = run({
      status: "stopping",
      events: [{ kind: "search-ended", at: "2026-01-01T00:00:12.000Z", message: "answer in" }] as RunView["events"],
    });
    expect(remainingSeconds(searched, at(13))).toBeNull();
  });

  it("has no elapsed time or chart window before the run starts", () => {
    const queued = run({ status: "queued", startedAt: null });
    expect(elapsedSeconds(queued)).toBeNull();
    expect(chartSpan(queued)).toBeNull();
  });

  it("spans the planned seconds on the chart, first to last point", () => {
    expect(chartSpan(run({}))).toEqual([at(0) / 1000, at(29) / 1000]);
  });

  it("cuts the chart at the end of a run that ended early", () => {
    expect(chartSpan(run({ status: "aborted", endedAt: "2026-01-01T00:00:10.500Z" }))).toEqual([
      at(0) / 1000,
      at(10) / 1000,
    ]);
    expect(chartSpan(run({ status: "finished", endedAt: "2026-01-01T00:00:45.000Z" }))).toEqual([
      at(0) / 1000,
      at(29) / 1000,
    ]);
  });

  it("hands the charts the run's own span, events, scenario, SLOs and timed note", () => {
    const slos: RunView["spec"]["slos"] = [{ metric: "rtt-p99-ms", below: 50 }];
    const ended = run({ status: "finished", endedAt: "2026-01-01T00:00:31.000Z", note: "0:10 deploy" });
    const inputs = runChartInputs({ ...ended, spec: { ...ended.spec, slos } });
    expect(inputs).toEqual({
      span: [at(0) / 1000, at(29) / 1000],
      events: [],
      scenario: "ping-pong",
      slos,
      note: "0:10 deploy",
    });
  });
});
