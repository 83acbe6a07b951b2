import { describe, expect, it } from "vitest";
import { cronInWords } from "./cron-words";

describe("a cron schedule in words", () => {
  it.each([
    { cron: "0 3 * * *", words: "every day at 03:00" },
    { cron: "0 3 * * 1-5", words: "at 03:00, Monday to Friday" },
    { cron: "30 9,17 * * MON,WED", words: "at 09:30 and 17:30, Monday and Wednesday" },
    { cron: "*/15 * * * *", words: "every 15 minutes" },
    { cron: "* * * * *", words: "every minute" },
    { cron: "0 * * * *", words: "every hour, on the hour" },
    { cron: "5 */6 * * *", words: "every 6 hours at 05 past" },
    { cron: "0 2 1,15 * *", words: "at 02:00, on the 1st, 15th" },
    { cron: "0 4 * 1 0", words: "at 04:00, Sunday, in January" },
    { cron: "0 4 * * 7", words: "at 04:00, Sunday" },
  ])("says a shape people write as a sentence: $cron is $words", ({ cron, words }) => {
    expect(cronInWords(cron)).toBe(words);
  });

  it.each(["0 3 L * *", "1-10/2 3 * * *", "0 3 * * 1#2", "0 3 * *"])(
    "never guesses: %s, a shape it does not put in words, reads as the cron itself",
    (cron) => {
      expect(cronInWords(cron)).toBe(`cron "${cron}"`);
    },
  );
});
