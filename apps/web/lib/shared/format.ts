// Formatting for the dashboard: numbers, sizes, times. Pure functions; no React.
import { displayFormats } from "@throng/protocol/display-format";

// Numbers, durations and dates in the reader's own locale and time zone (the browser's), the same formats the
// report PDF uses for whoever asked for it (packages/protocol display-format.ts).
const READER = displayFormats();

const GIB = 1024 ** 3;

export function formatGiB(bytes: number): string {
  const gib = bytes / GIB;
  return `${READER.decimal(gib, gib >= 10 ? 0 : 1)} GiB`;
}

/** Memory sizes: MiB below a GiB, so an agent's 90 MiB does not read as "0.1 GiB". */
export function formatMemory(bytes: number): string {
  return bytes >= GIB ? formatGiB(bytes) : `${Math.max(0, Math.round(bytes / 1024 ** 2))} MiB`;
}

export function formatInteger(value: number): string {
  return READER.integer(value);
}

/** Rates: whole numbers above 100, one decimal below, so small runs do not read as zero. */
export function formatRate(value: number): string {
  return READER.rate(value);
}

export function formatMs(value: number | null | undefined): string {
  return READER.ms(value);
}

/** A number with at most `digits` decimals, in the reader's locale. */
export function formatDecimal(value: number, digits: number): string {
  return READER.decimal(value, digits);
}

/** A number with exactly `digits` decimals, in the reader's locale: "0.970". */
export function formatFixed(value: number, digits: number): string {
  return READER.fixed(value, digits);
}

/** A 0..1 ratio as percent: "98.7 %". */
export function formatPercent(ratio: number, digits = 1): string {
  return READER.percent(ratio, digits);
}

/** "1 m 05 s", "42 s". */
export function formatDuration(seconds: number): string {
  return READER.duration(seconds);
}

/** "24 Nov 2026, 13:10:42" in the user's locale; "—" for nothing. Takes ISO text, epoch ms or a Date. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  return READER.dateTime(value);
}

/** The date and time with its zone named ("Nov 28, 2026, 3:00:00 AM GMT+1"), in `timeZone` when given. */
export function formatDateTimeIn(value: string | number | Date | null | undefined, timeZone?: string): string {
  return READER.dateTimeWithZone(value, timeZone);
}

/** The day alone, in the same locale and style: "24 Nov 2026". */
export function formatDate(value: string | number | Date | null | undefined): string {
  return READER.date(value);
}

/** The time of day alone, for a chart's seconds (epoch seconds): "13:10:42". */
export function formatTimeOfDay(epochSeconds: number | null | undefined): string {
  return READER.timeOfDay(epochSeconds);
}

/** "just now", "12 s ago", "5 min ago", or a date for anything older than a day. */
export function formatAgo(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "never";
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return "never";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 2) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return formatDateTime(iso);
}

/**
 * Time left until an ISO instant, for token expiry: "in 59 min", "in 1 h". The unit is chosen after rounding, so an
 * hour less a second reads "in 1 h" like the hour it was made for, never "in 60 min".
 */
export function formatUntil(iso: string, now: number = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return "unknown";
  if (seconds <= 0) return "expired";
  if (seconds < 60) return `in ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.round(seconds / 3600);
  // Up to a day in hours, as the forms offer "24 hours".
  if (hours <= 24) return `in ${hours} h`;
  const days = Math.round(seconds / 86_400);
  return `in ${days} day${days === 1 ? "" : "s"}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids (runs, tokens, invitations) by their first block, like git's short hashes; callers keep the full id in a title. */
export function shortId(value: string): string {
  return UUID.test(value) ? `${value.slice(0, 8)}…` : value;
}
