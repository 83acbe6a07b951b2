import { describe, expect, it } from "vitest";
import { lastFiring, nextFiringText } from "./schedules";

const RUN = "11111111-2222-4333-8444-555555555555";

describe("a schedule's next and last firing in words", () => {
  it("names the schedule's own zone for the next firing, and says paused instead of a time it will not fire at", () => {
    const now = Date.parse("2026-10-24T00:30:00Z");
    const text = nextFiringText({ at: "2026-10-25T02:00:00.000Z", timezone: "Europe/Berlin", paused: false }, now);
    expect(text).toMatch(/^in 1 day · /);
    // 02:00 UTC on 25 October is 03:00 in Berlin after the clocks went back (GMT+1), named as such.
    expect(text).toMatch(/3:00:00\s?AM GMT\+1$|03:00:00 GMT\+1$/);
    expect(nextFiringText({ at: null, timezone: "UTC", paused: true }, now)).toBe("paused");
    expect(nextFiringText({ at: "2026-10-25T02:00:00.000Z", timezone: "UTC", paused: true }, now)).toBe("paused");
  });

  it("reads the last firing as its run's verdict, its status before one, or why no run started", () => {
    expect(lastFiring(null)).toMatchObject({ label: "never fired", runId: null });
    expect(
      lastFiring({
        at: "2026-10-24T01:00:00Z",
        runId: RUN,
        error: null,
        run: { status: "finished", outcome: "breached" },
      }),
    ).toEqual({ label: "SLO failed", tone: "bad", runId: RUN, detail: null });
    expect(
      lastFiring({
        at: "2026-10-24T01:00:00Z",
        runId: RUN,
        error: null,
        run: { status: "finished", outcome: "passed" },
      }),
    ).toMatchObject({ label: "passed", tone: "ok" });
    expect(
      lastFiring({ at: "2026-10-24T01:00:00Z", runId: RUN, error: null, run: { status: "running", outcome: null } }),
    ).toMatchObject({ label: "running", tone: "idle", runId: RUN });
    expect(lastFiring({ at: "2026-10-24T01:00:00Z", runId: RUN, error: null, run: null })).toMatchObject({
      label: "run deleted",
      runId: null,
    });
    expect(lastFiring({ at: "2026-10-24T01:00:00Z", runId: null, error: "no agent is online", run: null })).toEqual({
      label: "not started",
      tone: "bad",
      runId: null,
      detail: "no agent is online",
    });
  });
});
