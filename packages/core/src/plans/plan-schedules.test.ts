import { describe, expect, it } from "vitest";
import { ThrongError } from "@throng/protocol/errors";
import { nextRuns } from "./plan-schedules";

describe("when a plan's schedule fires", () => {
  const from = new Date("2026-03-28T12:00:00Z");

  it("lists the next times in the schedule's own time zone, as UTC instants", () => {
    expect(nextRuns("0 3 * * *", "UTC", from)).toEqual(["2026-03-29T03:00:00.000Z", "2026-03-30T03:00:00.000Z", "2026-03-31T03:00:00.000Z"]);
    // Berlin moves to summer time on 29 March 2026: 03:00 there is 01:00 UTC before, and 01:00 UTC after as well.
    expect(nextRuns("0 3 * * *", "Europe/Berlin", from, 2)).toEqual(["2026-03-29T01:00:00.000Z", "2026-03-30T01:00:00.000Z"]);
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
    expect(failure("0 3 * * *", "Mars/Olympus").fields).toEqual([{ path: "timezone", message: expect.stringMatching(/IANA/) }]);
  });
});
