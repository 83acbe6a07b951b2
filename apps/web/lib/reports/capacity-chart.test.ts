import { describe, expect, it } from "vitest";
import type { UslFit } from "@throng/protocol/report";
import { CHART, capacityChartModel, niceCeiling, splitCurve, uslThroughput } from "./capacity-chart";

/** Step `i` of a step-up run: its clients and throughput, held unless said otherwise. */
const step = (i: number, clients: number, throughput: number, held = true) => ({
  step: i,
  clients,
  seconds: 2,
  throughputPerSec: throughput,
  rttP99Ms: 1,
  slos: [],
  held,
  saturatedAgents: [],
});

/** A USL fit with no coherency cost (κ = 0): its throughput climbs for ever, so it has no predicted peak. */
const climbingFit = (fit: Pick<UslFit, "lambda" | "sigma" | "rSquared" | "trustedUpToClients">): UslFit => ({
  ...fit,
  kappa: 0,
  peakClients: null,
  peakThroughputPerSec: null,
});

describe("uslThroughput", () => {
  it("is linear without contention or coherency costs", () => {
    expect(uslThroughput({ lambda: 10, sigma: 0, kappa: 0 }, 50)).toBe(500);
  });
  it("falls past the peak when coherency costs something", () => {
    const fit = { lambda: 10, sigma: 0.02, kappa: 0.001 };
    const peak = Math.sqrt((1 - fit.sigma) / fit.kappa);
    expect(uslThroughput(fit, peak)).toBeGreaterThan(uslThroughput(fit, peak * 2));
  });
});

it("rounds axis maxima up to 1, 2 or 5 × 10ⁿ", () => {
  expect(niceCeiling(17)).toBe(20);
  expect(niceCeiling(230)).toBe(500);
  expect(niceCeiling(0)).toBe(1);
});

describe("capacityChartModel", () => {
  it("marks the breaking step, the knee and the trusted range, and widens x to the trusted range", () => {
    const model = capacityChartModel({
      steps: [step(0, 5, 50), step(1, 10, 95), step(2, 15, 120, false)],
      usl: {
        lambda: 10,
        sigma: 0.05,
        kappa: 0.001,
        rSquared: 0.98,
        peakClients: 30,
        peakThroughputPerSec: 150,
        trustedUpToClients: 40,
      },
      breakingStep: 2,
      breakingSlos: ["rtt-p99-ms"],
      kneeClients: 10,
    });
    expect(model.marks[0]!.label).toBe("broke at 15 on Round trip p99");
    expect(model.marks.map((m) => m.kind)).toEqual(["breaking", "knee", "trusted"]);
    expect(model.xTicks.at(-1)!.value).toBe(50);
    expect(model.curve.startsWith("M")).toBe(true);
    expect(model.dots[2]!.held).toBe(false);
    // Higher throughput is drawn higher (smaller y).
    expect(model.dots[1]!.y).toBeLessThan(model.dots[0]!.y);
  });
  it("does not stretch x to a predicted peak far past the trusted range", () => {
    const model = capacityChartModel({
      steps: [step(0, 5, 50), step(1, 10, 95), step(2, 15, 140)],
      usl: {
        lambda: 10,
        sigma: 0.01,
        kappa: 1e-6,
        rSquared: 0.99,
        peakClients: 995,
        peakThroughputPerSec: 5000,
        trustedUpToClients: 19,
      },
      breakingStep: null,
      kneeClients: null,
    });
    expect(model.xTicks.at(-1)!.value).toBe(20);
  });
  it("carries an automatic search's phase to each dot", () => {
    const fine = { ...step(2, 12, 115), phase: "fine" as const };
    const model = capacityChartModel({
      steps: [{ ...step(0, 5, 50), phase: "coarse" }, { ...step(1, 15, 120, false), phase: "coarse" }, fine],
      usl: null,
      breakingStep: 1,
      kneeClients: null,
    });
    expect(model.dots.map((d) => d.phase)).toEqual(["coarse", "coarse", "fine"]);
    expect(
      capacityChartModel({ steps: [step(0, 5, 50)], usl: null, breakingStep: null, kneeClients: null }).dots[0]!.phase,
    ).toBeUndefined();
  });
  it("draws no curve without a fit", () => {
    const model = capacityChartModel({ steps: [step(0, 5, 50)], usl: null, breakingStep: null, kneeClients: null });
    expect([model.curve, model.extrapolation, model.trustedToClients]).toEqual(["", "", null]);
  });
  it("draws the fit solid only as far as it is trusted, dashed beyond, and sizes y without the dashed part", () => {
    // Measured up to 600 clients (774 msg/s); the fit (no κ) keeps climbing past the steps, to 1,143 msg/s at 1,000 clients.
    const steps = [
      step(0, 100, 154),
      step(1, 200, 296),
      step(2, 300, 429),
      step(3, 400, 552),
      step(4, 500, 667),
      step(5, 600, 774, false),
    ];
    const usl = climbingFit({ lambda: 1.6, sigma: 0.0004, rSquared: 0.99, trustedUpToClients: 750 });
    const model = capacityChartModel({ steps, usl, breakingStep: 5, kneeClients: 400 });
    const xsOf = (path: string) => [...path.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
    const clientsAt = (px: number) =>
      ((px - CHART.left) / (CHART.width - CHART.left - CHART.right)) * model.xTicks.at(-1)!.value;
    // The solid part ends at the trusted 750 clients, where the dashed part begins; the dashed part runs to the axis end.
    expect(clientsAt(Math.max(...xsOf(model.curve)))).toBeCloseTo(750, 0);
    expect(clientsAt(Math.min(...xsOf(model.extrapolation)))).toBeCloseTo(750, 0);
    expect(clientsAt(Math.max(...xsOf(model.extrapolation)))).toBeCloseTo(1_000, 0);
    expect(model.trustedToClients).toBe(750);
    // The untrusted prediction at 1,000 clients does not stretch the throughput axis (to 2,000); the chart clips it.
    expect(uslThroughput(usl, 1_000)).toBeGreaterThan(1_000);
    expect(model.yTicks.at(-1)!.value).toBe(1_000);
  });
  it("draws no dashed part when the axis ends where the trust does", () => {
    const usl = climbingFit({ lambda: 10, sigma: 0.02, rSquared: 0.95, trustedUpToClients: 50 });
    const model = capacityChartModel({
      steps: [step(0, 20, 180), step(1, 40, 330)],
      usl,
      breakingStep: null,
      kneeClients: null,
    });
    expect(model.extrapolation).toBe("");
    expect(model.curve).not.toBe("");
  });
});

describe("splitCurve", () => {
  it("splits the sampled clients at the trusted end, both parts holding it so they join", () => {
    expect(splitCurve([0, 10, 20, 30, 40], 25)).toEqual({ trusted: [0, 10, 20, 25], untrusted: [25, 30, 40] });
    expect(splitCurve([0, 10, 20], 20)).toEqual({ trusted: [0, 10, 20], untrusted: [20] });
    expect(splitCurve([0, 10, 20], 50)).toEqual({ trusted: [0, 10, 20], untrusted: [] });
  });
});

it("puts axis ticks on round numbers", () => {
  const model = capacityChartModel({ steps: [step(0, 40, 90)], usl: null, breakingStep: null, kneeClients: null });
  expect(model.xTicks.map((t) => t.value)).toEqual([0, 10, 20, 30, 40, 50]);
  expect(model.yTicks.map((t) => Math.round(t.value))).toEqual([0, 20, 40, 60, 80, 100]);
});
