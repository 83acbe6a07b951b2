import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatTimeOfDay } from "./format";

describe("dates in one format, the user's locale", () => {
  const instant = Date.UTC(2026, 10, 24, 13, 10, 42);
  const locale = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

  it("formats ISO text, epoch ms and Dates alike, with Intl in the runtime's locale", () => {
    const expected = locale.format(new Date(instant));
    expect(formatDateTime(new Date(instant).toISOString())).toBe(expected);
    expect(formatDateTime(instant)).toBe(expected);
    expect(formatDateTime(new Date(instant))).toBe(expected);
  });

  it("gives a chart's second the same time of day the date-and-time shows", () => {
    const time = formatTimeOfDay(instant / 1000);
    expect(formatDateTime(instant)).toContain(time);
    expect(formatDateTime(instant)).toContain(formatDate(instant));
  });

  it("says — for nothing or nonsense, never 'Invalid Date'", () => {
    expect(formatDateTime(null)).toBe("—");
    expect(formatDateTime("yesterday-ish")).toBe("—");
    expect(formatTimeOfDay(null)).toBe("—");
  });
});
