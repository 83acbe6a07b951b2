import { describe, expect, it } from "vitest";
import type { RunVerdict } from "@throng/protocol/report";
import { statusTone, verdictBadge, verdictTitle } from "./verdict";

const verdict = (over: Partial<RunVerdict>): RunVerdict => ({
  passed: false,
  reasons: [],
  warnings: [],
  slos: [],
  ...over,
});

describe("verdict badge", () => {
  it("says passed only for a passed outcome, and names every other outcome", () => {
    expect(verdictBadge(verdict({ passed: true, outcome: "passed" }))).toEqual({
      label: "passed",
      tone: "ok",
      reasons: [],
    });
    expect(
      verdictBadge(verdict({ outcome: "breached", reasons: ["SLO breached: rtt-p99-ms (80, must be below 50)"] }))
        ?.label,
    ).toBe("SLO failed");
    expect(
      verdictBadge(verdict({ outcome: "incomplete", reasons: ["measurements cover 2 of the 20 planned seconds"] })),
    ).toMatchObject({ label: "incomplete", tone: "warn" });
    expect(verdictBadge(verdict({ outcome: "aborted" }))?.label).toBe("aborted");
    expect(verdictBadge(null)).toBeNull();
  });

  it("puts the reasons in the title, so the runs list explains a run that did not pass", () => {
    expect(verdictTitle({ verdict: verdict({ outcome: "incomplete", reasons: ["a", "b"] }) })).toBe("Not passed: a; b");
    expect(verdictTitle({ verdict: verdict({ passed: true, outcome: "passed" }) })).toMatch(/ran as planned/);
  });
});

describe("status tone beside a verdict", () => {
  it("greys a finished run's status once it has a verdict, so green 'finished' never sits beside red 'SLO failed'", () => {
    expect(statusTone({ status: "finished", verdict: verdict({ outcome: "breached" }) })).toBe("idle");
    expect(statusTone({ status: "finished", verdict: null })).toBe("ok");
    expect(statusTone({ status: "running", verdict: null })).toBe("busy");
  });
});

describe("verdict reasons in words", () => {
  it("names SLO metrics and their units instead of metric ids", () => {
    const badge = verdictBadge(
      verdict({ outcome: "breached", reasons: ["SLO breached: rtt-p99-ms (82.5, must be below 50)"] }),
    );
    expect(badge?.reasons).toEqual(["SLO breached: Round trip p99 (82.5 ms, must be below 50 ms)"]);
  });
});
