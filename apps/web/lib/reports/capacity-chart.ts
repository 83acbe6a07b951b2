// Geometry of the capacity evidence chart: each step's throughput against its clients, the Universal
// Scalability Law curve fitted to them, and vertical marks for the knee, the breaking step and how far the
// fit may be trusted. Pure numbers, drawn as SVG by components/reports/capacity-chart.tsx (prints crisply, unlike canvas).
import type { CapacityEstimate, UslFit } from "@throng/protocol/report";
import { metricName } from "../shared/slo-text";

export const CHART = { width: 720, height: 300, left: 64, right: 16, top: 24, bottom: 44 } as const;

/** X(N) = λN / (1 + σ(N−1) + κN(N−1)). */
export function uslThroughput(fit: Pick<UslFit, "lambda" | "sigma" | "kappa">, clients: number): number {
  const denominator = 1 + fit.sigma * (clients - 1) + fit.kappa * clients * (clients - 1);
  return denominator > 0 ? (fit.lambda * clients) / denominator : 0;
}

/** Round a maximum up to 1, 2 or 5 × a power of ten, so axis ticks read as round numbers. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

export interface StepDot {
  step: number;
  clients: number;
  throughput: number;
  held: boolean;
  saturated: boolean;
  /** An automatic search's phase: coarse steps are drawn as circles, the fine ones below the break as diamonds. */
  phase?: "coarse" | "settle" | "fine";
  /** The first level held again after it broke. */
  retry?: boolean;
  x: number;
  y: number;
}

export interface ChartMark {
  kind: "breaking" | "knee" | "trusted";
  label: string;
  clients: number;
  x: number;
}

export interface CapacityChartModel {
  dots: StepDot[];
  /** SVG path of the fitted curve where the fit is trusted (drawn solid), or "" without a fit. */
  curve: string;
  /** SVG path of the fitted curve beyond that (drawn dashed: extrapolation), or "" when the axis ends where the trust does. */
  extrapolation: string;
  /** Clients up to which the curve is drawn solid; null without a fit. */
  trustedToClients: number | null;
  marks: ChartMark[];
  xTicks: { value: number; x: number }[];
  yTicks: { value: number; y: number }[];
}

/** A predicted peak far past where the fit is trusted would squash the measured steps into the chart's left edge. */
function shownPeak(usl: UslFit | null): number {
  return usl?.peakClients && usl.peakClients <= 2 * usl.trustedUpToClients ? usl.peakClients : 0;
}

/**
 * The clients at which the curve is sampled, split where the fit stops being trusted: `trusted` up to and
 * including `trustedTo`, `untrusted` from it on (both hold the boundary, so the solid and dashed parts join).
 */
export function splitCurve(xs: readonly number[], trustedTo: number): { trusted: number[]; untrusted: number[] } {
  const all = [
    ...new Set([...xs, ...(trustedTo > Math.min(...xs) && trustedTo < Math.max(...xs) ? [trustedTo] : [])]),
  ].sort((a, b) => a - b);
  return { trusted: all.filter((n) => n <= trustedTo), untrusted: all.filter((n) => n >= trustedTo) };
}

export function capacityChartModel(
  capacity: Pick<CapacityEstimate, "steps" | "usl" | "breakingStep" | "kneeClients"> & {
    breakingSlos?: readonly string[];
  },
): CapacityChartModel {
  const { width, height, left, right, top, bottom } = CHART;
  const steps = capacity.steps;
  const usl = capacity.usl;
  const breaking =
    capacity.breakingStep === null ? undefined : steps.find((step) => step.step === capacity.breakingStep);
  // Show the measured range, and past it as far as the fit is trusted (or its peak), so extrapolation is visible.
  const maxClients = Math.max(1, ...steps.map((s) => s.clients), usl?.trustedUpToClients ?? 0, shownPeak(usl));
  const xMax = niceCeiling(maxClients);
  // Solid only as far as the fit is trusted (usl.ts trusts a good fit a quarter past the largest step, a poor one
  // not past it); dashed beyond, and the y axis sized without the dashed part, which the chart clips.
  const parts = usl
    ? splitCurve(
        Array.from({ length: 61 }, (_, i) => (i / 60) * xMax),
        usl.trustedUpToClients,
      )
    : { trusted: [], untrusted: [] };
  const yMax = niceCeiling(
    Math.max(
      1,
      ...steps.map((s) => s.throughputPerSec),
      ...parts.trusted.map((n) => (usl ? uslThroughput(usl, n) : 0)),
    ),
  );
  const x = (clients: number) => left + (clients / xMax) * (width - left - right);
  const y = (value: number) => top + (1 - value / yMax) * (height - top - bottom);
  const dots = steps.map((s) => ({
    step: s.step,
    clients: s.clients,
    throughput: s.throughputPerSec,
    held: s.held,
    saturated: s.saturatedAgents.length > 0,
    ...(s.phase ? { phase: s.phase } : {}),
    ...(s.retry ? { retry: true } : {}),
    x: x(s.clients),
    y: y(s.throughputPerSec),
  }));
  const path = (xs: readonly number[]) =>
    usl && xs.length > 1
      ? xs.map((n, i) => `${i === 0 ? "M" : "L"}${x(n).toFixed(1)},${y(uslThroughput(usl, n)).toFixed(1)}`).join(" ")
      : "";
  const marks: ChartMark[] = [];
  if (breaking)
    marks.push({
      kind: "breaking",
      label: `broke at ${breaking.clients}${capacity.breakingSlos?.length ? ` on ${capacity.breakingSlos.map(metricName).join(", ")}` : ""}`,
      clients: breaking.clients,
      x: x(breaking.clients),
    });
  if (capacity.kneeClients !== null)
    marks.push({
      kind: "knee",
      label: `knee ${capacity.kneeClients}`,
      clients: capacity.kneeClients,
      x: x(capacity.kneeClients),
    });
  if (usl)
    marks.push({
      kind: "trusted",
      label: `fit trusted to ${Math.round(usl.trustedUpToClients)}`,
      clients: usl.trustedUpToClients,
      x: x(usl.trustedUpToClients),
    });
  // Fifths of a 1/2/5 × 10ⁿ maximum are round numbers (quarters of 50 would be 12.5).
  const ticks = (max: number) => [0, 0.2, 0.4, 0.6, 0.8, 1].map((f) => f * max);
  return {
    dots,
    curve: path(parts.trusted),
    extrapolation: path(parts.untrusted),
    trustedToClients: usl?.trustedUpToClients ?? null,
    marks,
    xTicks: ticks(xMax).map((value) => ({ value, x: x(value) })),
    yTicks: ticks(yMax).map((value) => ({ value, y: y(value) })),
  };
}
