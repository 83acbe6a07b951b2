// A run's summary over a part of it (the range a page zoomed to): the same merge as the whole run's, over the
// snapshots of the range's seconds only, so its percentiles come from the merged HDR histograms, never averaged.
import type { RunRangeQuery } from "@throng/protocol/run-range";
import type { RunSummary } from "@throng/protocol/run";
import type { StoredSnapshot } from "@throng/protocol/snapshot";
import { summariseRun } from "@throng/wire/run-summary";

/** The run's first second (epoch seconds): the one its `startedAt` falls in, as the charts number them. */
export function startSecond(startedAt: Date): number {
  return Math.floor(startedAt.getTime() / 1000);
}

/** Epoch seconds of the range's first second and of the first second after it. */
export function rangeSeconds(start: number, range: RunRangeQuery): { first: number; after: number } {
  return { first: start + range.from, after: start + range.to };
}

/** The summary of the snapshots whose second lies in the range, how many seconds hold any; null with none. */
export function summariseRange(
  rows: readonly StoredSnapshot[],
  start: number,
  range: RunRangeQuery,
): { seconds: number; summary: RunSummary | null } {
  const { first, after } = rangeSeconds(start, range);
  const inRange = rows.filter((row) => row.second >= first && row.second < after);
  if (inRange.length === 0) return { seconds: 0, summary: null };
  return { seconds: new Set(inRange.map((row) => row.second)).size, summary: summariseRun(inRange) };
}
