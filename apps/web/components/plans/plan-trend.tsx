"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import uPlot from "uplot";
import type { RunView } from "@throng/protocol/run";
import { useUPlot } from "../../hooks/use-uplot";
import { formatDateTime, formatMs, formatPercent } from "../../lib/shared/format";
import type { Slo } from "@throng/protocol/plan";
import {
  TREND_FIGURES,
  trendChart,
  trendRuns,
  trendTimeRange,
  trendXTicks,
  type TrendFigure,
  type TrendRun,
} from "../../lib/plans/plan-trend";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { formatAxisCount } from "../../lib/charts/series";
import { annotationPlugin, showLatest } from "../charts/series-chart";

const MARK = { passed: "#1a7f37", failed: "#cf222e", none: "#8c959f" } as const;
/** The pinned baseline run's line: blue, apart from the SLO's red and the verdicts' green and red. */
const BASELINE_COLOUR = "#0969da";
const markOf = (run: TrendRun) => (run.passed === null ? MARK.none : run.passed ? MARK.passed : MARK.failed);
const FORMAT: Record<TrendFigure["unit"], (value: number) => string> = {
  ms: (value) => formatMs(value),
  percent: (value) => formatPercent(value, 2),
  count: formatAxisCount,
};
const runTime = (t: number | null) => (t === null ? "—" : formatDateTime(t * 1000));

/** Each run's point as a dot in its verdict's colour: green passed, red not passed, grey no verdict. */
function verdictMarks(runs: readonly TrendRun[]): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (plot) => {
          const { ctx } = plot;
          ctx.save();
          runs.forEach((run, index) => {
            const value = plot.data[1]![index];
            if (value === null || value === undefined) return;
            ctx.fillStyle = markOf(run);
            ctx.beginPath();
            ctx.arc(
              plot.valToPos(run.t, "x", true),
              plot.valToPos(value, "y", true),
              5 * uPlot.pxRatio,
              0,
              2 * Math.PI,
            );
            ctx.fill();
          });
          ctx.restore();
        },
      ],
    },
  };
}

/** How wide a run's time label is on the x axis ("Nov 26, 6:36:40 AM" at most), for spacing the ticks. */
const DATE_LABEL_PX = 130;

/** One figure over the plan's runs, with the plan's SLO and its baseline run on it; clicking a point opens that run. */
function TrendChart({
  figure,
  runs,
  slos,
  baseline,
}: {
  figure: TrendFigure;
  runs: readonly TrendRun[];
  slos: readonly Slo[] | undefined;
  baseline: TrendRun | null;
}) {
  const router = useRouter();
  const {
    columns,
    threshold,
    baseline: baselineLine,
    yTicks,
    tickLabel,
  } = useMemo(() => trendChart(runs, figure, slos, baseline, FORMAT[figure.unit]), [runs, figure, slos, baseline]);
  const highest = Math.max(0, ...columns[1].filter((value): value is number => value !== null));
  const options = useMemo((): Omit<uPlot.Options, "width"> => {
    const format = FORMAT[figure.unit];
    const lines = [
      ...(threshold ? [threshold] : []),
      ...(baselineLine ? [{ ...baselineLine, colour: BASELINE_COLOUR }] : []),
    ];
    return {
      height: 180,
      // Room on the right for half of the last date label, which uPlot centres on its tick.
      padding: [12, 72, 0, 12],
      // From the runs themselves: uPlot pre-widens a lone point's x range by its magnitude (1970 to 2033) before this runs.
      // y from 0 to a round tick at or above the highest run and the SLO: never "10 ms" at the top under a 12.59 ms run.
      scales: {
        x: { time: false, range: () => trendTimeRange(runs) },
        y: { range: () => [yTicks[0]!, yTicks[yTicks.length - 1]!] },
      },
      axes: [
        // Ticks at the runs themselves, as many as their dates fit: no tick between runs that marks nothing.
        // Labels as short as the runs allow, in the reader's locale ("6:36 AM" on one day); the legend keeps the full date.
        {
          space: DATE_LABEL_PX,
          splits: (u) => trendXTicks(columns[0], u.bbox.width / uPlot.pxRatio, DATE_LABEL_PX),
          values: (_u, splits) => splits.map(tickLabel),
        },
        { size: 70, splits: () => yTicks, values: (_u, splits) => splits.map(format) },
      ],
      series: [
        { label: "Run", value: (_u, value) => runTime(value) },
        {
          label: figure.title,
          stroke: "#57606a",
          width: 1.5,
          points: { show: false },
          spanGaps: true,
          value: (_u: uPlot, value: number | null) => (value === null ? "—" : format(value)),
        },
      ],
      cursor: { drag: { x: false, y: false }, sync: { key: "trend" }, points: { size: 12 } },
      // Unhovered, the legend reads the latest run instead of "Run: —".
      hooks: { setCursor: [showLatest], setData: [showLatest] },
      plugins: [
        annotationPlugin({ current: [] }, { current: lines }),
        verdictMarks(runs),
        {
          hooks: {
            ready: [
              (plot) =>
                plot.over.addEventListener("click", () => {
                  const run = plot.cursor.idx == null ? undefined : runs[plot.cursor.idx];
                  if (run) router.push(`/runs/${run.runId}/report`);
                }),
            ],
          },
        },
      ],
    };
  }, [figure, runs, router, columns, threshold, baselineLine, yTicks, tickLabel]);
  const canvasRef = useUPlot(options, columns as uPlot.AlignedData);
  const titleId = `plan-trend-${figure.key}-title`;
  return (
    <section
      className="chart trend-chart"
      aria-labelledby={titleId}
      data-testid="plan-trend-chart"
      data-figure={figure.key}
      data-runs={columns[1].filter((value) => value !== null).length}
      data-threshold={threshold?.value}
      data-y-top={yTicks[yTicks.length - 1]}
      data-y-bottom={yTicks[0]}
      data-lowest={Math.min(0, ...columns[1].filter((value): value is number => value !== null))}
      data-highest={highest}
      data-baseline={baselineLine?.value}
    >
      <h3 id={titleId}>{figure.title}</h3>
      {(threshold || baselineLine) && (
        <p className="chart-thresholds">
          {threshold && <span data-testid="plan-trend-slo">{threshold.label}</span>}
          {threshold && baselineLine && " · "}
          {baselineLine && (
            <span data-testid="plan-trend-baseline" style={{ color: BASELINE_COLOUR }}>
              {baselineLine.label}
            </span>
          )}
        </p>
      )}
      <div
        className="chart-canvas"
        ref={canvasRef}
        role="img"
        aria-label={`${figure.title} of each run of this plan over time`}
      />
    </section>
  );
}

/** The plan's pinned baseline run as a trend point: among the runs listed, or read on its own when it is older. */
function useBaselineRun(points: readonly TrendRun[], baselineRunId: string | null): TrendRun | null {
  const listed = baselineRunId ? points.find((run) => run.runId === baselineRunId) : undefined;
  const read = useApiQuery(
    baselineRunId && !listed ? queryKeys.run(baselineRunId) : ["no-trend-baseline"],
    async (signal) => (baselineRunId && !listed ? api.getRun(baselineRunId, signal) : null),
  );
  return listed ?? (read.data ? (trendRuns([read.data])[0] ?? null) : null);
}

/** The plan's ended runs over time: p99, error rate, throughput and estimate, each run marked passed or not, with its baseline. */
export function PlanTrend({
  runs,
  slos,
  baselineRunId = null,
}: {
  runs: readonly RunView[];
  slos?: readonly Slo[] | undefined;
  baselineRunId?: string | null;
}) {
  const points = useMemo(() => trendRuns(runs), [runs]);
  const baseline = useBaselineRun(points, baselineRunId);
  const figures = TREND_FIGURES.filter(
    (figure) => figure.key !== "estimate" || points.some((run) => run.estimate !== null),
  );
  const passed = points.filter((run) => run.passed === true).length;
  if (points.length === 0) return <p className="muted">The trend starts once a run of this plan has ended.</p>;
  return (
    <div
      data-testid="plan-trend"
      data-runs={points.length}
      data-passed={passed}
      data-not-passed={points.filter((run) => run.passed === false).length}
    >
      <p className="muted small trend-key">
        <span className="trend-dot" style={{ background: MARK.passed }} /> passed{" "}
        <span className="trend-dot" style={{ background: MARK.failed }} /> not passed · click a point to open its run
      </p>
      <div className="trend-charts">
        {figures.map((figure) => (
          <TrendChart key={figure.key} figure={figure} runs={points} slos={slos} baseline={baseline} />
        ))}
      </div>
      <ol className="sr-only">
        {points.map((run) => (
          <li key={run.runId}>
            <Link href={`/runs/${run.runId}/report`} data-testid="plan-trend-run">
              Run of {runTime(run.t)}: {run.passed === null ? "no verdict" : run.passed ? "passed" : "not passed"}
            </Link>
          </li>
        ))}
      </ol>
    </div>
  );
}
