// A cron schedule in words ("at 03:00 on Monday to Friday", "every 15 minutes"), for the Schedules page and the plan
// page: a reader should not have to parse "0 3 * * 1-5". Only the shapes people write are put in words; anything else
// is said as its fields, never guessed.

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

const isNumber = (text: string) => /^\d+$/.test(text);
const two = (value: number) => String(value).padStart(2, "0");
const ordinal = (value: number) => {
  const tens = value % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? "th" : (({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[value % 10] ?? "th");
  return `${value}${suffix}`;
};

/** A weekday or month field's value as its number (names too), or null. */
function numberOf(text: string, names: readonly string[], firstIs: number): number | null {
  if (isNumber(text)) return Number(text);
  const index = names.indexOf(text.toUpperCase());
  return index < 0 ? null : index + firstIs;
}

/** A list of values and ranges ("1-5", "MON,WED") in words, or null when a part is a step or unknown. */
function listInWords(
  field: string,
  words: readonly string[],
  names: readonly string[],
  firstIs: number,
): string | null {
  const parts = field.split(",").map((part) => {
    const [from, to, extra] = part.split("-");
    if (extra !== undefined || from === undefined) return null;
    const start = numberOf(from, names, firstIs);
    const end = to === undefined ? start : numberOf(to, names, firstIs);
    if (start === null || end === null) return null;
    const word = (value: number) => words[value - firstIs];
    if (word(start) === undefined || word(end) === undefined) return null;
    return start === end ? word(start)! : `${word(start)} to ${word(end)}`;
  });
  if (parts.some((part) => part === null)) return null;
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

/** When in the day: "at 03:00", "every 15 minutes", "every hour at minute 5"; null for shapes not put in words. */
function timeInWords(minute: string, hour: string): string | null {
  const everyMinutes = /^\*\/(\d+)$/.exec(minute);
  if (hour === "*") {
    if (minute === "*") return "every minute";
    if (everyMinutes) return Number(everyMinutes[1]) === 1 ? "every minute" : `every ${everyMinutes[1]} minutes`;
    if (isNumber(minute))
      return Number(minute) === 0 ? "every hour, on the hour" : `every hour at ${two(Number(minute))} past`;
    return null;
  }
  const everyHours = /^\*\/(\d+)$/.exec(hour);
  if (everyHours && isNumber(minute))
    return Number(everyHours[1]) === 1
      ? `every hour at ${two(Number(minute))} past`
      : `every ${everyHours[1]} hours at ${two(Number(minute))} past`;
  if (!isNumber(minute)) return null;
  const hours = hour.split(",");
  if (!hours.every(isNumber)) return null;
  const times = hours.map((value) => `${two(Number(value))}:${two(Number(minute))}`);
  return `at ${times.length === 1 ? times[0] : `${times.slice(0, -1).join(", ")} and ${times[times.length - 1]}`}`;
}

/**
 * A five-field cron schedule in words, e.g. "0 3 * * 1-5" → "at 03:00, Monday to Friday"; a schedule with a shape it
 * does not put in words reads as `cron "…"`, so the words never claim something the schedule does not say.
 */
export function cronInWords(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  const literal = `cron "${fields.join(" ")}"`;
  if (fields.length !== 5) return literal;
  const [minute, hour, dayOfMonth, month, weekday] = fields as [string, string, string, string, string];
  const time = timeInWords(minute, hour);
  if (!time) return literal;
  const days: string[] = [];
  if (dayOfMonth !== "*" && dayOfMonth !== "?") {
    const list = dayOfMonth.split(",");
    if (!list.every(isNumber)) return literal;
    days.push(`on the ${list.map((value) => ordinal(Number(value))).join(", ")}`);
  }
  if (weekday !== "*" && weekday !== "?") {
    const words = listInWords(weekday, WEEKDAYS, DAY_NAMES, 0);
    if (!words) return literal;
    days.push(dayOfMonth !== "*" && dayOfMonth !== "?" ? `or on ${words}` : words);
  }
  if (month !== "*") {
    const words = listInWords(month, MONTHS, MONTH_NAMES, 1);
    if (!words) return literal;
    days.push(`in ${words}`);
  }
  const daily = days.length === 0 && time.startsWith("at ") ? "every day " : "";
  return [`${daily}${time}`, ...days].join(", ");
}
