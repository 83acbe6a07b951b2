import { describe, expect, it } from "vitest";
import type { ThrongError } from "@throng/protocol/errors";
import { cronProblem, nextRuns } from "./plan-schedules";

describe("when a plan's schedule fires", () => {
  const from = new Date("2026-03-28T12:00:00Z");

  it("lists the next times in the schedule's own time zone, as UTC instants", () => {
    expect(nextRuns("0 3 * * *", "UTC", from)).toEqual([
      "2026-03-29T03:00:00.000Z",
      "2026-03-30T03:00:00.000Z",
      "2026-03-31T03:00:00.000Z",
    ]);
    // Berlin moves to summer time on 29 March 2026: 03:00 there is 01:00 UTC before, and 01:00 UTC after as well.
    expect(nextRuns("0 3 * * *", "Europe/Berlin", from, 2)).toEqual([
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T01:00:00.000Z",
    ]);
  });

  it("names the field of a schedule it cannot read, or of an unknown time zone", () => {
    const failure = (cron: string, tz: string) => {
      try {
        nextRuns(cron, tz, from);
      } catch (error) {
        return error as ThrongError;
      }
      throw new Error("expected a refusal");
    };
    expect(failure("61 * * * *", "UTC").fields?.[0]?.path).toBe("cron");
    expect(failure("0 3 * * *", "Mars/Olympus").fields).toEqual([
      { path: "timezone", message: expect.stringMatching(/IANA/) },
    ]);
  });

  it("says what is wrong with a schedule in its own words, never the cron library's ('Constraint error, got value 61…')", () => {
    const message = (cron: string) => {
      try {
        nextRuns(cron, "UTC", from);
      } catch (error) {
        return (error as ThrongError).fields?.[0]?.message ?? "";
      }
      throw new Error("expected a refusal");
    };
    expect(message("61 3 * * *")).toBe("minute 61 is out of range: minutes go from 0 to 59");
    expect(message("0 25 * * *")).toBe("hour 25 is out of range: hours go from 0 to 23");
    expect(message("0 3 * 13 *")).toBe("month 13 is out of range: months go from 1 to 12");
    expect(message("0 3 * * 8")).toBe("weekday 8 is out of range: weekdays go from 0 to 7");
    expect(message("5-1 3 * * *")).toBe("the minute range 5-1 goes backwards: write the smaller end first");
    expect(message("*/0 3 * * *")).toMatch(/^the minute field's step of 0 never repeats/);
    expect(message("a 3 * * *")).toBe('the minute field\'s "a" is not a minute');
    expect(message("0 3 31 2 *")).toMatch(/^this schedule never fires/);
    for (const cron of ["61 3 * * *", "0 3 31 2 *", "x y z w v"])
      expect(message(cron)).not.toMatch(/Constraint error|got value|Invalid/);
    // Six fields (seconds first) read as something else entirely in the library: refused, not misread.
    expect(cronProblem("0 3 * * * *")).toMatch(/^a schedule has five fields .* this has 6/);
    expect(cronProblem("* * *")).toMatch(/this has 3/);
    for (const cron of [
      "0 3 * * 1-5",
      "*/15 * * * *",
      "0 3 * * MON-FRI",
      "0 0 1,15 JAN,JUL *",
      "0 3 L * *",
      "0 3 * * 5L",
      "0 3 ? * 1#2",
    ])
      expect(cronProblem(cron), cron).toBeNull();
  });
});
