import { describe, expect, it } from "vitest";
import { seriesPoint } from "./series-point.test-support";
import type { SeriesPoint } from "./snapshot";
import { judgeSlos, measuredOfPoint } from "./slo-judge";

/** A second of ten connected clients at 100 messages a second each way, round trips peaking at `p99` ms (null: none). */
const point = (t: number, p99: number | null): SeriesPoint =>
  seriesPoint({
    t,
    clients: 10,
    connections: 10,
    messagesSentPerSec: 100,
    messagesReceivedPerSec: 100,
    rttP99Ms: p99,
    rttMaxMs: p99,
  });

describe("SLO verdicts", () => {
  it("judges the whole run and counts the seconds that broke, with the first one", () => {
    const [verdict] = judgeSlos([{ metric: "rtt-p99-ms", below: 10 }], measuredOfPoint(point(0, 8)), [
      point(1, 5),
      point(2, 12),
      point(3, 15),
      point(4, null),
    ]);
    expect(verdict).toEqual({
      metric: "rtt-p99-ms",
      below: 10,
      value: 8,
      status: "met",
      passed: true,
      breachedSeconds: 2,
      measuredSeconds: 3,
      firstBreachAt: 2,
    });
  });

  it("does not call an SLO met when its seconds without data are seconds with no client connected: not judged, never met (issue 27 §2)", () => {
    // 3 seconds timed well, then the server died: 10 clients running, none connected, nothing due, nothing timed.
    const dead = (t: number): SeriesPoint => ({
      ...point(t, null),
      connections: 0,
      messagesSentPerSec: 0,
      messagesReceivedPerSec: 0,
      scheduledSends: 0,
      rttP50Ms: null,
    });
    const seconds = [point(1, 5), point(2, 5), point(3, 5), dead(4), dead(5), dead(6), dead(7), dead(8)];
    const [verdict] = judgeSlos([{ metric: "rtt-p99-ms", below: 10 }], measuredOfPoint(point(0, 5)), seconds, seconds);
    expect(verdict).toMatchObject({
      status: "no-data",
      passed: false,
      measuredSeconds: 3,
      note: "not judged for 5 of 8 s under load: no client was connected",
    });
    // A second with clients connected and no sends due stays quiet, not a gap.
    const idle = seconds.map((s) => (s.rttP99Ms === null ? { ...s, connections: 10 } : s));
    expect(judgeSlos([{ metric: "rtt-p99-ms", below: 10 }], measuredOfPoint(point(0, 5)), idle, idle)[0]).toMatchObject(
      { status: "met" },
    );
  });

  it("fails an SLO the run never measured instead of passing it silently", () => {
    const [verdict] = judgeSlos([{ metric: "rtt-corrected-p99-ms", below: 10 }], measuredOfPoint(point(0, 1)), []);
    expect(verdict?.passed).toBe(false);
    expect(verdict?.value).toBeNull();
    expect(verdict?.status).toBe("no-data");
  });

  it("judges an SLO scoped to a network cohort on the cohort's own figures, the whole run's on its own", () => {
    // The rig's clients answer in 5 ms; the mobile cohort's in 120 ms, then 400 ms in its last second.
    const mobile = (p99: number) => ({ ...point(0, p99), applied: "datagram" as const });
    const withCohort = (t: number, whole: number, cohort: number | null): SeriesPoint => ({
      ...point(t, whole),
      ...(cohort === null ? {} : { cohorts: { mobile: mobile(cohort) } }),
    });
    const seconds = [withCohort(1, 5, 120), withCohort(2, 6, 130), withCohort(3, 7, 400)];
    const slos = [
      { metric: "rtt-p99-ms" as const, below: 50 },
      { metric: "rtt-p99-ms" as const, below: 300, cohort: "mobile" },
    ];
    const [whole, cohort] = judgeSlos(slos, measuredOfPoint(withCohort(0, 7, 400)), seconds, seconds);
    expect(whole).toMatchObject({ value: 7, status: "met", breachedSeconds: 0 });
    expect(whole).not.toHaveProperty("cohort");
    expect(cohort).toMatchObject({
      metric: "rtt-p99-ms",
      cohort: "mobile",
      value: 400,
      status: "breached",
      passed: false,
      breachedSeconds: 1,
      measuredSeconds: 3,
      firstBreachAt: 3,
    });
    // A cohort the figures do not carry measured nothing: never a pass, and the note names the cohort.
    const [missing] = judgeSlos(
      [slos[1]!],
      measuredOfPoint(point(0, 7)),
      [withCohort(1, 5, null)],
      [withCohort(1, 5, null)],
    );
    expect(missing).toMatchObject({
      status: "no-data",
      passed: false,
      note: 'no round trip was measured for cohort "mobile"',
    });
  });
});
