import { describe, expect, it } from "vitest";
import { escapeXml, jsonSummary, junitXml } from "./result-files";
import { BREACHED_VERDICT, INCOMPLETE_VERDICT, finishedRun } from "./testing/fixtures";

describe("JUnit XML", () => {
  it("has one testsuite and one passing testcase per SLO", () => {
    const xml = junitXml(finishedRun());
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(xml.match(/<testsuite /g)).toHaveLength(1);
    expect(xml).toContain(`<testsuite name="throng: lobby smoke" tests="2" failures="0" errors="0"`);
    expect(xml).toContain(`<testcase classname="throng.lobby smoke" name="load ran as planned" time="2.000"/>`);
    expect(xml).toContain(`<testcase classname="throng.lobby smoke" name="rtt-p99-ms below 50" time="2.000"/>`);
    expect(xml).toContain(`<property name="runId" value="11111111-1111-4111-8111-111111111111"/>`);
  });

  it("gives a breached SLO a failure with the measured value and the threshold", () => {
    const xml = junitXml(finishedRun({ verdict: BREACHED_VERDICT }));
    expect(xml).toContain(`failures="1" errors="0"`);
    expect(xml).toContain(
      `<failure type="slo-breached" message="rtt-p99-ms was 82.5 ms, threshold below 50 ms">measured 82.5 over the run (threshold: below 50); 2 of 2 s breached; first breach at 2026-11-22T04:00:01.000Z</failure>`,
    );
  });

  it("fails the load's testcase and an SLO without data when the run is incomplete, even though no SLO broke", () => {
    const xml = junitXml(finishedRun({ verdict: INCOMPLETE_VERDICT }));
    expect(xml).toContain(`failures="2" errors="0"`);
    expect(xml).toContain(
      `<failure type="incomplete" message="the load fell short of its schedule: 1600 of 2400 scheduled messages sent, 4 of 12 seconds more than 10% short">`,
    );
    expect(xml).toContain(
      `<failure type="no-data" message="rtt-p99-ms has no data: no round trip was measured in 4 of 12 seconds under load">`,
    );
  });

  it("makes a failed or aborted run an error testcase", () => {
    const xml = junitXml(
      finishedRun({ status: "failed", error: "every agent was lost <3>", verdict: null, summary: null }),
    );
    expect(xml).toContain(`errors="1"`);
    expect(xml).toContain(`<testcase classname="throng.lobby smoke" name="run" time="2.000">`);
    expect(xml).toContain(`<error type="failed" message="the run failed: every agent was lost &lt;3&gt;"/>`);
  });

  it("has one passing testcase for a finished run without SLOs, so the suite is never empty", () => {
    const { spec } = finishedRun();
    const xml = junitXml(finishedRun({ spec: { ...spec, slos: [] }, verdict: null }));
    expect(xml).toContain(`tests="1" failures="0" errors="0"`);
    expect(xml).toContain(`name="run finished"`);
  });

  it("makes a plan with SLOs but no recorded verdict an error, not a pass", () => {
    expect(junitXml(finishedRun({ verdict: null }))).toContain(`<error type="no-verdict"`);
  });

  it("escapes markup and drops characters XML cannot carry", () => {
    expect(escapeXml(`a<b>&"c"'\u0001`)).toBe("a&lt;b&gt;&amp;&quot;c&quot;&apos;");
  });
});

describe("JSON summary", () => {
  it("holds run, verdict, summary and capacity", () => {
    const run = finishedRun({ verdict: BREACHED_VERDICT });
    const parsed = JSON.parse(jsonSummary(run));
    expect(Object.keys(parsed)).toEqual(["run", "verdict", "summary", "capacity"]);
    expect(parsed.verdict).toEqual(BREACHED_VERDICT);
    expect(parsed.summary.rttP99Ms).toBe(3);
    expect(parsed.capacity).toBeNull();
    expect(parsed.run.id).toBe(run.id);
  });
});
