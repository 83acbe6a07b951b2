import { describe, expect, it } from "vitest";
import { cronInWords } from "./cron-words";

describe("a cron schedule in words", () => {
  it.each([
    ["0 3 * * *", "every day at 03:00"],
    ["0 3 * * 1-5", "at 03:00, Monday to Friday"],
    ["30 9,17 * * MON,WED", "at 09:30 and 17:30, Monday and Wednesday"],
    ["*/15 * * * *", "every 15 minutes"],
    ["* * * * *", "every minute"],
    ["0 * * * *", "every hour, on the hour"],
    ["5 */6 * * *", "every 6 hours at 05 past"],
    ["0 2 1,15 * *", "at 02:00, on the 1st, 15th"],
    ["0 4 * 1 0", "at 04:00, Sunday, in January"],
    ["0 4 * * 7", "at 04:00, Sunday"],
  ])("says a shape people write as a sentence: %s is %s", (cron, words) => {
    expect(cronInWords(cron)).toBe(words);
  });

  it.each(["0 3 L * *", "1-10/2 3 * * *", "0 3 * * 1#2", "0 3 * *"])(
    "never guesses: %s, a shape it does not put in words, reads as the cron itself",
    (cron) => {
      expect(cronInWords(cron)).toBe(`cron "${cron}"`);
    },
  );
});
