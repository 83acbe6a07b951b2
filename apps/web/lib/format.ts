// Formatting for the dashboard: numbers, sizes, times. Pure functions; no React.

const GIB = 1024 ** 3;

export function formatGiB(bytes: number): string {
  const gib = bytes / GIB;
  return `${gib >= 10 ? gib.toFixed(0) : gib.toFixed(1)} GiB`;
}

/** Memory sizes: MiB below a GiB, so an agent's 90 MiB does not read as "0.1 GiB". */
export function formatMemory(bytes: number): string {
  return bytes >= GIB ? formatGiB(bytes) : `${Math.max(0, Math.round(bytes / 1024 ** 2))} MiB`;
}

export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** Rates: whole numbers above 100, one decimal below, so small runs do not read as zero. */
export function formatRate(value: number): string {
  if (value >= 100) return formatInteger(value);
  return value.toLocaleString("en-US", { maximumFractionDigits: 1 });
}

export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (value >= 100) return `${formatInteger(value)} ms`;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: 2 })} ms`;
}

/** "1 m 05 s", "42 s". */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} m`;
  if (m > 0) return `${m} m ${String(s).padStart(2, "0")} s`;
  return `${s} s`;
}

// Dates and times: one format everywhere (pages, events, charts' axes and legends), in the user's own locale.
// `undefined` asks Intl for the browser's locale; the formatters are built once, as building one is slow.
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "24 Nov 2026, 13:10:42" in the user's locale; "—" for nothing. Takes ISO text, epoch ms or a Date. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  const date = toDate(value);
  return date ? DATE_TIME.format(date) : "—";
}

/** The day alone, in the same locale and style: "24 Nov 2026". */
export function formatDate(value: string | number | Date | null | undefined): string {
  const date = toDate(value);
  return date ? DATE.format(date) : "—";
}

/** The time of day alone, for a chart's seconds (epoch seconds): "13:10:42". */
export function formatTimeOfDay(epochSeconds: number | null | undefined): string {
  if (epochSeconds === null || epochSeconds === undefined || !Number.isFinite(epochSeconds)) return "—";
  return TIME.format(new Date(epochSeconds * 1000));
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

/** Time left until an ISO instant, for token expiry: "in 59 min". */
export function formatUntil(iso: string, now: number = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return "unknown";
  if (seconds <= 0) return "expired";
  if (seconds < 60) return `in ${seconds} s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `in ${Math.round(seconds / 3600)} h`;
  const days = Math.round(seconds / 86_400);
  return `in ${days} day${days === 1 ? "" : "s"}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids (runs, tokens, invitations) by their first block, like git's short hashes; callers keep the full id in a title. */
export function shortId(value: string): string {
  return UUID.test(value) ? `${value.slice(0, 8)}…` : value;
}
