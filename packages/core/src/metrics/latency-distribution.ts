// A latency metric's distribution and heatmap from the stored per-second histograms (one encoding per agent per
// second): every bucket of every encoding lands in one log bucket of its column and of the whole, and the same
// buckets go into one merged HDR histogram for the percentiles, so the counts sum to the histogram's total and the
// markers are the HDR percentiles the report states. Never averaged.
import {
  bucketOf,
  distributionMetricName,
  distributionMetrics,
  distributionSource,
  MAX_HEATMAP_COLUMNS,
  type DistributionQuery,
  type LatencyDistribution,
} from "@throng/protocol/latency-distribution";
import type { RunSummary } from "@throng/protocol/run";
import type { Repos } from "@throng/db/repos";
import { EncodedMerge } from "@throng/wire/snapshot-histogram";

/** One agent's histogram of one second: its epoch second and its encoding. */
export interface SecondHistogram {
  second: number;
  encoded: string;
}

export type Distribution = Omit<LatencyDistribution, "runId" | "metric">;

/** How many seconds each heatmap column merges so that a range of `seconds` draws at most `maxColumns` columns. */
export function secondsPerColumn(seconds: number, maxColumns = MAX_HEATMAP_COLUMNS): number {
  return Math.max(1, Math.ceil(seconds / maxColumns));
}

/** Each HDR bucket index's log bucket (-1: not yet computed); the index's value is the same for every encoding. */
let logBucketOfIndex = new Int16Array(0);

/** bucketOf(valueUs) for the HDR bucket `index` whose value is `valueUs`, computed once per index. */
function bucketOfIndex(index: number, valueUs: number): number {
  if (index >= logBucketOfIndex.length) {
    const grown = new Int16Array(Math.max(index + 1, logBucketOfIndex.length * 2, 4096)).fill(-1);
    grown.set(logBucketOfIndex);
    logBucketOfIndex = grown;
  }
  let bucket = logBucketOfIndex[index]!;
  if (bucket < 0) bucket = logBucketOfIndex[index] = bucketOf(valueUs);
  return bucket;
}

/**
 * The distribution of the histograms whose second lies in [start + from, start + to), with `start` the run's first
 * epoch second. Rows outside the range are ignored, so a caller may pass more than it asked the database for.
 */
export function latencyDistribution(
  rows: readonly SecondHistogram[],
  start: number,
  range: { from: number; to: number },
): Distribution {
  const perColumn = secondsPerColumn(range.to - range.from);
  const merged = new EncodedMerge();
  // Each column's counts by log bucket (an array indexed by bucket: a map per bucket cost more than the merge).
  const columns = new Map<number, number[]>();
  let low = Infinity;
  let high = -Infinity;
  for (const row of rows) {
    const offset = row.second - start;
    if (offset < range.from || offset >= range.to || !row.encoded) continue;
    const column = range.from + Math.floor((offset - range.from) / perColumn) * perColumn;
    let cells = columns.get(column);
    if (!cells) {
      cells = [];
      columns.set(column, cells);
    }
    merged.add(row.encoded, (index, valueUs, count) => {
      const bucket = index < 0 ? bucketOf(valueUs) : bucketOfIndex(index, valueUs);
      cells[bucket] = (cells[bucket] ?? 0) + count;
      if (bucket < low) low = bucket;
      if (bucket > high) high = bucket;
    });
  }
  const stats = merged.percentiles();
  if (stats.count === 0)
    return {
      from: range.from,
      to: range.to,
      stats,
      firstBucket: 0,
      counts: [],
      heatmap: { secondsPerColumn: perColumn, columnStart: [], counts: [], maxCount: 0 },
    };
  const width = high - low + 1;
  const counts = new Array<number>(width).fill(0);
  const columnStart = [...columns.keys()].filter((column) => columns.get(column)!.length > 0).sort((a, b) => a - b);
  let maxCount = 0;
  const heatmap = columnStart.map((column) => {
    const cells = new Array<number>(width).fill(0);
    const sparse = columns.get(column)!;
    for (let bucket = low; bucket <= high; bucket++) {
      const count = sparse[bucket];
      if (!count) continue;
      cells[bucket - low] = count;
      counts[bucket - low]! += count;
      if (count > maxCount) maxCount = count;
    }
    return cells;
  });
  return {
    from: range.from,
    to: range.to,
    stats,
    firstBucket: low,
    counts,
    heatmap: { secondsPerColumn: perColumn, columnStart, counts: heatmap, maxCount },
  };
}

/**
 * A run's distribution of one latency metric over the range asked for, or the whole run (from its first second to its
 * last stored one), read from its stored per-second histograms. The caller has checked who may read the run: the
 * signed-in route through its organisation, the share page through its link.
 */
export async function runDistribution(
  repos: Pick<Repos, "snapshots">,
  orgId: string,
  run: { id: string; startedAt: string | null },
  query: DistributionQuery,
): Promise<LatencyDistribution> {
  const empty = latencyDistribution([], 0, { from: query.from ?? 0, to: query.to ?? 1 });
  if (!run.startedAt) return { runId: run.id, metric: query.metric, ...empty };
  // The run's seconds are numbered from the one its start falls in, as its charts number them.
  const start = Math.floor(Date.parse(run.startedAt) / 1000);
  const whole = query.from === undefined || query.to === undefined;
  const from = whole ? 0 : query.from!;
  const rows = await repos.snapshots.listLatencyHistograms(
    orgId,
    run.id,
    distributionSource(query.metric),
    start + from,
    whole ? Number.MAX_SAFE_INTEGER : start + query.to!,
  );
  const to = whole ? Math.max(1, ...rows.map((row) => row.second - start + 1)) : query.to!;
  return { runId: run.id, metric: query.metric, ...latencyDistribution(rows, start, { from, to }) };
}

/**
 * What a printed report draws: each latency the run measured, as the report page offers them (at most four, round
 * trips first), over the whole run: the PDF is the whole run's document whatever range the page was zoomed to.
 */
export async function printedDistributions(
  repos: Pick<Repos, "snapshots">,
  orgId: string,
  run: { id: string; startedAt: string | null; summary?: RunSummary | null },
): Promise<{ name: string; distribution: LatencyDistribution }[]> {
  const metrics = distributionMetrics(run.summary ? [run.summary] : []).slice(0, 4);
  return Promise.all(
    metrics.map(async (metric) => ({
      name: distributionMetricName(metric),
      distribution: await runDistribution(repos, orgId, run, { metric }),
    })),
  );
}
