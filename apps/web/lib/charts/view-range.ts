// The part of a run a page looks at, kept in its URL as `?from=<s>&to=<s>` so a zoomed view can be shared and
// reloaded. Both are whole seconds since the run's start (its `startedAt`): the range holds the run's seconds
// from `from` up to, not including, `to` (the second starting at start + from is in, the one at start + to is
// not), so `to - from` is how long it lasts. Every page part that follows the range (charts, summary,
// distributions) reads it here, so they all agree on what a URL means; the API checks the same bounds with the
// same schema (protocol's run-range.ts).
import { RunRangeQuery } from "@throng/protocol/run-range";

export interface ViewRange {
  /** Whole seconds since the run's start, the first second in the range. */
  from: number;
  /** Whole seconds since the run's start, the first second after the range; always more than `from`. */
  to: number;
}

/** A latency distribution request's query: its metric, and the range's seconds when the page is zoomed. */
export function distributionQuery(metric: string, range: ViewRange | null): URLSearchParams {
  return new URLSearchParams({ metric, ...(range && { from: String(range.from), to: String(range.to) }) });
}

/** What a page gets its query from: the browser's URLSearchParams or a Next.js page's `searchParams` object. */
export type SearchParamsLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function param(searchParams: SearchParamsLike, name: string): string | undefined {
  if (typeof (searchParams as { get?: unknown }).get === "function") {
    return (searchParams as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (searchParams as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The range in the URL, or null when there is none or it cannot be one (a missing or non-numeric bound, `to` not
 * after `from`): a page then shows the whole run, as it would for a link without a range.
 */
export function readViewRange(searchParams: SearchParamsLike): ViewRange | null {
  const parsed = RunRangeQuery.safeParse({ from: param(searchParams, "from"), to: param(searchParams, "to") });
  return parsed.success ? { from: parsed.data.from, to: parsed.data.to } : null;
}

/** `search` (a URL's query, with or without its "?") with the range set, or removed when `range` is null. */
export function withViewRange(search: string, range: ViewRange | null): string {
  const params = new URLSearchParams(search);
  params.delete("from");
  params.delete("to");
  if (range) {
    params.set("from", String(range.from));
    params.set("to", String(range.to));
  }
  const query = params.toString();
  return query ? `?${query}` : "";
}
