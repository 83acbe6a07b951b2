// The part of a run a page looks at, kept in its URL as `?from=<s>&to=<s>`: whole seconds since the run's start
// (its `startedAt`), the seconds from `from` up to, not including, `to`. The zoom (issue 28 §1) writes it; the
// distribution and heatmap read it here. (Written the same way as the zoom helper's file, same name and meaning,
// until that is on main.)

export interface ViewRange {
  /** Whole seconds since the run's start, the first second in the range. */
  from: number;
  /** Whole seconds since the run's start, the first second after the range; always more than `from`. */
  to: number;
}

/** What a page gets its query from: the browser's URLSearchParams or a Next.js page's `searchParams` object. */
export type SearchParamsLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function param(searchParams: SearchParamsLike, name: string): string | undefined {
  if (typeof (searchParams as { get?: unknown }).get === "function") return (searchParams as { get(name: string): string | null }).get(name) ?? undefined;
  const value = (searchParams as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

const WHOLE_SECONDS = /^\d+$/;

/**
 * The range in the URL, or null when there is none or it cannot be one (a missing or non-numeric bound, `to` not
 * after `from`): a page then shows the whole run, as it would for a link without a range.
 */
export function readViewRange(searchParams: SearchParamsLike): ViewRange | null {
  const from = param(searchParams, "from")?.trim();
  const to = param(searchParams, "to")?.trim();
  if (!from || !to || !WHOLE_SECONDS.test(from) || !WHOLE_SECONDS.test(to)) return null;
  const range = { from: Number(from), to: Number(to) };
  return range.to > range.from ? range : null;
}
