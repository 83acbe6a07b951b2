import { describe, expect, it } from "vitest";
import { displayFormats, durationText, instantsInWords } from "./display-format";

describe("display formats follow the reader's locale and time zone", () => {
  const instant = Date.UTC(2026, 10, 26, 23, 13, 51);

  it("writes numbers with the locale's separators, not always en-US", () => {
    const us = displayFormats({ locale: "en-US" });
    const de = displayFormats({ locale: "de-DE" });
    expect(us.integer(12_345)).toBe("12,345");
    expect(de.integer(12_345)).toBe("12.345");
    expect(us.ms(12.59)).toBe("12.59 ms");
    expect(de.ms(12.59)).toBe("12,59 ms");
    expect(de.ms(1_234.4)).toBe("1.234 ms");
    expect(de.rate(5.25)).toBe("5,3");
    expect(de.percent(0.987)).toBe("98,7 %");
    expect(us.ms(null)).toBe("—");
  });

  it("writes dates in the locale's words and the reader's zone", () => {
    const us = displayFormats({ locale: "en-US", timeZone: "Europe/Berlin" });
    expect(us.dateTime(instant)).toBe("Nov 27, 2026, 12:13:51 AM");
    expect(us.timeOfDay(instant / 1000)).toBe("12:13:51 AM");
    const de = displayFormats({ locale: "de-DE", timeZone: "UTC" });
    expect(de.dateTime(new Date(instant).toISOString())).toBe("26.11.2026, 23:13:51");
    expect(us.dateTime("not a date")).toBe("—");
  });

  it("names the zone when asked, in the zone asked for", () => {
    const us = displayFormats({ locale: "en-US", timeZone: "UTC" });
    expect(us.dateTimeWithZone(Date.UTC(2026, 10, 28, 2, 0, 0), "Europe/Berlin")).toBe(
      "Nov 28, 2026, 3:00:00 AM GMT+1",
    );
    expect(us.dateTimeWithZone(Date.UTC(2026, 10, 28, 2, 0, 0))).toBe("Nov 28, 2026, 2:00:00 AM UTC");
  });

  it("falls back to the runtime's own for a locale or zone Intl does not know, rather than throwing", () => {
    const odd = displayFormats({ locale: "not a locale!", timeZone: "Mars/Olympus" });
    expect(odd.integer(1)).toBe("1");
    expect(odd.dateTime(instant)).not.toBe("—");
  });

  it("says durations as the dashboard does: '29 s', '1 m 05 s', '1 h 05 m'", () => {
    expect(durationText(29)).toBe("29 s");
    expect(durationText(65)).toBe("1 m 05 s");
    expect(durationText(3_900)).toBe("1 h 05 m");
    expect(durationText(-3)).toBe("0 s");
  });
});

describe("API text read in the reader's dates", () => {
  it("puts every ISO instant of a verdict's reason in the reader's date format, and leaves the rest as it is (issue 27 §2)", () => {
    const berlin = displayFormats({ locale: "de-DE", timeZone: "Europe/Berlin" });
    const reason = "only 0 of 4 clients were connected at 2026-11-27T10:08:33.000Z";
    expect(instantsInWords(reason, berlin.dateTime)).toBe(
      `only 0 of 4 clients were connected at ${berlin.dateTime("2026-11-27T10:08:33.000Z")}`,
    );
    expect(instantsInWords(reason, berlin.dateTime)).toContain("11:08:33");
    expect(instantsInWords("measurements cover 4 of the 12 planned seconds", berlin.dateTime)).toBe(
      "measurements cover 4 of the 12 planned seconds",
    );
  });
});
