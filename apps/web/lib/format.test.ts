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
    expect(formatUntil(at(86_400 + 60), now)).toBe("in 1 day");
    expect(formatUntil(at(86_400 * 7), now)).toBe("in 7 days");
  });
});
