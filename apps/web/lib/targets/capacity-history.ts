// A target's saved capacity estimates over builds: bars for the chart, and the headline change. The API
// words each change ("−12% since build 1.3"); this only lays the history out.
import type { EstimateView } from "@throng/protocol/report";
import { niceCeiling } from "../reports/capacity-chart";

export const HISTORY_CHART = { width: 720, height: 240, left: 56, right: 16, top: 16, bottom: 48 } as const;

export interface HistoryBar {
  id: string;
  build: string;
  clients: number | null;
  valid: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
}

export function historyBars(estimates: readonly EstimateView[]): {
  bars: HistoryBar[];
  yMax: number;
  yTicks: { value: number; y: number }[];
} {
  const { width, height, left, right, top, bottom } = HISTORY_CHART;
  const yMax = niceCeiling(Math.max(1, ...estimates.map((e) => e.clients ?? 0)));
  const slot = (width - left - right) / Math.max(1, estimates.length);
  const barWidth = Math.min(64, slot * 0.6);
  const y = (value: number) => top + (1 - value / yMax) * (height - top - bottom);
  const bars = estimates.map((estimate, index) => {
    const top_ = y(estimate.clients ?? 0);
    return {
      id: estimate.id,
      build: estimate.build,
      clients: estimate.clients,
      valid: estimate.valid,
      x: left + slot * index + (slot - barWidth) / 2,
      y: top_,
      width: barWidth,
      height: height - bottom - top_,
    };
  });
  return { bars, yMax, yTicks: [0, 0.5, 1].map((f) => ({ value: f * yMax, y: y(f * yMax) })) };
}

/** The newest estimate's change against the one before it, or why there is none. */
export function latestChange(estimates: readonly EstimateView[]): string {
  const latest = estimates[estimates.length - 1];
  if (!latest) return "No estimates saved yet.";
  if (latest.change) return latest.change;
  if (estimates.length === 1) return "First estimate for this target: save another build's to see the change.";
  return "No change to show: one of the last two estimates has no capacity.";
}
