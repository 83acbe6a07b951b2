import { describe, expect, it } from "vitest";
import { cronInWords } from "./cron-words";

describe("a cron schedule in words", () => {
  it("says the shapes people write as a sentence", () => {
    expect(cronInWords("0 3 * * *")).toBe("every day at 03:00");
    expect(cronInWords("0 3 * * 1-5")).toBe("at 03:00, Monday to Friday");
    expect(cronInWords("30 9,17 * * MON,WED")).toBe("at 09:30 and 17:30, Monday and Wednesday");
    expect(cronInWords("*/15 * * * *")).toBe("every 15 minutes");
    expect(cronInWords("* * * * *")).toBe("every minute");
    expect(cronInWords("0 * * * *")).toBe("every hour, on the hour");
    expect(cronInWords("5 */6 * * *")).toBe("every 6 hours at 05 past");
    expect(cronInWords("0 2 1,15 * *")).toBe("at 02:00, on the 1st, 15th");
    expect(cronInWords("0 4 * 1 0")).toBe("at 04:00, Sunday, in January");
    expect(cronInWords("0 4 * * 7")).toBe("at 04:00, Sunday");
  });

  it("never guesses: a shape it does not put in words reads as the cron itself", () => {
    expect(cronInWords("0 3 L * *")).toBe('cron "0 3 L * *"');
    expect(cronInWords("1-10/2 3 * * *")).toBe('cron "1-10/2 3 * * *"');
    expect(cronInWords("0 3 * * 1#2")).toBe('cron "0 3 * * 1#2"');
    expect(cronInWords("0 3 * *")).toBe('cron "0 3 * *"');
  });
});
