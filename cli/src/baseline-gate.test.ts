import { describe, expect, it } from "vitest";
import type { MetricComparison } from "@throng/protocol/baseline-compare";
import { p99Comparison } from "@throng/protocol/metric-comparison.test-support";
import { ExitCode } from "./cli-exit-codes";
import { exitCodeWithBaseline, type BaselineResult } from "./baseline-gate";
import { jsonSummary, junitXml } from "./result-files";
import { reportText, verdictLine } from "./run-report";
import { INCOMPLETE_VERDICT, finishedRun } from "./testing/fixtures";

const BASELINE = "33333333-3333-4333-8333-333333333333";
const errorRate: MetricComparison = {
  metric: "error-rate",
  name: "Error rate",
  baseline: 0,
  value: 0,
  change: 0,
  unit: "pp",
  withinNoise: true,
  allowance: 0.5,
  status: "within-noise",
};
const result = (metrics: MetricComparison[], outcome: BaselineResult["outcome"]): BaselineResult => ({
  runId: finishedRun().id,
  baselineRunId: BASELINE,
  outcome,
  metrics,
  regressions: metrics.filter((m) => m.status === "regressed"),
});
const regressed = result([p99Comparison(), errorRate], "regressed");
const held = result([p99Comparison({ value: 21, change: 5, status: "worse" }), errorRate], "held");
const unmeasured = result(
  [p99Comparison({ baseline: null, value: null, change: null, status: "no-data" })],
  "incomplete",
);

describe("the run held to its baseline", () => {
  it("exits 99 for a regression even when the SLOs passed or the run was incomplete; 7 for a held metric without data; a worse code stays", () => {
    expect(exitCodeWithBaseline(ExitCode.passed, regressed)).toBe(ExitCode.sloBreached);
    expect(exitCodeWithBaseline(ExitCode.incomplete, regressed)).toBe(ExitCode.sloBreached);
    expect(exitCodeWithBaseline(ExitCode.passed, held)).toBe(ExitCode.passed);
    expect(exitCodeWithBaseline(ExitCode.passed, unmeasured)).toBe(ExitCode.incomplete);
    expect(exitCodeWithBaseline(ExitCode.runFailed, regressed)).toBe(ExitCode.runFailed);
    expect(exitCodeWithBaseline(ExitCode.passed, undefined)).toBe(ExitCode.passed);
  });

  it("says in the last line which metric regressed and by how much, before the run's own reasons", () => {
    expect(verdictLine(finishedRun(), regressed)).toBe(
      `verdict: FAILED — worse than baseline run ${BASELINE}: rtt-p99-ms 30 ms against 20 ms: +50% (allowed 10%), REGRESSED`,
    );
    expect(verdictLine(finishedRun({ verdict: INCOMPLETE_VERDICT }), regressed)).toMatch(
      /^verdict: FAILED — worse than baseline .*REGRESSED; the load fell short/,
    );
    expect(verdictLine(finishedRun(), held)).toMatch(/^verdict: PASSED/);
    expect(verdictLine(finishedRun(), unmeasured)).toBe(
      `verdict: INCOMPLETE (not passed) — not comparable with baseline run ${BASELINE}: rtt-p99-ms not measured by both runs`,
    );
    expect(reportText(finishedRun(), held)).toContain(
      `against baseline run ${BASELINE}:\n  rtt-p99-ms 21 ms against 20 ms: +5% (allowed 10%), worse\n  error-rate 0% against 0%: no change (allowed 0.5 pp), within-noise\nverdict: PASSED`,
    );
  });

  it("puts the comparison in --json, its regressions apart, and a JUnit testcase per metric held to an allowance", () => {
    expect(JSON.parse(jsonSummary(finishedRun(), regressed)).baseline).toMatchObject({
      baselineRunId: BASELINE,
      outcome: "regressed",
      regressions: [{ metric: "rtt-p99-ms", change: 50, allowance: 10 }],
    });
    expect(JSON.parse(jsonSummary(finishedRun())).baseline).toBeUndefined();
    const xml = junitXml(finishedRun(), regressed);
    expect(xml).toContain(`tests="4" failures="1" errors="0"`);
    expect(xml).toContain(`<property name="baselineRunId" value="${BASELINE}"/>`);
    expect(xml).toContain(
      `name="rtt-p99-ms against baseline ${BASELINE}" time="2.000">\n      <failure type="regression" message="rtt-p99-ms 30 ms against 20 ms: +50% (allowed 10%), REGRESSED">rtt-p99-ms measured 30 against 20 in baseline run ${BASELINE}: change 50 %, allowed 10 %</failure>`,
    );
    expect(xml).toContain(`name="error-rate against baseline ${BASELINE}" time="2.000"/>`);
    expect(junitXml(finishedRun(), unmeasured)).toContain(
      `<failure type="no-data" message="rtt-p99-ms no data against no data: no data (allowed 10%), NO DATA">`,
    );
  });
});
