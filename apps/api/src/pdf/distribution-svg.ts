// The report PDF's latency distributions: per metric, the histogram (bars per log bucket, p50/p90/p99/max lines) and
// the heatmap over time, as inline SVG. The heatmap's columns are added together to at most PDF_COLUMNS (cells are
// counts, so adding them is exact) to keep the page light for Chromium's print.
import { bucketLowerMs, type LatencyDistribution } from "@throng/protocol/latency-distribution";
import { escapeHtml } from "./html-table";

const [W, H, LEFT, RIGHT, TOP, BOTTOM] = [320, 150, 46, 8, 18, 18];
const PDF_COLUMNS = 160;
const MARKERS = [
  ["p50Ms", "p50", "#1a7f37"],
  ["p90Ms", "p90", "#9a6700"],
  ["p99Ms", "p99", "#cf222e"],
  ["maxMs", "max", "#8250df"],
] as const;

/** The words the PDF writes numbers with (its reader's formats). */
export interface DistributionFormats {
  ms(value: number | null): string;
  integer(value: number): string;
}

/** Latency buckets whose edge is a power of ten (and 2×, 5× when few): the latency axis's ticks. */
function ticks(first: number, count: number): number[] {
  const all = Array.from({ length: count + 1 }, (_, i) => first + i).filter((k) =>
    [0, 3, 7].includes(((k % 10) + 10) % 10),
  );
  return all.length > 6 ? all.filter((k) => k % 10 === 0) : all;
}

/**
 * The latency axis's labels, one per tick, each its bucket's lower edge: along the bottom of the histogram, up the
 * side of the heatmap. `place` puts a tick's label (its x and y); `anchor` is how the text hangs from that point.
 */
function latencyLabels(
  f: DistributionFormats,
  d: LatencyDistribution,
  anchor: "middle" | "end",
  place: (bucket: number) => [x: number | string, y: number | string],
): string {
  return ticks(d.firstBucket, d.counts.length)
    .map((k) => {
      const [x, y] = place(k);
      return `<text x="${x}" y="${y}" text-anchor="${anchor}">${escapeHtml(f.ms(bucketLowerMs(k)))}</text>`;
    })
    .join("");
}

function histogramSvg(f: DistributionFormats, d: LatencyDistribution): string {
  const top = Math.max(...d.counts);
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const x = (k: number) => LEFT + ((k - d.firstBucket) / d.counts.length) * plotW;
  const barW = plotW / d.counts.length;
  const bars = d.counts
    .map((count, i) =>
      count === 0
        ? ""
        : `<rect x="${(LEFT + i * barW).toFixed(1)}" y="${(H - BOTTOM - (count / top) * plotH).toFixed(1)}" width="${Math.max(0.5, barW - 0.6).toFixed(1)}" height="${((count / top) * plotH).toFixed(1)}" fill="#1f5fbf" />`,
    )
    .join("");
  const xTicks = latencyLabels(f, d, "middle", (k) => [x(k).toFixed(1), H - 5]);
  const markers = MARKERS.map(([key, label, colour], i) => {
    const ms = d.stats[key];
    if (ms === null) return "";
    const at = Math.min(W - RIGHT, x(Math.log10(Math.max(1, ms * 1000)) * 10));
    return `<line x1="${at.toFixed(1)}" x2="${at.toFixed(1)}" y1="${TOP}" y2="${H - BOTTOM}" stroke="${colour}" stroke-dasharray="3 2" /><text x="${Math.min(at, W - 40).toFixed(1)}" y="${7 + (i % 2) * 8}" style="fill:${colour}">${escapeHtml(`${label} ${f.ms(ms)}`)}</text>`;
  }).join("");
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="histogram"><text x="${LEFT - 4}" y="${TOP + 3}" text-anchor="end">${escapeHtml(f.integer(top))}</text><line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${H - BOTTOM}" y2="${H - BOTTOM}" />${bars}${xTicks}${markers}</svg>`;
}

/** The heatmap's columns added together so that at most PDF_COLUMNS are drawn. */
export function pdfColumns(d: LatencyDistribution): { start: number; seconds: number; counts: number[] }[] {
  // A whole number of the answer's columns, so that no column is split across two drawn ones.
  const per = d.heatmap.secondsPerColumn;
  const seconds = per * Math.max(1, Math.ceil(Math.ceil((d.to - d.from) / PDF_COLUMNS) / per));
  const columns = new Map<number, number[]>();
  d.heatmap.columnStart.forEach((start, i) => {
    const at = d.from + Math.floor((start - d.from) / seconds) * seconds;
    const sum = columns.get(at) ?? new Array<number>(d.counts.length).fill(0);
    for (const [bucket, count] of d.heatmap.counts[i]!.entries()) sum[bucket]! += count;
    columns.set(at, sum);
  });
  return [...columns].map(([start, counts]) => ({ start, seconds, counts }));
}

function heatmapSvg(f: DistributionFormats, d: LatencyDistribution): string {
  const columns = pdfColumns(d);
  const max = Math.max(...columns.flatMap((column) => column.counts));
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const rowH = plotH / d.counts.length;
  const cells = columns
    .flatMap((column) =>
      column.counts.map((count, row) => {
        if (count === 0) return "";
        const share = max <= 1 ? 1 : Math.log(count) / Math.log(max);
        const x = LEFT + ((column.start - d.from) / (d.to - d.from)) * plotW;
        const width = (column.seconds / (d.to - d.from)) * plotW;
        return `<rect x="${x.toFixed(1)}" y="${(H - BOTTOM - (row + 1) * rowH).toFixed(1)}" width="${(width + 0.3).toFixed(1)}" height="${(rowH + 0.3).toFixed(1)}" fill="hsl(${Math.round((55 - share * 135 + 360) % 360)} 85% ${Math.round(88 - share * 63)}%)" />`;
      }),
    )
    .join("");
  const yTicks = latencyLabels(f, d, "end", (k) => [
    LEFT - 4,
    (H - BOTTOM - (k - d.firstBucket) * rowH + 3).toFixed(1),
  ]);
  const seconds = `<text x="${LEFT}" y="${H - 5}">${d.from} s</text><text x="${W - RIGHT}" y="${H - 5}" text-anchor="end">${d.to} s</text>`;
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="heatmap"><rect x="${LEFT}" y="${TOP}" width="${plotW}" height="${plotH}" fill="none" stroke="#ddd" />${cells}${yTicks}${seconds}<text x="${W - RIGHT}" y="${TOP - 6}" text-anchor="end">darkest: ${escapeHtml(f.integer(max))} samples a cell</text></svg>`;
}

/** One metric's histogram and heatmap side by side, captioned with its name and its percentiles. */
export function distributionFigures(
  f: DistributionFormats,
  distributions: readonly { name: string; distribution: LatencyDistribution }[],
): string {
  return distributions
    .filter(({ distribution }) => distribution.stats.count > 0)
    .map(({ name, distribution: d }) => {
      const caption = `${name}: ${f.integer(d.stats.count)} samples · p50 ${f.ms(d.stats.p50Ms)} · p90 ${f.ms(d.stats.p90Ms)} · p99 ${f.ms(d.stats.p99Ms)} · max ${f.ms(d.stats.maxMs)}`;
      return `<figure><figcaption>${escapeHtml(caption)}</figcaption>${histogramSvg(f, d)}</figure><figure><figcaption>${escapeHtml(name)} over time (seconds since the start × latency)</figcaption>${heatmapSvg(f, d)}</figure>`;
    })
    .join("\n");
}
