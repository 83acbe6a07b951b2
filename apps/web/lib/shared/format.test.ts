import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatTimeOfDay, formatUntil } from "./format";

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

describe("formatUntil", () => {
  const now = Date.parse("2026-11-26T00:00:00Z");
  const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
  it("says how long until a moment, in one unit, singular where it is one", () => {
    expect(formatUntil(at(-1), now)).toBe("expired");
    expect(formatUntil(at(42), now)).toBe("in 42 s");
    expect(formatUntil(at(3_600 * 2), now)).toBe("in 2 h");
    expect(formatUntil(at(86_400 * 1.6), now)).toBe("in 2 days");
    expect(formatUntil(at(86_400 * 7), now)).toBe("in 7 days");
  });
  it("picks the unit after rounding: a one-hour token a second old reads 'in 1 h', as the form that made it said, never 'in 60 min'", () => {
    expect(formatUntil(at(3_599), now)).toBe("in 1 h");
    expect(formatUntil(at(3_570), now)).toBe("in 1 h");
    expect(formatUntil(at(3_500), now)).toBe("in 58 min");
    expect(formatUntil(at(59.6), now)).toBe("in 1 min");
    expect(formatUntil(at(86_399), now)).toBe("in 24 h");
    expect(formatUntil(at(86_400 * 7 - 1), now)).toBe("in 7 days");
  });
});
