import { describe, expect, it } from "vitest";
import { capacityChartModel, niceCeiling, uslThroughput } from "./capacity-chart";

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
  const step = (i: number, clients: number, throughput: number, held = true) =>
    ({ step: i, clients, seconds: 2, throughputPerSec: throughput, rttP99Ms: 1, slos: [], held, saturatedAgents: [] });
  it("marks the breaking step, the knee and the trusted range, and widens x to the trusted range", () => {
    const model = capacityChartModel({
      steps: [step(0, 5, 50), step(1, 10, 95), step(2, 15, 120, false)],
      usl: { lambda: 10, sigma: 0.05, kappa: 0.001, rSquared: 0.98, peakClients: 30, peakThroughputPerSec: 150, trustedUpToClients: 40 },
      breakingStep: 2,
      breakingSlos: ["rtt-p99-ms"],
      kneeClients: 10,
    });
    expect(model.marks[0]!.label).toBe("broke at 15 on rtt-p99-ms");
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
      usl: { lambda: 10, sigma: 0.01, kappa: 1e-6, rSquared: 0.99, peakClients: 995, peakThroughputPerSec: 5000, trustedUpToClients: 19 },
      breakingStep: null,
      kneeClients: null,
    });
    expect(model.xTicks.at(-1)!.value).toBe(20);
  });
  it("carries an automatic search's phase to each dot", () => {
    const fine = { ...step(2, 12, 115), phase: "fine" as const };
    const model = capacityChartModel({ steps: [{ ...step(0, 5, 50), phase: "coarse" }, { ...step(1, 15, 120, false), phase: "coarse" }, fine], usl: null, breakingStep: 1, kneeClients: null });
    expect(model.dots.map((d) => d.phase)).toEqual(["coarse", "coarse", "fine"]);
    expect(capacityChartModel({ steps: [step(0, 5, 50)], usl: null, breakingStep: null, kneeClients: null }).dots[0]!.phase).toBeUndefined();
  });
  it("draws no curve without a fit", () => {
    expect(capacityChartModel({ steps: [step(0, 5, 50)], usl: null, breakingStep: null, kneeClients: null }).curve).toBe("");
  });
});

it("puts axis ticks on round numbers", () => {
  const step = { step: 0, clients: 40, seconds: 2, throughputPerSec: 90, rttP99Ms: 1, slos: [], held: true, saturatedAgents: [] };
  const model = capacityChartModel({ steps: [step], usl: null, breakingStep: null, kneeClients: null });
  expect(model.xTicks.map((t) => t.value)).toEqual([0, 10, 20, 30, 40, 50]);
  expect(model.yTicks.map((t) => Math.round(t.value))).toEqual([0, 20, 40, 60, 80, 100]);
});
