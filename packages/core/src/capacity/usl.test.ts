import { describe, expect, it } from "vitest";
import { fitUsl } from "./usl";

const usl = (l: number, s: number, k: number) => (n: number) => (l * n) / (1 + s * (n - 1) + k * n * (n - 1));

describe("Universal Scalability Law fit", () => {
  it("recovers λ, σ, κ from exact points and finds the peak", () => {
    const x = usl(100, 0.05, 0.0002);
    const fit = fitUsl([1, 10, 20, 40, 60, 80, 100].map((n) => ({ clients: n, throughput: x(n) })))!;
    expect(fit.lambda).toBeCloseTo(100, 3);
    expect(fit.sigma).toBeCloseTo(0.05, 4);
    expect(fit.kappa).toBeCloseTo(0.0002, 6);
    expect(fit.rSquared).toBeCloseTo(1, 6);
    expect(fit.peakClients).toBeCloseTo(Math.sqrt(0.95 / 0.0002), 3);
    expect(fit.trustedUpToClients).toBe(125);
  });

  it("fits linear scaling with no contention terms", () => {
    const fit = fitUsl([
      { clients: 10, throughput: 100 },
      { clients: 20, throughput: 200 },
      { clients: 40, throughput: 400 },
    ])!;
    expect(fit.sigma).toBeCloseTo(0, 6);
    expect(fit.kappa).toBeCloseTo(0, 6);
    expect(fit.peakClients).toBeNull();
  });

  it("takes a negligible κ as 0: no finite peak, and the κ it dropped is kept for the report", () => {
    // Near-linear steps with a κ far too small to move any measured point (it once predicted 141 million clients).
    const x = usl(10, 0.02, 5e-10);
    const fit = fitUsl([20, 40, 60, 80, 100, 120].map((n) => ({ clients: n, throughput: x(n) })))!;
    expect(fit.kappa).toBe(0);
    expect(fit.peakClients).toBeNull();
    expect(fit.peakThroughputPerSec).toBeNull();
    expect(fit.droppedKappa).toBeGreaterThan(0);
    expect(fit.sigma).toBeCloseTo(0.02, 3);
    expect(fit.trustedUpToClients).toBe(150);
  });

  it("keeps a κ whose retrograde term the measured steps show", () => {
    // κ's term at 120 clients is several percent of the denominator: a real peak near 2.6 times the last step.
    const x = usl(10, 0.02, 1e-5);
    const fit = fitUsl([20, 40, 60, 80, 100, 120].map((n) => ({ clients: n, throughput: x(n) })))!;
    expect(fit.kappa).toBeCloseTo(1e-5, 7);
    expect(fit.droppedKappa).toBeUndefined();
    expect(fit.peakClients).toBeCloseTo(Math.sqrt(0.98 / 1e-5), 1);
  });

  it("needs three steps", () => {
    expect(
      fitUsl([
        { clients: 1, throughput: 1 },
        { clients: 2, throughput: 2 },
      ]),
    ).toBeNull();
  });
});
