import { describe, expect, it } from "vitest";
import type { PlanSpec } from "./plan";
import { reportHeadline, type HeadlineFormat } from "./report-headline";
import type { RunSummary, RunView } from "./run";
import { stepUpRunSummary } from "./run-summary.test-support";

const format: HeadlineFormat = {
  integer: (n) => String(Math.round(n)),
  rate: (n) => String(n),
  ms: (n) => (n === null ? "—" : `${n} ms`),
  percent: (n) => (n === null ? "—" : `${n * 100} %`),
  words: (text) => text.replace(/rtt-p99-ms/g, "Round trip p99"),
};
const stats = (p99Ms: number) => ({ count: 10, p50Ms: 1, p90Ms: p99Ms, p99Ms, maxMs: p99Ms });
const summary: RunSummary = {
  ...stepUpRunSummary,
  latency: { broadcast: stats(12), connect: stats(3), login: stats(40) },
  broadcastReach: 0.5,
};
const run = (kind: PlanSpec["scenario"]["kind"], over: Partial<RunView> = {}): RunView =>
  ({ status: "finished", error: null, spec: { scenario: { kind } }, summary, verdict: null, ...over }) as RunView;
const slo = (metric: string, passed: boolean) => ({
  metric,
  below: 50,
  value: 4.5,
  passed,
  breachedSeconds: 0,
  measuredSeconds: 8,
  firstBreachAt: null,
});

describe("the report's headline sentence", () => {
  it("names each scenario's own figures at the load it ran", () => {
    expect(reportHeadline(run("ping-pong"), format)).toBe(
      "Ran 20 clients, 100 messages/s, round trip p99 4.5 ms; the plan sets no SLOs to judge it by.",
    );
    expect(reportHeadline(run("echo-flood"), format)).toContain("round trip p99 4.5 ms");
    expect(reportHeadline(run("movement-sync"), format)).toBe(
      "Ran 20 clients, 100 messages/s, broadcast p99 12 ms, broadcast reach 50 %; the plan sets no SLOs to judge it by.",
    );
    expect(reportHeadline(run("login-storm"), format)).toBe(
      "Ran 20 clients, 100 messages/s, connect p99 3 ms, login p99 40 ms; the plan sets no SLOs to judge it by.",
    );
    // A script's own messages are not counted: no messages/s that would read a false figure, no round trips.
    expect(reportHeadline(run("script"), format)).toBe("Ran 20 clients; the plan sets no SLOs to judge it by.");
  });

  it("names a script's own metrics where its SLOs judge them, each by the script's name, a count as a whole number", () => {
    const scripted = { ...summary, script: { "reply-ms": stats(7.5) }, scriptCounts: { replies: 1200 } };
    const spec = {
      scenario: { kind: "script" as const },
      slos: [
        { metric: "script:reply-ms-p99", below: 50 },
        { metric: "script:replies-count", below: 5000 },
        { metric: "script:gone-ms-p50", below: 9 },
        { metric: "error-rate", below: 0.01 },
      ],
    };
    const failed = {
      passed: false,
      reasons: [],
      warnings: [],
      slos: spec.slos.map((s) => slo(s.metric, s.metric !== "script:gone-ms-p50")),
    };
    expect(
      reportHeadline(run("script", { summary: scripted, spec: spec as RunView["spec"], verdict: failed }), format),
    ).toBe("Failed gone-ms p50 (script) at 20 clients, reply-ms p99 7.5 ms, replies count 1200, gone-ms p50 —.");
    const verdict = { passed: true, reasons: [], warnings: [], slos: [slo("script:reply-ms-p99", true)] };
    expect(
      reportHeadline(
        run("script", {
          summary: scripted,
          spec: { ...spec, slos: spec.slos.slice(0, 1) } as RunView["spec"],
          verdict,
        }),
        format,
      ),
    ).toBe("Passed all 1 SLO at 20 clients, reply-ms p99 7.5 ms.");
  });

  it("says the verdict: passed, failed by name, not passed with its reasons in words, aborted", () => {
    const verdict = (passed: boolean, over: object = {}) => ({
      passed,
      reasons: [],
      warnings: [],
      slos: [slo("broadcast-p99-ms", passed)],
      ...over,
    });
    expect(reportHeadline(run("movement-sync", { verdict: verdict(true) }), format)).toMatch(
      /^Passed all 1 SLO at 20 clients, .*broadcast p99 12 ms/,
    );
    expect(reportHeadline(run("movement-sync", { verdict: verdict(false) }), format)).toMatch(
      /^Failed Broadcast p99 at 20 clients/,
    );
    const incomplete = verdict(false, { outcome: "incomplete", reasons: ["rtt-p99-ms had no data"] });
    expect(reportHeadline(run("ping-pong", { verdict: incomplete }), format)).toMatch(
      /^Not passed at 20 clients.*: Round trip p99 had no data\.$/,
    );
    expect(
      reportHeadline(run("ping-pong", { status: "aborted", verdict: verdict(false, { outcome: "aborted" }) }), format),
    ).toMatch(/^Aborted at 20 clients.*does not pass\.$/);
  });

  it("never says 'at 4 clients' of a run that lost them: what it held at most, and from when none were connected (issue 27 §2)", () => {
    const lost = { ...summary, peakClients: 4, peakConnections: 4 };
    const load = {
      plannedSeconds: 12,
      measuredSeconds: 12,
      scheduledSends: 80,
      sentSends: 20,
      shortSeconds: 7,
      minConnectedShare: 0,
      inFlightAtEnd: 0,
      leastConnectedAt: 1_800_000_004,
      leastConnectedPlanned: 4,
    };
    const verdict = {
      passed: false,
      outcome: "breached" as const,
      reasons: [],
      warnings: [],
      load,
      slos: [
        { ...slo("error-rate", false), status: "breached" as const },
        { ...slo("rtt-p99-ms", false), status: "no-data" as const },
      ],
    };
    const sentence = reportHeadline(run("ping-pong", { summary: lost, verdict }), {
      ...format,
      words: (text) => format.words(text).replace(/\S+T\S+Z/, "10:08:33"),
    });
    expect(sentence).toBe(
      "Failed Error rate (Round trip p99 not judged) with at most 4 of 4 clients connected, 0 from 10:08:33, 100 messages/s, round trip p99 4.5 ms.",
    );
    expect(sentence).not.toMatch(/at 4 clients/);
  });

  it("says a failure, a run that measured nothing, and one still going, without figures", () => {
    expect(
      reportHeadline(run("ping-pong", { status: "failed", error: "no agent answered", summary: null }), format),
    ).toBe("The run failed: no agent answered");
    expect(reportHeadline(run("ping-pong", { summary: null }), format)).toBe("The run measured nothing.");
    expect(reportHeadline(run("ping-pong", { status: "running", summary: null }), format)).toMatch(/not finished yet/);
  });
});
