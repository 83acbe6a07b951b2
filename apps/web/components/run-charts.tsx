"use client";

import type { SeriesPoint } from "@throng/protocol/snapshot";
import { CONNECTION_LINES, MESSAGE_LINES, RTT_LINES } from "../lib/series";
import { SeriesChart } from "./series-chart";

/** The three live charts of a run: connections, message rates, round-trip times. */
export function RunCharts({ points, span }: { points: readonly SeriesPoint[]; span: readonly [number, number] | null }) {
  return (
    <div className="chart-grid">
      <SeriesChart testId="chart-connections" title="Connections and clients" lines={CONNECTION_LINES} points={points} span={span} />
      <SeriesChart testId="chart-messages" title="Messages per second" lines={MESSAGE_LINES} points={points} span={span} />
      <SeriesChart testId="chart-rtt" title="Round-trip time p50 and p99 (ms)" lines={RTT_LINES} points={points} span={span} />
    </div>
  );
}
