// Numbers, durations and dates as a reader sees them, in the reader's locale and time zone: the dashboard builds
// one set for the browser's own, and the report PDF one for the locale and zone of whoever asked for it, so both
// say "1.234 ms", "29 s" and "27. Nov. 2026, 00:13:51" alike. Pure; Intl only.

export interface ReaderPlace {
  /** A BCP 47 tag ("en-US", "de-DE"); undefined is the runtime's own (the browser's, in the dashboard). */
  locale?: string | undefined;
  /** An IANA zone ("Europe/Berlin"); undefined is the runtime's own. */
  timeZone?: string | undefined;
}

export interface DisplayFormats {
  /** The locale the formats resolved to (what Intl made of the asked one). */
  readonly locale: string;
  readonly timeZone: string;
  /** A whole number with the locale's grouping: "1,234" / "1.234". */
  integer(value: number): string;
  /** A number with at most `digits` decimals. */
  decimal(value: number, digits: number): string;
  /** A number with exactly `digits` decimals ("0.970", "100.0"). */
  fixed(value: number, digits: number): string;
  /** Rates: whole numbers from 100, one decimal below, so small runs do not read as zero. */
  rate(value: number): string;
  /** A latency: whole milliseconds from 100, two decimals below; "—" for nothing. */
  ms(value: number | null | undefined): string;
  /** A 0..1 ratio as percent with at most `digits` decimals: "98.7 %". */
  percent(ratio: number, digits?: number): string;
  /** "1 h 05 m", "1 m 05 s", "42 s". */
  duration(seconds: number): string;
  /** Date and time, medium styles: "Nov 27, 2026, 12:13:51 AM"; "—" for nothing or nonsense. */
  dateTime(value: DateInput): string;
  /** The same with the zone's short name: "Nov 28, 2026, 3:00:00 AM GMT+1", in `timeZone` when given. */
  dateTimeWithZone(value: DateInput, timeZone?: string): string;
  /** The day alone: "Nov 27, 2026". */
  date(value: DateInput): string;
  /** The time of day alone, from epoch seconds (a chart's second): "12:13:51 AM". */
  timeOfDay(epochSeconds: number | null | undefined): string;
}

export type DateInput = string | number | Date | null | undefined;

function toDate(value: DateInput): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** An ISO instant as the API writes one into a sentence ("only 0 of 4 clients were connected at 2026-11-27T10:08:33.000Z"). */
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g;

/**
 * API text with each ISO instant in it put in the reader's date format: the API and JSON keep ISO (machines read
 * them), the dashboard and the PDF say "Nov 27, 2026, 11:08:33 AM" in the reader's zone.
 */
export function instantsInWords(text: string, dateTime: (iso: string) => string): string {
  return text.replace(ISO_INSTANT, (iso) => dateTime(iso));
}

/** "1 h 05 m", "1 m 05 s", "42 s": whole seconds, the two largest units. */
export function durationText(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} m`;
  if (m > 0) return `${m} m ${String(s).padStart(2, "0")} s`;
  return `${s} s`;
}

/** A locale and zone Intl accepts, or undefined (the runtime's own) for one it does not. */
function usable(place: ReaderPlace): ReaderPlace {
  const out: ReaderPlace = {};
  try {
    if (place.locale) out.locale = Intl.getCanonicalLocales(place.locale)[0];
  } catch {
    // Not a locale tag: the runtime's own.
  }
  try {
    if (place.timeZone)
      out.timeZone = new Intl.DateTimeFormat("en", { timeZone: place.timeZone }).resolvedOptions().timeZone;
  } catch {
    // Not a zone: the runtime's own.
  }
  return out;
}

/** One set of formats for a reader; the Intl formatters are built once each, as building one is slow. */
export function displayFormats(place: ReaderPlace = {}): DisplayFormats {
  const { locale, timeZone } = usable(place);
  const zone = timeZone ? { timeZone } : {};
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium", ...zone });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", ...zone });
  const time = new Intl.DateTimeFormat(locale, { timeStyle: "medium", ...zone });
  const numbers = new Map<number, Intl.NumberFormat>();
  const number = (digits: number) => {
    let format = numbers.get(digits);
    if (!format) {
      format = new Intl.NumberFormat(locale, { maximumFractionDigits: digits });
      numbers.set(digits, format);
    }
    return format;
  };
  const zoned = new Map<string, Intl.DateTimeFormat>();
  const withZone = (name: string | undefined) => {
    const key = name ?? "";
    let format = zoned.get(key);
    if (!format) {
      format = new Intl.DateTimeFormat(locale, {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "numeric",
        minute: "2-digit",
        second: "2-digit",
        timeZoneName: "short",
        ...(name ? { timeZone: name } : zone),
      });
      zoned.set(key, format);
    }
    return format;
  };
  const integer = (value: number) => number(0).format(Math.round(value));
  const fixed = new Map<number, Intl.NumberFormat>();
  return {
    locale: dateTime.resolvedOptions().locale,
    timeZone: dateTime.resolvedOptions().timeZone,
    integer,
    decimal: (value, digits) => number(digits).format(value),
    fixed: (value, digits) => {
      let format = fixed.get(digits);
      if (!format) {
        format = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
        fixed.set(digits, format);
      }
      return format.format(value);
    },
    rate: (value) => (value >= 100 ? integer(value) : number(1).format(value)),
    ms: (value) =>
      value === null || value === undefined
        ? "—"
        : value >= 100
          ? `${integer(value)} ms`
          : `${number(2).format(value)} ms`,
    percent: (ratio, digits = 1) => `${number(digits).format(ratio * 100)} %`,
    duration: durationText,
    dateTime: (value) => {
      const at = toDate(value);
      return at ? dateTime.format(at) : "—";
    },
    dateTimeWithZone: (value, name) => {
      const at = toDate(value);
      if (!at) return "—";
      try {
        return withZone(name).format(at);
      } catch {
        return withZone(undefined).format(at);
      }
    },
    date: (value) => {
      const at = toDate(value);
      return at ? date.format(at) : "—";
    },
    timeOfDay: (epochSeconds) =>
      epochSeconds === null || epochSeconds === undefined || !Number.isFinite(epochSeconds)
        ? "—"
        : time.format(new Date(epochSeconds * 1000)),
  };
}
