import { describe, expect, it } from "vitest";
import type { RunVerdict } from "@throng/protocol/report";
import { verdictBadge, verdictTitle } from "./verdict";

const verdict = (over: Partial<RunVerdict>): RunVerdict => ({ passed: false, reasons: [], warnings: [], slos: [], ...over });

describe("verdict badge", () => {
  it("says passed only for a passed outcome, and names every other outcome", () => {
    expect(verdictBadge(verdict({ passed: true, outcome: "passed" }))).toEqual({ label: "passed", tone: "ok", reasons: [] });
    expect(verdictBadge(verdict({ outcome: "breached", reasons: ["SLO breached: rtt-p99-ms (80, must be below 50)"] }))?.label).toBe("SLO failed");
    expect(verdictBadge(verdict({ outcome: "incomplete", reasons: ["measurements cover 2 of the 20 planned seconds"] }))).toMatchObject({ label: "incomplete", tone: "warn" });
    expect(verdictBadge(verdict({ outcome: "aborted" }))?.label).toBe("aborted");
    expect(verdictBadge(null)).toBeNull();
  });

  it("puts the reasons in the title, so the runs list explains a run that did not pass", () => {
    expect(verdictTitle({ verdict: verdict({ outcome: "incomplete", reasons: ["a", "b"] }) })).toBe("Not passed: a; b");
    expect(verdictTitle({ verdict: verdict({ passed: true, outcome: "passed" }) })).toMatch(/ran as planned/);
  });
});
